//! Static descriptions of derived structs, for tools and tests to walk.

use core::fmt;

use crate::{Version, VersionRange};

/// A Kafka field type, as the JSON schemas name it (`int32`, `string`, `[]int32`, `[]Topic`).
#[derive(Clone, Copy)]
pub enum KafkaType {
    /// `bool`
    Bool,
    /// `int8`
    Int8,
    /// `int16`
    Int16,
    /// `uint16`
    Uint16,
    /// `int32`
    Int32,
    /// `uint32`
    Uint32,
    /// `int64`
    Int64,
    /// `float64`
    Float64,
    /// `string`
    String,
    /// `bytes`
    Bytes,
    /// `uuid`
    Uuid,
    /// `records`
    Records,
    /// `[]T`
    Array(&'static KafkaType),
    /// A struct, described by its metadata (a function, so recursive types stay finite).
    Struct(fn() -> &'static StructMeta),
}

impl KafkaType {
    /// Whether Kafka allows `nullableVersions` on this type (string, bytes, records, struct,
    /// array; KAFKA-RULES §9 rule 37).
    pub fn can_be_nullable(&self) -> bool {
        matches!(
            self,
            KafkaType::String
                | KafkaType::Bytes
                | KafkaType::Records
                | KafkaType::Array(_)
                | KafkaType::Struct(_)
        )
    }

    /// The struct's metadata, for `Struct`.
    pub fn as_struct(&self) -> Option<&'static StructMeta> {
        match self {
            KafkaType::Struct(f) => Some(f()),
            _ => None,
        }
    }

    /// The element type, for `Array`.
    pub fn element(&self) -> Option<&'static KafkaType> {
        match self {
            KafkaType::Array(t) => Some(t),
            _ => None,
        }
    }
}

impl fmt::Display for KafkaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            KafkaType::Bool => "bool",
            KafkaType::Int8 => "int8",
            KafkaType::Int16 => "int16",
            KafkaType::Uint16 => "uint16",
            KafkaType::Int32 => "int32",
            KafkaType::Uint32 => "uint32",
            KafkaType::Int64 => "int64",
            KafkaType::Float64 => "float64",
            KafkaType::String => "string",
            KafkaType::Bytes => "bytes",
            KafkaType::Uuid => "uuid",
            KafkaType::Records => "records",
            KafkaType::Array(t) => return write!(f, "[]{t}"),
            KafkaType::Struct(m) => m().name,
        };
        f.write_str(s)
    }
}

impl fmt::Debug for KafkaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KafkaType({self})")
    }
}

impl PartialEq for KafkaType {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (KafkaType::Array(a), KafkaType::Array(b)) => a == b,
            // Struct names are unique within a message, which is what comparisons are for.
            (KafkaType::Struct(a), KafkaType::Struct(b)) => a().name == b().name,
            (a, b) => core::mem::discriminant(a) == core::mem::discriminant(b),
        }
    }
}

/// Whether a top-level message is a request or a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiKind {
    /// A request.
    Request,
    /// A response.
    Response,
}

/// The API a top-level message belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiMeta {
    /// The API key.
    pub key: i16,
    /// Request or response.
    pub kind: ApiKind,
}

/// A derived struct: its Kafka name, versions and fields.
#[derive(Debug)]
pub struct StructMeta {
    /// The struct's Kafka name (the Rust name unless `#[kafka(name = "…")]`).
    pub name: &'static str,
    /// Valid versions (`validVersions` for a message, `versions` for a nested struct).
    pub versions: VersionRange,
    /// Flexible versions: where strings, bytes and arrays are compact and the struct ends
    /// with a tagged-field section.
    pub flexible: VersionRange,
    /// The API key and kind, for a top-level message.
    pub api: Option<ApiMeta>,
    /// The struct's doc comment.
    pub about: &'static str,
    /// The declared fields, in wire order (tagged ones included, in declaration order).
    pub fields: &'static [FieldMeta],
    /// The Rust name of the field that keeps unknown tagged fields, if the struct has one.
    pub unknown_tagged_field: Option<&'static str>,
    /// Whether the highest version is still unstable (Kafka's `latestVersionUnstable`).
    pub latest_version_unstable: bool,
}

impl StructMeta {
    /// The field with Kafka name `name`.
    pub fn field(&self, name: &str) -> Option<&'static FieldMeta> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Whether the highest version is still under development (Kafka's
    /// `latestVersionUnstable`: brokers only accept it when told to enable unstable versions).
    pub fn latest_version_unstable(&self) -> bool {
        self.latest_version_unstable
    }

    /// The unstable version, if any: the highest valid version when `latest_version_unstable`.
    pub fn unstable_version(&self) -> Option<Version> {
        if self.latest_version_unstable {
            self.versions.max()
        } else {
            None
        }
    }
}

/// A declared field.
#[derive(Debug)]
pub struct FieldMeta {
    /// The Rust field name (as it appears in error paths).
    pub rust_name: &'static str,
    /// The Kafka field name (PascalCase, as in the JSON schemas).
    pub name: &'static str,
    /// The Kafka type.
    pub ty: KafkaType,
    /// Versions in which the field is part of the struct (`versions`).
    pub versions: VersionRange,
    /// Versions in which it may be null (`nullableVersions`).
    pub nullable: VersionRange,
    /// The tag, for a tagged field.
    pub tag: Option<u32>,
    /// Versions in which it is tagged (`taggedVersions`).
    pub tagged: VersionRange,
    /// The declared default, as written (`default`); `None` for Kafka's implicit default.
    pub default: Option<&'static str>,
    /// Whether it may be dropped silently at versions without it (`ignorable`).
    pub ignorable: bool,
    /// A field-level `flexibleVersions` override (strings and bytes only).
    pub flexible: Option<VersionRange>,
    /// The field's doc comment (`about`).
    pub about: &'static str,
    /// What the field names (Kafka's `entityType`, e.g. `"topicName"`), when declared.
    pub entity_type: Option<&'static str>,
    /// Whether the field is the key of its struct when the parent array is a map (`mapKey`).
    pub map_key: bool,
    /// Whether Java keeps this bytes field as a view of the input (`zeroCopy`).
    pub zero_copy: bool,
}

impl FieldMeta {
    /// What the field names (Kafka's `entityType`, e.g. `"topicName"`), when declared.
    pub fn entity_type(&self) -> Option<&'static str> {
        self.entity_type
    }

    /// Whether the field is a map key (Kafka's `mapKey`).
    pub fn map_key(&self) -> bool {
        self.map_key
    }

    /// Whether the field is zero-copy in Java (Kafka's `zeroCopy`); this crate's `Bytes` are
    /// always zero-copy, so it changes nothing here.
    pub fn zero_copy(&self) -> bool {
        self.zero_copy
    }

    /// Versions in which the field is written among the struct's regular fields.
    pub fn mandatory(&self) -> VersionRange {
        match self.tagged.min() {
            Some(t) => self.versions.intersect(VersionRange::new(0, t - 1)),
            None => self.versions,
        }
    }
}
