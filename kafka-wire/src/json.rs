//! Kafka-style JSON for derived structs and whole frames (feature `json`).
//!
//! The form follows Apache Kafka's own JSON converters: field names in lowerCamelCase
//! (`transactionalId`, `v3AndBelowTopics`), `bytes` and `records` as standard base64, `uuid`
//! in Kafka's URL-safe base64 text ([`Uuid`]'s `Display`), `null` for null, every integer
//! (int64 included) as a JSON number. Only the fields the version has appear, and of its tagged
//! fields only those that differ from their default, as Kafka writes them. Tagged fields a
//! struct does not declare appear as `"_unknownTaggedFields": [{"tag": N, "data": "<base64>"}]`
//! on that struct (omitted when empty), so bytes → JSON → bytes is lossless.
//!
//! Reading JSON: a missing field takes its default; an unknown key, a value of the wrong
//! shape, or a non-default value in a field the version does not have is an error. A `uuid`
//! is also read in the 8-4-4-4-12 hex form `kwire dump` shows.
//!
//! Conversion goes through the [`crate::dynamic`] codec, so it follows exactly the
//! typed codec's rules.
//!
//! ```
//! use kafka_wire::json::{from_json, to_json};
//! use kafka_wire::RequestHeader;
//!
//! let h = RequestHeader::new(18, 3, 7, None);
//! let j = to_json(&h, 2).unwrap();
//! assert_eq!(j.to_string(), r#"{"requestApiKey":18,"requestApiVersion":3,"correlationId":7,"clientId":null}"#);
//! assert_eq!(from_json::<RequestHeader>(&j, 2).unwrap(), h);
//! ```

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use bytes::Bytes;
use serde_json::{Map, Number, Value as Json};

use crate::dynamic::{self, default_value, Frame, StructValue, Value};
use crate::error::{DecodeError, EncodeError, EncodeErrorKind};
use crate::meta::{ApiKind, KafkaType, StructMeta};
use crate::types::{Str, UnknownTaggedFields, Uuid};
use crate::{KafkaMessage, Version};

/// The key that holds a struct's unknown tagged fields.
pub const UNKNOWN_TAGGED_KEY: &str = "_unknownTaggedFields";

/// Why JSON could not be turned into a value or bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsonError {
    /// The document does not have the shape the schema calls for.
    #[error("{message} at `{path}`")]
    Invalid {
        /// What was wrong.
        message: String,
        /// Where, as `Struct.jsonKey[index].jsonKey`.
        path: String,
    },
    /// The value could not be encoded (for example null where the version is not nullable).
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The encoded bytes did not decode into the typed struct.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

impl JsonError {
    /// The field path of the error, as text.
    pub fn path(&self) -> String {
        match self {
            JsonError::Invalid { path, .. } => path.clone(),
            JsonError::Encode(e) => e.path().to_string(),
            JsonError::Decode(e) => e.path().to_string(),
        }
    }

    /// The error without its path.
    pub fn message(&self) -> String {
        match self {
            JsonError::Invalid { message, .. } => message.clone(),
            JsonError::Encode(e) => e.kind().to_string(),
            JsonError::Decode(e) => e.kind().to_string(),
        }
    }
}

/// A shape error on its way up: the path is collected innermost first.
struct Shape {
    message: String,
    rev: Vec<String>,
}

impl Shape {
    fn new(message: impl Into<String>) -> Self {
        Shape {
            message: message.into(),
            rev: Vec::new(),
        }
    }

    fn at(mut self, seg: String) -> Self {
        self.rev.push(seg);
        self
    }

    fn into_error(self, root: &str) -> JsonError {
        let mut path = root.to_owned();
        for seg in self.rev.iter().rev() {
            if !seg.starts_with('[') {
                path.push('.');
            }
            path.push_str(seg);
        }
        JsonError::Invalid {
            message: self.message,
            path,
        }
    }
}

/// A Kafka field name in lowerCamelCase, as Kafka's JSON converters write it.
pub fn json_name(kafka_name: &str) -> String {
    let mut c = kafka_name.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

// ---- to JSON ------------------------------------------------------------------------------

/// A typed value as JSON at `version` (encoded, then read back by the dynamic codec, so
/// exactly what is on the wire appears).
pub fn to_json<M: KafkaMessage>(m: &M, version: Version) -> Result<Json, EncodeError> {
    let bytes = Bytes::from(m.encode_to_vec(version)?);
    let v = dynamic::decode(M::META, &bytes, version).map_err(|_| {
        EncodeError::new(EncodeErrorKind::InvalidValue(
            "the encoded bytes did not decode back (a bug in a Field implementation)",
        ))
    })?;
    Ok(struct_to_json(&v, version))
}

/// A typed value from JSON at `version` (through the bytes the JSON encodes to).
pub fn from_json<M: KafkaMessage>(json: &Json, version: Version) -> Result<M, JsonError> {
    let v = struct_from_json(M::META, json, version)?;
    let bytes = Bytes::from(dynamic::encode(&v, version)?);
    Ok(M::decode_exact(&bytes, version)?)
}

/// A dynamic struct as a JSON object: the fields `version` has (a tagged field only when it
/// holds something other than its default, as Kafka's converters write it), then unknown
/// tagged fields.
pub fn struct_to_json(s: &StructValue, version: Version) -> Json {
    let mut obj = Map::new();
    for (f, v) in s.meta.fields.iter().zip(&s.fields) {
        if f.versions.contains(version) && !(f.tagged.contains(version) && *v == default_value(f)) {
            obj.insert(json_name(f.name), value_to_json(v, version));
        }
    }
    if !s.unknown.is_empty() {
        let list = s
            .unknown
            .iter()
            .map(|raw| {
                let mut o = Map::new();
                o.insert("tag".to_owned(), Json::from(raw.tag));
                o.insert("data".to_owned(), Json::from(B64.encode(&raw.data)));
                Json::Object(o)
            })
            .collect();
        obj.insert(UNKNOWN_TAGGED_KEY.to_owned(), Json::Array(list));
    }
    Json::Object(obj)
}

/// One dynamic value as JSON.
pub fn value_to_json(v: &Value, version: Version) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int8(n) => Json::from(*n),
        Value::Int16(n) => Json::from(*n),
        Value::Uint16(n) => Json::from(*n),
        Value::Int32(n) => Json::from(*n),
        Value::Uint32(n) => Json::from(*n),
        Value::Int64(n) => Json::from(*n),
        // JSON has no NaN or infinities: Jackson's names for them, as strings.
        Value::Float64(n) => match Number::from_f64(*n) {
            Some(x) => Json::Number(x),
            None if n.is_nan() => Json::from("NaN"),
            None if *n > 0.0 => Json::from("Infinity"),
            None => Json::from("-Infinity"),
        },
        Value::String(s) => Json::from(s.to_string_lossy().into_owned()),
        Value::Bytes(b) | Value::Records(b) => Json::from(B64.encode(b)),
        Value::Uuid(u) => Json::from(u.to_string()),
        Value::Array(a) => Json::Array(a.iter().map(|x| value_to_json(x, version)).collect()),
        Value::Struct(s) => struct_to_json(s, version),
    }
}

// ---- from JSON ----------------------------------------------------------------------------

/// A dynamic struct from a JSON object at `version`.
pub fn struct_from_json(
    meta: &'static StructMeta,
    json: &Json,
    version: Version,
) -> Result<StructValue, JsonError> {
    read_struct(meta, json, version).map_err(|e| e.into_error(meta.name))
}

fn kind_of(j: &Json) -> &'static str {
    match j {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

fn expected(what: &str, got: &Json) -> Shape {
    Shape::new(format!("expected {what}, got {}", kind_of(got)))
}

fn read_struct(
    meta: &'static StructMeta,
    json: &Json,
    version: Version,
) -> Result<StructValue, Shape> {
    let Json::Object(obj) = json else {
        return Err(expected(&format!("an object ({})", meta.name), json));
    };
    let mut out = StructValue::default_of(meta);
    for (key, j) in obj {
        if key == UNKNOWN_TAGGED_KEY {
            out.unknown = read_unknown(j).map_err(|e| e.at(key.clone()))?;
            continue;
        }
        let Some((i, f)) = meta
            .fields
            .iter()
            .enumerate()
            .find(|(_, f)| json_name(f.name) == *key)
        else {
            return Err(Shape::new(format!(
                "unknown field `{key}` in {}",
                meta.name
            )));
        };
        let v = read_value(&f.ty, j, version).map_err(|e| e.at(key.clone()))?;
        if !f.versions.contains(version) && v != default_value(f) {
            return Err(Shape::new(format!(
                "field `{key}` is not in version {version} of {} (only in {})",
                meta.name, f.versions
            ))
            .at(key.clone()));
        }
        if let Some(slot) = out.fields.get_mut(i) {
            *slot = v;
        }
    }
    Ok(out)
}

fn read_unknown(j: &Json) -> Result<UnknownTaggedFields, Shape> {
    let Json::Array(items) = j else {
        return Err(expected("an array of {\"tag\", \"data\"}", j));
    };
    let mut out = UnknownTaggedFields::new();
    for (i, item) in items.iter().enumerate() {
        let at = |e: Shape| e.at(format!("[{i}]"));
        let Json::Object(o) = item else {
            return Err(at(expected("an object {\"tag\", \"data\"}", item)));
        };
        if let Some(k) = o.keys().find(|k| *k != "tag" && *k != "data") {
            return Err(at(Shape::new(format!(
                "unknown key `{k}` in an unknown tagged field"
            ))));
        }
        let tag = o
            .get("tag")
            .and_then(Json::as_u64)
            .and_then(|t| u32::try_from(t).ok())
            .ok_or_else(|| at(Shape::new("`tag` must be an integer in 0..=4294967295")))?;
        let data = match o.get("data") {
            Some(Json::String(s)) => B64
                .decode(s)
                .map_err(|e| at(Shape::new(format!("`data` is not base64: {e}"))))?,
            _ => return Err(at(Shape::new("`data` must be a base64 string"))),
        };
        out.push(tag, data);
    }
    Ok(out)
}

fn int<T: TryFrom<i64> + TryFrom<u64>>(j: &Json, ty: &KafkaType) -> Result<T, Shape> {
    let bad = || Shape::new(format!("expected an integer in the range of {ty}, got {j}"));
    match j {
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => T::try_from(i).map_err(|_| bad()),
            (None, Some(u)) => T::try_from(u).map_err(|_| bad()),
            _ => Err(bad()),
        },
        _ => Err(expected(&format!("an integer ({ty})"), j)),
    }
}

fn base64_of(j: &Json, ty: &KafkaType) -> Result<Bytes, Shape> {
    match j {
        Json::String(s) => B64
            .decode(s)
            .map(Bytes::from)
            .map_err(|e| Shape::new(format!("{ty} must be base64: {e}"))),
        _ => Err(expected(&format!("a base64 string ({ty})"), j)),
    }
}

fn read_value(ty: &KafkaType, j: &Json, version: Version) -> Result<Value, Shape> {
    if j.is_null() {
        // Whether null is allowed at this version is the encoder's rule (NullNotAllowed).
        return if ty.can_be_nullable() {
            Ok(Value::Null)
        } else {
            Err(Shape::new(format!("null is not a valid {ty}")))
        };
    }
    Ok(match ty {
        KafkaType::Bool => Value::Bool(j.as_bool().ok_or_else(|| expected("a boolean", j))?),
        KafkaType::Int8 => Value::Int8(int(j, ty)?),
        KafkaType::Int16 => Value::Int16(int(j, ty)?),
        KafkaType::Uint16 => Value::Uint16(int(j, ty)?),
        KafkaType::Int32 => Value::Int32(int(j, ty)?),
        KafkaType::Uint32 => Value::Uint32(int(j, ty)?),
        KafkaType::Int64 => Value::Int64(int(j, ty)?),
        KafkaType::Float64 => Value::Float64(match j {
            Json::Number(n) => n.as_f64().ok_or_else(|| expected("a number", j))?,
            Json::String(s) if s == "NaN" => f64::NAN,
            Json::String(s) if s == "Infinity" => f64::INFINITY,
            Json::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
            _ => return Err(expected("a number (float64)", j)),
        }),
        KafkaType::String => match j {
            Json::String(s) => Value::String(Str::from(s.clone())),
            _ => return Err(expected("a string", j)),
        },
        KafkaType::Bytes => Value::Bytes(base64_of(j, ty)?),
        KafkaType::Records => Value::Records(base64_of(j, ty)?),
        KafkaType::Uuid => match j {
            Json::String(s) => Value::Uuid(
                s.parse::<Uuid>()
                    .ok()
                    .or_else(|| uuid_from_hex(s))
                    .ok_or_else(|| {
                        Shape::new(format!(
                            "invalid uuid {s:?}: expected Kafka's 22-character base64 or 8-4-4-4-12 hex"
                        ))
                    })?,
            ),
            _ => return Err(expected("a uuid string", j)),
        },
        KafkaType::Array(t) => match j {
            Json::Array(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| read_value(t, x, version).map_err(|e| e.at(format!("[{i}]"))))
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(expected(&format!("an array ({ty})"), j)),
        },
        KafkaType::Struct(m) => Value::Struct(read_struct(m(), j, version)?),
    })
}

// ---- frames -------------------------------------------------------------------------------

/// The API name of a top-level message: its struct name without `Request`/`Response`.
pub fn api_name(body: &StructMeta) -> &'static str {
    let n = body.name;
    n.strip_suffix("Request")
        .or_else(|| n.strip_suffix("Response"))
        .unwrap_or(n)
}

/// A frame as one JSON document:
/// `{"kind": "request", "apiKey": 24, "apiName": "AddPartitionsToTxn", "apiVersion": 5,
/// "header": {…}, "body": {…}}`.
pub fn frame_to_json(f: &Frame) -> Json {
    let hv = dynamic::header_version(f.body.meta, f.kind, f.api_key, f.api_version);
    let mut o = Map::new();
    o.insert(
        "kind".to_owned(),
        Json::from(match f.kind {
            ApiKind::Request => "request",
            ApiKind::Response => "response",
        }),
    );
    o.insert("apiKey".to_owned(), Json::from(f.api_key));
    o.insert("apiName".to_owned(), Json::from(api_name(f.body.meta)));
    o.insert("apiVersion".to_owned(), Json::from(f.api_version));
    o.insert("header".to_owned(), struct_to_json(&f.header, hv));
    o.insert("body".to_owned(), struct_to_json(&f.body, f.api_version));
    Json::Object(o)
}

/// A frame from the JSON document [`frame_to_json`] writes. `lookup` gives the body's
/// metadata for an API key and kind. A request header's `requestApiKey` and
/// `requestApiVersion` may be left out (they are taken from `apiKey` and `apiVersion`);
/// `apiName`, when given, must match.
pub fn frame_from_json(
    json: &Json,
    lookup: impl FnOnce(i16, ApiKind) -> Option<&'static StructMeta>,
) -> Result<Frame, JsonError> {
    let bad = |message: String, path: &str| JsonError::Invalid {
        message,
        path: path.to_owned(),
    };
    let Json::Object(o) = json else {
        return Err(bad(
            format!("expected a JSON object, got {}", kind_of(json)),
            "$",
        ));
    };
    if let Some(k) = o.keys().find(|k| {
        !matches!(
            k.as_str(),
            "kind" | "apiKey" | "apiName" | "apiVersion" | "header" | "body"
        )
    }) {
        return Err(bad(format!("unknown key `{k}`"), "$"));
    }
    let kind = match o.get("kind").and_then(Json::as_str) {
        Some("request") => ApiKind::Request,
        Some("response") => ApiKind::Response,
        _ => {
            return Err(bad(
                "`kind` must be \"request\" or \"response\"".to_owned(),
                "$.kind",
            ))
        }
    };
    let api_key = o
        .get("apiKey")
        .and_then(Json::as_i64)
        .and_then(|k| i16::try_from(k).ok())
        .ok_or_else(|| bad("`apiKey` must be an int16".to_owned(), "$.apiKey"))?;
    let api_version = o
        .get("apiVersion")
        .and_then(Json::as_i64)
        .and_then(|k| i16::try_from(k).ok())
        .ok_or_else(|| bad("`apiVersion` must be an int16".to_owned(), "$.apiVersion"))?;
    let meta = lookup(api_key, kind)
        .ok_or_else(|| bad(format!("unknown api key {api_key}"), "$.apiKey"))?;
    if let Some(n) = o.get("apiName") {
        if n.as_str() != Some(api_name(meta)) {
            return Err(bad(
                format!(
                    "`apiName` {n} does not match api key {api_key} ({})",
                    api_name(meta)
                ),
                "$.apiName",
            ));
        }
    }
    if !meta.versions.contains(api_version) {
        return Err(bad(
            format!(
                "unsupported version {api_version} of {} (valid: {})",
                meta.name, meta.versions
            ),
            "$.apiVersion",
        ));
    }
    let hv = dynamic::header_version(meta, kind, api_key, api_version);
    let hmeta = dynamic::header_meta(kind);
    let empty = Json::Object(Map::new());
    let mut header = struct_from_json(hmeta, o.get("header").unwrap_or(&empty), hv)
        .map_err(|e| prefix(e, "header"))?;
    if kind == ApiKind::Request {
        let hj = o.get("header").and_then(Json::as_object);
        for (rust, key, want) in [
            ("request_api_key", "requestApiKey", api_key),
            ("request_api_version", "requestApiVersion", api_version),
        ] {
            let given = hj.is_some_and(|h| h.contains_key(key));
            if let Some(slot) = header.get_rust_mut(rust) {
                if !given {
                    *slot = Value::Int16(want);
                } else if *slot != Value::Int16(want) {
                    return Err(bad(
                        format!("`{key}` does not match the document's api key / version"),
                        &format!("header.{key}"),
                    ));
                }
            }
        }
    }
    let body = struct_from_json(meta, o.get("body").unwrap_or(&empty), api_version)
        .map_err(|e| prefix(e, "body"))?;
    Ok(Frame {
        kind,
        api_key,
        api_version,
        header,
        body,
    })
}

fn prefix(e: JsonError, part: &str) -> JsonError {
    match e {
        JsonError::Invalid { message, path } => JsonError::Invalid {
            message,
            path: format!("{part}.{path}"),
        },
        other => other,
    }
}

/// A UUID in 8-4-4-4-12 hex (`kwire dump`'s form), or `None`.
fn uuid_from_hex(s: &str) -> Option<Uuid> {
    let groups: Vec<&str> = s.split('-').collect();
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    if lens != [8, 4, 4, 4, 12]
        || !groups
            .iter()
            .all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return None;
    }
    u128::from_str_radix(&groups.concat(), 16)
        .ok()
        .map(Uuid::from_u128)
}
