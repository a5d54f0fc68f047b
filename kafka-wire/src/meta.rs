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
    /// array; Java's `FieldType.canBeNullable`).
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
///
/// Built by the derive with [`StructMeta::new`] and the builder methods after it, so that it
/// can gain fields without breaking anyone.
#[derive(Debug)]
#[non_exhaustive]
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
    /// A struct with no API, no unknown-tagged-fields holder and a stable latest version.
    pub const fn new(
        name: &'static str,
        versions: VersionRange,
        flexible: VersionRange,
        about: &'static str,
        fields: &'static [FieldMeta],
    ) -> Self {
        StructMeta {
            name,
            versions,
            flexible,
            api: None,
            about,
            fields,
            unknown_tagged_field: None,
            latest_version_unstable: false,
        }
    }

    /// The same, as a top-level message of API `key`.
    pub const fn with_api(self, key: i16, kind: ApiKind) -> Self {
        StructMeta {
            api: Some(ApiMeta { key, kind }),
            ..self
        }
    }

    /// The same, with the Rust name of the field that keeps unknown tagged fields.
    pub const fn with_unknown_tagged_field(self, rust_name: &'static str) -> Self {
        StructMeta {
            unknown_tagged_field: Some(rust_name),
            ..self
        }
    }

    /// The same, with the highest version unstable.
    pub const fn with_latest_version_unstable(self) -> Self {
        StructMeta {
            latest_version_unstable: true,
            ..self
        }
    }

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

/// A field's default value, typed: what `#[kafka(default = "…")]` says, or Kafka's implicit
/// default for the type when it says nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum DefaultValue {
    /// Kafka's implicit default: 0, false, the zero uuid, "", empty bytes, an empty array, a
    /// struct of defaults; null for a nullable `records` field.
    Implicit,
    /// `"null"`.
    Null,
    /// A bool.
    Bool(bool),
    /// An integer (int8 to int64, uint16, uint32).
    Int(i64),
    /// A float64.
    Float(f64),
    /// A string.
    Str(&'static str),
    /// A uuid's 16 bytes.
    Uuid([u8; 16]),
}

/// A declared field.
///
/// Built by the derive with [`FieldMeta::new`] and the builder methods after it, so that it
/// can gain fields without breaking anyone.
#[derive(Debug)]
#[non_exhaustive]
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
    /// The default's value.
    pub default_value: DefaultValue,
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
    /// Whether the field's strings must be UTF-8 whatever the decode limits: set by the
    /// derive for a Rust `String` (or `Option<String>`, `Vec<String>`), whose typed `read`
    /// rejects invalid UTF-8, so that the metadata-driven readers reject it too.
    pub utf8_required: bool,
}

impl FieldMeta {
    /// A regular field in `versions`: never null, not tagged, implicit default, not
    /// ignorable, no descriptive attributes.
    pub const fn new(
        rust_name: &'static str,
        name: &'static str,
        ty: KafkaType,
        versions: VersionRange,
        about: &'static str,
    ) -> Self {
        FieldMeta {
            rust_name,
            name,
            ty,
            versions,
            nullable: VersionRange::NONE,
            tag: None,
            tagged: VersionRange::NONE,
            default: None,
            default_value: DefaultValue::Implicit,
            ignorable: false,
            flexible: None,
            about,
            entity_type: None,
            map_key: false,
            zero_copy: false,
            utf8_required: false,
        }
    }

    /// The same, nullable in `versions`.
    pub const fn with_nullable(self, versions: VersionRange) -> Self {
        FieldMeta {
            nullable: versions,
            ..self
        }
    }

    /// The same, tagged with `tag` in `versions`.
    pub const fn with_tag(self, tag: u32, versions: VersionRange) -> Self {
        FieldMeta {
            tag: Some(tag),
            tagged: versions,
            ..self
        }
    }

    /// The same, with a declared default: its text and its value.
    pub const fn with_default(self, text: &'static str, value: DefaultValue) -> Self {
        FieldMeta {
            default: Some(text),
            default_value: value,
            ..self
        }
    }

    /// The same, ignorable.
    pub const fn with_ignorable(self) -> Self {
        FieldMeta {
            ignorable: true,
            ..self
        }
    }

    /// The same, with a field-level flexible versions override.
    pub const fn with_flexible(self, versions: VersionRange) -> Self {
        FieldMeta {
            flexible: Some(versions),
            ..self
        }
    }

    /// The same, with Kafka's `entityType`.
    pub const fn with_entity_type(self, entity_type: &'static str) -> Self {
        FieldMeta {
            entity_type: Some(entity_type),
            ..self
        }
    }

    /// The same, a map key.
    pub const fn with_map_key(self) -> Self {
        FieldMeta {
            map_key: true,
            ..self
        }
    }

    /// The same, zero-copy.
    pub const fn with_zero_copy(self) -> Self {
        FieldMeta {
            zero_copy: true,
            ..self
        }
    }

    /// The same, with its strings required to be UTF-8 when `yes` (see
    /// [`FieldMeta::utf8_required`]).
    pub const fn with_utf8_required(self, yes: bool) -> Self {
        FieldMeta {
            utf8_required: yes,
            ..self
        }
    }

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
