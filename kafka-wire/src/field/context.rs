//! [`Cx`], the context one value is written or read in: the lowest layer of the field
//! codecs, which the rules (`rules/`) take too.

use crate::meta::{FieldMeta, StructMeta};
use crate::Version;

/// The context one value is written or read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cx {
    /// The message version, passed unchanged to nested structs (as Kafka's generated code does).
    pub version: Version,
    /// Compact (flexible) length prefixes for strings, bytes and arrays.
    pub compact: bool,
    /// Whether null is allowed at this version.
    pub nullable: bool,
    /// Whether the value is the payload of a tagged field (changes a nullable struct's marker).
    pub tagged: bool,
}

impl Cx {
    /// The context of a top-level struct at `version`.
    pub const fn new(version: Version) -> Self {
        Cx {
            version,
            compact: false,
            nullable: false,
            tagged: false,
        }
    }

    /// The context of an array element: same version and compactness, never null.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub const fn element(self) -> Self {
        Cx {
            version: self.version,
            compact: self.compact,
            nullable: false,
            tagged: false,
        }
    }
}

/// The context of field `f` of the struct `meta` at version `v`, as the derive computes it
/// (compact in the struct's flexible versions unless the field says otherwise).
pub(crate) fn field_cx(meta: &StructMeta, f: &FieldMeta, v: Version) -> Cx {
    let flex = meta.flexible.contains(v);
    Cx {
        version: v,
        compact: flex && f.flexible.is_none_or(|r| r.contains(v)),
        nullable: f.nullable.contains(v),
        tagged: false,
    }
}
