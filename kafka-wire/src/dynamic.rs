//! A codec driven by the static metadata of derived structs ([`StructMeta`]) instead of by
//! their Rust types (feature `json`).
//!
//! It reads and writes the same bytes as the typed codec, by the same rules (versions,
//! mandatory and tagged fields, nullability, field-level flexible overrides, compact or
//! classic prefixes, tagged sections with known tags first then unknown ones), and fails with
//! the same errors at the same offsets and field paths. On top of that it can record what it
//! read as a tree of [`Node`]s (names, types, values, byte offsets and sizes), which is what
//! `kwire dump` prints, and it can build the "smallest legal instance" of any struct.
//!
//! ```
//! use kafka_wire::dynamic::{self, StructValue};
//! use kafka_wire::{KafkaMessage, RequestHeader};
//!
//! let h = RequestHeader::new(18, 3, 7, Some("me".into()));
//! let bytes = h.encode_to_vec(2).unwrap();
//! let v = dynamic::decode(RequestHeader::META, &bytes.clone().into(), 2).unwrap();
//! assert_eq!(dynamic::encode(&v, 2).unwrap(), bytes);
//! assert_eq!(StructValue::sample(RequestHeader::META, 2).fields.len(), 4);
//! ```

use core::fmt;

use bytes::Bytes;

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::field::{field_cx, put_array_prefix, read_array_prefix, Cx, Field};
use crate::frame::{ApiSet, DecodeOptions, DecodedFrame};
use crate::header::{RequestHeader, ResponseHeader};
use crate::message::{request_header_version, response_header_version, KafkaMessage};
use crate::meta::{ApiKind, DefaultValue, FieldMeta, KafkaType, StructMeta};
use crate::rules::nullable::{put_struct_marker, read_struct_marker};
use crate::rules::skip::skip_struct;
use crate::rules::tagged::{
    put_section_start, put_tagged_header, read_section, tag_not_valid, tagged_cx, Entries, RawTags,
    TagField,
};
use crate::rules::version::{absent_field, check_read_version, check_write_version};
use crate::types::{Records, Str, UnknownTaggedFields, Uuid};
use crate::{Reader, Version};

mod json_writer;
pub use json_writer::{write_frame_json, write_json, RecordsJson, WriteJsonError};

/// The Rust name of the field that holds a struct's unknown tagged fields, as error paths
/// name it (the derive does not record it; every struct in this workspace uses this name).
/// The Rust name of the struct's unknown-tagged-fields holder, for error paths.
fn unknown_name(meta: &StructMeta) -> &'static str {
    meta.unknown_tagged_field.unwrap_or("unknown_tagged_fields")
}

/// One value of a Kafka type, as the dynamic codec holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Null (a nullable string, bytes, records, array or struct).
    Null,
    /// `bool`
    Bool(bool),
    /// `int8`
    Int8(i8),
    /// `int16`
    Int16(i16),
    /// `uint16`
    Uint16(u16),
    /// `int32`
    Int32(i32),
    /// `uint32`
    Uint32(u32),
    /// `int64`
    Int64(i64),
    /// `float64`
    Float64(f64),
    /// `string`
    String(Str),
    /// `bytes`
    Bytes(Bytes),
    /// `uuid`
    Uuid(Uuid),
    /// `records`, as raw bytes.
    Records(Bytes),
    /// `[]T`
    Array(Vec<Value>),
    /// A struct.
    Struct(StructValue),
}

/// A struct value: one [`Value`] per declared field (in [`StructMeta::fields`] order, fields
/// absent at the version included with their defaults, like the typed struct), plus the
/// tagged fields the struct does not declare.
#[derive(Clone)]
pub struct StructValue {
    /// The struct's description.
    pub meta: &'static StructMeta,
    /// One value per entry of `meta.fields`.
    pub fields: Vec<Value>,
    /// Tagged fields the struct does not declare, kept for re-encoding.
    pub unknown: UnknownTaggedFields,
}

impl PartialEq for StructValue {
    fn eq(&self, other: &Self) -> bool {
        // Names identify structs within a message (as `KafkaType`'s equality assumes).
        self.meta.name == other.meta.name
            && self.fields == other.fields
            && self.unknown == other.unknown
    }
}

impl fmt::Debug for StructValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct(self.meta.name);
        for (m, v) in self.meta.fields.iter().zip(&self.fields) {
            d.field(m.rust_name, v);
        }
        if !self.unknown.is_empty() {
            d.field(unknown_name(self.meta), &self.unknown);
        }
        d.finish()
    }
}

impl StructValue {
    /// The struct with every field at its default, as `Default::default()` of the typed struct.
    pub fn default_of(meta: &'static StructMeta) -> Self {
        StructValue {
            meta,
            fields: meta.fields.iter().map(default_value).collect(),
            unknown: UnknownTaggedFields::new(),
        }
    }

    /// The smallest legal instance at `version`: numbers zero, strings and bytes empty (not
    /// null), every array with exactly one element, records one empty RecordBatch v2.
    ///
    /// Fields the version does not have, and tagged fields, keep their defaults (so nothing
    /// is written for them).
    pub fn sample(meta: &'static StructMeta, version: Version) -> Self {
        StructValue {
            meta,
            fields: meta
                .fields
                .iter()
                .map(|f| {
                    if f.mandatory().contains(version) {
                        sample_value(&f.ty, version)
                    } else {
                        default_value(f)
                    }
                })
                .collect(),
            unknown: UnknownTaggedFields::new(),
        }
    }

    /// The value of the field with Kafka name `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        let i = self.meta.fields.iter().position(|f| f.name == name)?;
        self.fields.get(i)
    }

    /// Mutable access to the value of the field with Rust name `name`.
    pub fn get_rust_mut(&mut self, name: &str) -> Option<&mut Value> {
        let i = self.meta.fields.iter().position(|f| f.rust_name == name)?;
        self.fields.get_mut(i)
    }

    /// Mutable access to the value of the field with Kafka name `name`.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        let i = self.meta.fields.iter().position(|f| f.name == name)?;
        self.fields.get_mut(i)
    }
}

/// The value a type takes when nothing is declared (ARCHITECTURE.md, *Defaults*), never null.
fn implicit_default(ty: &KafkaType) -> Value {
    match ty {
        KafkaType::Bool => Value::Bool(false),
        KafkaType::Int8 => Value::Int8(0),
        KafkaType::Int16 => Value::Int16(0),
        KafkaType::Uint16 => Value::Uint16(0),
        KafkaType::Int32 => Value::Int32(0),
        KafkaType::Uint32 => Value::Uint32(0),
        KafkaType::Int64 => Value::Int64(0),
        KafkaType::Float64 => Value::Float64(0.0),
        KafkaType::String => Value::String(Str::new()),
        KafkaType::Bytes => Value::Bytes(Bytes::new()),
        KafkaType::Uuid => Value::Uuid(Uuid::ZERO),
        KafkaType::Records => Value::Records(Bytes::new()),
        KafkaType::Array(_) => Value::Array(Vec::new()),
        KafkaType::Struct(m) => Value::Struct(StructValue::default_of(m())),
    }
}

/// A field's default, exactly as the derive computes it: from the typed default the
/// derive recorded in the metadata ([`DefaultValue`]), null for a nullable records field
/// without one, otherwise the type's implicit default.
pub fn default_value(f: &FieldMeta) -> Value {
    let nullable = !f.nullable.is_empty();
    let v = match (f.default_value, &f.ty) {
        (DefaultValue::Null, _) => Some(Value::Null),
        (DefaultValue::Implicit, KafkaType::Records) if nullable => Some(Value::Null),
        (DefaultValue::Implicit, t) => Some(implicit_default(t)),
        (DefaultValue::Bool(b), _) => Some(Value::Bool(b)),
        (DefaultValue::Int(i), KafkaType::Int8) => i.try_into().ok().map(Value::Int8),
        (DefaultValue::Int(i), KafkaType::Int16) => i.try_into().ok().map(Value::Int16),
        (DefaultValue::Int(i), KafkaType::Uint16) => i.try_into().ok().map(Value::Uint16),
        (DefaultValue::Int(i), KafkaType::Int32) => i.try_into().ok().map(Value::Int32),
        (DefaultValue::Int(i), KafkaType::Uint32) => i.try_into().ok().map(Value::Uint32),
        (DefaultValue::Int(i), KafkaType::Int64) => Some(Value::Int64(i)),
        (DefaultValue::Float(x), _) => Some(Value::Float64(x)),
        (DefaultValue::Str(t), _) => Some(Value::String(Str::from(t))),
        (DefaultValue::Uuid(b), _) => Some(Value::Uuid(Uuid::from_bytes(b))),
        // The derive only records a value of the field's type.
        _ => None,
    };
    v.unwrap_or_else(|| implicit_default(&f.ty))
}

/// The smallest legal value of a type at `version` (see [`StructValue::sample`]).
fn sample_value(ty: &KafkaType, version: Version) -> Value {
    match ty {
        KafkaType::Records => Value::Records(Bytes::from(empty_record_batch())),
        KafkaType::Array(t) => Value::Array(vec![sample_value(t, version)]),
        KafkaType::Struct(m) => Value::Struct(StructValue::sample(m(), version)),
        t => implicit_default(t),
    }
}

/// One empty RecordBatch v2 (61 bytes): every number zero, magic 2, no record, its CRC-32C
/// computed, as Java's `DefaultRecordBatch.writeEmptyHeader` writes one (a plain build makes
/// no batch without a record, as Java's builder does not; a header-driven one does).
pub fn empty_record_batch() -> Vec<u8> {
    let header = crate::records::BatchHeader {
        base_offset: 0,
        batch_length: 0,
        partition_leader_epoch: 0,
        magic: 2,
        crc: 0,
        attributes: 0,
        last_offset_delta: 0,
        base_timestamp: 0,
        max_timestamp: 0,
        producer_id: 0,
        producer_epoch: 0,
        base_sequence: 0,
        record_count: 0,
    };
    // Only an invalid header or a codec left out fails a build, and this is neither.
    crate::records::BatchBuilder::from_header(&header)
        .build_vec()
        .unwrap_or_default()
}

// ---- trace --------------------------------------------------------------------------------

/// One node of a decoded object tree: a frame part, a struct, a field, a length prefix or a
/// tagged-field count.
#[derive(Debug, Clone, Default)]
pub struct Node {
    /// What it is: a field's Kafka name, `length`, `tagged_fields`, `Topic[0]`…
    pub name: String,
    /// Its type (`int32`, `[]Topic`, `uvarint`, `struct`…), empty for a frame part.
    pub ty: String,
    /// Its value as text (`0`, `"" (compact, len+1=1)`, `1 element`), empty when none.
    pub value: String,
    /// Offset of its first byte in the decoded buffer.
    pub offset: usize,
    /// Its size in bytes.
    pub size: usize,
    /// The field's description (its doc comment), or what a structural node is.
    pub about: String,
    /// The declared field this node shows, if any.
    pub field: Option<&'static FieldMeta>,
    /// Why decoding stopped here, on the innermost node being read when it failed.
    pub error: Option<String>,
    /// Its parts, in wire order.
    pub children: Vec<Node>,
}

impl Node {
    /// A node with a name, type and offset; the rest empty.
    pub fn new(name: impl Into<String>, ty: impl Into<String>, offset: usize) -> Self {
        Node {
            name: name.into(),
            ty: ty.into(),
            offset,
            ..Node::default()
        }
    }
}

/// Records the nodes a decode reads; after a failure it still holds every node read so far,
/// with the error on the node that failed.
#[derive(Debug, Default)]
pub struct Trace {
    // Open nodes, outermost first; closed nodes are moved into their parent's children.
    stack: Vec<Node>,
    roots: Vec<Node>,
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Self {
        Trace::default()
    }

    /// Opens a node: what is read next, until [`close`](Self::close), is part of it.
    pub fn open(&mut self, node: Node) {
        self.stack.push(node);
    }

    /// Mutable access to the innermost open node.
    pub fn top(&mut self) -> Option<&mut Node> {
        self.stack.last_mut()
    }

    /// Closes the innermost open node, which ends at byte `end`.
    pub fn close(&mut self, end: usize) {
        if let Some(mut n) = self.stack.pop() {
            n.size = end.saturating_sub(n.offset);
            self.push_closed(n);
        }
    }

    fn push_closed(&mut self, n: Node) {
        match self.stack.last_mut() {
            Some(p) => p.children.push(n),
            None => self.roots.push(n),
        }
    }

    /// After a failure at byte `end`: puts `error` on the innermost open node and closes
    /// every open node.
    pub fn fail(&mut self, end: usize, error: String) {
        if let Some(n) = self.stack.last_mut() {
            n.error = Some(error);
        }
        while !self.stack.is_empty() {
            self.close(end);
        }
    }

    /// The closed top-level nodes.
    pub fn into_roots(mut self) -> Vec<Node> {
        while !self.stack.is_empty() {
            let end = self.stack.last().map_or(0, |n| n.offset);
            self.close(end);
        }
        self.roots
    }
}

/// Where a decode reports the nodes it reads, in wire order: a [`Trace`] keeps them as a
/// tree; a streaming sink (such as `kwire dump`'s printer) can write each one out and
/// forget it, so memory stays proportional to the nesting depth, not to the input.
///
/// Events nest: every [`open`](Sink::open) is matched by one [`close`](Sink::close), or by
/// the final [`fail`](Sink::fail), which closes every node still open.
pub trait Sink {
    /// Opens a node: what is read next, until `close`, is part of it.
    fn open(&mut self, node: Node);

    /// Mutable access to the innermost open node (the decoder fills in its value, or renames
    /// it once it knows more).
    fn top(&mut self) -> Option<&mut Node>;

    /// Closes the innermost open node, which ends at byte `end`.
    fn close(&mut self, end: usize);

    /// After a failure at byte `end`: puts `error` on the innermost open node and closes
    /// every open node.
    fn fail(&mut self, end: usize, error: String);

    /// A `records` value was read: `data` (the bytes after the length prefix) starts at byte
    /// `at`. The innermost open node is the records field, with its value already set; a
    /// sink may open and close child nodes under it here (the batches). Does nothing by
    /// default.
    fn records(&mut self, at: usize, data: &Bytes) {
        let _ = (at, data);
    }
}

impl Sink for Trace {
    fn open(&mut self, node: Node) {
        Trace::open(self, node);
    }
    fn top(&mut self) -> Option<&mut Node> {
        Trace::top(self)
    }
    fn close(&mut self, end: usize) {
        Trace::close(self, end);
    }
    fn fail(&mut self, end: usize, error: String) {
        Trace::fail(self, end, error);
    }
}

/// Formats a UUID as the object trees show it: 32 hex digits in 8-4-4-4-12 groups.
fn uuid_hex(u: &Uuid) -> String {
    let h: String = u.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        h.get(0..8).unwrap_or_default(),
        h.get(8..12).unwrap_or_default(),
        h.get(12..16).unwrap_or_default(),
        h.get(16..20).unwrap_or_default(),
        h.get(20..32).unwrap_or_default()
    )
}

fn prefix_note(len: Option<usize>, cx: Cx, classic_kind: &str) -> String {
    match (cx.compact, len) {
        (true, Some(n)) => format!("(compact, len+1={})", n + 1),
        (true, None) => "(compact, 0)".to_owned(),
        (false, Some(n)) => format!("({classic_kind} len={n})"),
        (false, None) => format!("({classic_kind} len=-1)"),
    }
}

fn bytes_text(b: &[u8]) -> String {
    const MAX: usize = 32;
    let hex: String = b.iter().take(MAX).map(|x| format!("{x:02x}")).collect();
    if b.len() > MAX {
        format!("0x{hex}… ({} bytes)", b.len())
    } else {
        format!("0x{hex}")
    }
}

/// The text a leaf value shows in a tree (`0`, `"abc" (compact, len+1=4)`, `null`).
fn value_text(v: &Value, cx: Cx) -> String {
    match v {
        Value::Null => match cx.compact {
            true => "null (compact, 0)".to_owned(),
            false => "null".to_owned(),
        },
        Value::Bool(b) => b.to_string(),
        Value::Int8(n) => n.to_string(),
        Value::Int16(n) => n.to_string(),
        Value::Uint16(n) => n.to_string(),
        Value::Int32(n) => n.to_string(),
        Value::Uint32(n) => n.to_string(),
        Value::Int64(n) => n.to_string(),
        Value::Float64(n) => n.to_string(),
        Value::String(s) => format!("{s:?} {}", prefix_note(Some(s.len()), cx, "int16")),
        Value::Bytes(b) | Value::Records(b) => {
            format!(
                "{} {}",
                bytes_text(b),
                prefix_note(Some(b.len()), cx, "int32")
            )
        }
        Value::Uuid(u) => uuid_hex(u),
        Value::Array(a) => match a.len() {
            1 => "1 element".to_owned(),
            n => format!("{n} elements"),
        },
        Value::Struct(_) => "struct".to_owned(),
    }
}

// ---- decode -------------------------------------------------------------------------------

/// Decodes a struct at `version` from the whole of `buf` (bytes left over are an error), as
/// [`KafkaMessage::decode_exact`] does.
pub fn decode(
    meta: &'static StructMeta,
    buf: &Bytes,
    version: Version,
) -> Result<StructValue, DecodeError> {
    let mut r = Reader::new(buf);
    let v = decode_from(meta, &mut r, version, None)?;
    if !r.is_empty() {
        return Err(r.error(DecodeErrorKind::TrailingBytes(r.remaining())));
    }
    Ok(v)
}

/// Decodes a struct at `version` from the reader's position, as [`KafkaMessage::decode`]
/// does, recording nodes into `trace` if given (the struct's fields become children of the
/// trace's innermost open node).
pub fn decode_from(
    meta: &'static StructMeta,
    r: &mut Reader<'_>,
    version: Version,
    trace: Option<&mut Trace>,
) -> Result<StructValue, DecodeError> {
    decode_with(meta, r, version, trace.map(|t| t as &mut dyn Sink), true)
}

/// Walks a struct at `version` from the reader's position with every check of
/// [`decode_from`], reporting each node to `sink` (if given) but keeping no value: memory
/// stays proportional to the nesting depth however many elements the input holds. This is
/// how `kwire` validates and prints inputs of any size.
pub fn walk_from(
    meta: &'static StructMeta,
    r: &mut Reader<'_>,
    version: Version,
    sink: Option<&mut dyn Sink>,
) -> Result<(), DecodeError> {
    decode_with(meta, r, version, sink, false).map(drop)
}

/// [`decode_from`] with any sink; `keep` false keeps no array element (see [`walk_from`]).
fn decode_with(
    meta: &'static StructMeta,
    r: &mut Reader<'_>,
    version: Version,
    trace: Option<&mut dyn Sink>,
    keep: bool,
) -> Result<StructValue, DecodeError> {
    if !keep && trace.is_none() {
        // Nothing kept and nothing reported: the one skipping reader, which builds no value
        // and fails as the full reading does. Its callers use only the result's `meta`.
        return match skip_struct(meta, r, Cx::new(version)) {
            Ok(()) => Ok(StructValue {
                meta,
                fields: Vec::new(),
                unknown: UnknownTaggedFields::new(),
            }),
            Err(e) => Err(e.in_root(meta.name)),
        };
    }
    let mut d = Dec {
        r,
        trace,
        keep,
        last_len: 0,
    };
    let res = d.read_struct(meta, Cx::new(version));
    match res {
        Ok(v) => Ok(v),
        Err(e) => {
            let end = d.r.position();
            if let Some(t) = d.trace.as_deref_mut() {
                t.fail(end, e.to_string());
            }
            Err(e.in_root(meta.name))
        }
    }
}

struct Dec<'r, 'a, 't> {
    r: &'r mut Reader<'a>,
    trace: Option<&'t mut dyn Sink>,
    /// Whether arrays keep their elements; when false, a non-empty array reads as
    /// [`walked_array`] and `last_len` holds its length.
    keep: bool,
    /// The element count of the array read last (for its node's text when not kept).
    last_len: usize,
}

/// A shorter borrow of an optional sink (the trait object's lifetime shrinks with it).
fn reborrow<'s>(t: &'s mut Option<&mut dyn Sink>) -> Option<&'s mut dyn Sink> {
    match t {
        Some(t) => Some(&mut **t),
        None => None,
    }
}

/// What a non-empty array reads as when elements are not kept: a placeholder unequal to
/// the array's default (an empty array or null), so the struct holding it is not mistaken
/// for a default one.
fn walked_array() -> Value {
    Value::Array(vec![Value::Null])
}

fn elements_text(n: usize) -> String {
    match n {
        1 => "1 element".to_owned(),
        n => format!("{n} elements"),
    }
}

impl Dec<'_, '_, '_> {
    /// The text of a value just read (see [`value_text`]); an array not kept shows its count.
    fn text(&self, v: &Value, cx: Cx) -> String {
        match v {
            Value::Array(_) if !self.keep => elements_text(self.last_len),
            v => value_text(v, cx),
        }
    }

    fn open(&mut self, node: impl FnOnce() -> Node) {
        if let Some(t) = self.trace.as_deref_mut() {
            t.open(node());
        }
    }

    fn close(&mut self, value: impl FnOnce() -> String) {
        let end = self.r.position();
        if let Some(t) = self.trace.as_deref_mut() {
            if let Some(n) = t.top() {
                if n.value.is_empty() {
                    n.value = value();
                }
            }
            t.close(end);
        }
    }

    fn read_struct(
        &mut self,
        meta: &'static StructMeta,
        cx: Cx,
    ) -> Result<StructValue, DecodeError> {
        let v = cx.version;
        check_read_version(meta.name, meta.versions, v, self.r)?;
        let flex = meta.flexible.contains(v);
        let mut out = StructValue::default_of(meta);
        for (f, slot) in meta.fields.iter().zip(out.fields.iter_mut()) {
            if !f.mandatory().contains(v) {
                continue;
            }
            let fcx = field_cx(meta, f, v);
            let at = self.r.position();
            self.open(|| field_node(f, at));
            let val = self
                .read_value(&f.ty, fcx, f.utf8_required)
                .map_err(|e| e.in_field(f.rust_name))?;
            let text = self.trace.is_some().then(|| self.text(&val, fcx));
            self.close(|| text.unwrap_or_default());
            *slot = val;
        }
        if flex {
            self.read_tagged(meta, &mut out, v)?;
        }
        Ok(out)
    }

    /// The tagged section, read by the same rule as the generated code's
    /// (`rules::tagged::read_section`); only what happens to each entry differs.
    fn read_tagged(
        &mut self,
        meta: &'static StructMeta,
        out: &mut StructValue,
        v: Version,
    ) -> Result<(), DecodeError> {
        let mut e = DynEntries {
            trace: reborrow(&mut self.trace),
            meta,
            out,
            v,
            payload_at: 0,
            keep: self.keep,
        };
        read_section(self.r, &mut e)
    }

    /// One value of type `ty`; its strings must be UTF-8 when `utf8` (the field is a Rust
    /// `String`, see [`FieldMeta::utf8_required`]).
    fn read_value(&mut self, ty: &KafkaType, cx: Cx, utf8: bool) -> Result<Value, DecodeError> {
        let r = &mut *self.r;
        Ok(match ty {
            KafkaType::Bool => Value::Bool(bool::read(r, cx)?),
            KafkaType::Int8 => Value::Int8(r.read_i8()?),
            KafkaType::Int16 => Value::Int16(r.read_i16()?),
            KafkaType::Uint16 => Value::Uint16(r.read_u16()?),
            KafkaType::Int32 => Value::Int32(r.read_i32()?),
            KafkaType::Uint32 => Value::Uint32(r.read_u32()?),
            KafkaType::Int64 => Value::Int64(r.read_i64()?),
            KafkaType::Float64 => Value::Float64(r.read_f64()?),
            KafkaType::Uuid => Value::Uuid(Uuid::read(r, cx)?),
            // `Option<T>::read` rejects null unless `cx.nullable`, as `T::read` does.
            KafkaType::String => match Option::<Str>::read(r, cx)? {
                Some(s) if utf8 => {
                    // As `String`'s `read`: the same check, error and offset.
                    crate::field::check_utf8(r, &s)?;
                    Value::String(s)
                }
                Some(s) => Value::String(s),
                None => Value::Null,
            },
            KafkaType::Bytes => Option::<Bytes>::read(r, cx)?.map_or(Value::Null, Value::Bytes),
            KafkaType::Records => {
                let v =
                    Option::<Records>::read(r, cx)?.map_or(Value::Null, |x| Value::Records(x.0));
                if let (Some(t), Value::Records(data)) = (self.trace.as_deref_mut(), &v) {
                    if let Some(n) = t.top() {
                        n.value = value_text(&v, cx);
                    }
                    let at = self.r.position() - data.len();
                    t.records(at, data);
                }
                v
            }
            KafkaType::Array(t) => self.read_array(t, cx, utf8)?,
            KafkaType::Struct(m) => {
                if cx.nullable && !read_struct_marker(r, cx)? {
                    return Ok(Value::Null);
                }
                Value::Struct(self.read_struct(m(), cx)?)
            }
        })
    }

    fn read_array(
        &mut self,
        elem: &'static KafkaType,
        cx: Cx,
        utf8: bool,
    ) -> Result<Value, DecodeError> {
        let at = self.r.position();
        self.open(|| {
            let mut n = Node::new("length", if cx.compact { "uvarint" } else { "int32" }, at);
            n.about = "number of elements that follow".to_owned();
            n
        });
        // The generated code's own prefix reader: the same checks (input, array limit) at
        // the same offset.
        let len = read_array_prefix(self.r, cx.compact)?;
        self.close(|| match (cx.compact, len) {
            (true, Some(n)) => format!("{} (compact, n+1)", n + 1),
            (true, None) => "0 (compact, null)".to_owned(),
            (false, Some(n)) => n.to_string(),
            (false, None) => "-1 (null)".to_owned(),
        });
        let Some(n) = len else {
            if !cx.nullable {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnexpectedNull {
                        version: cx.version,
                    },
                    at,
                ));
            }
            return Ok(Value::Null);
        };
        let ecx = cx.element();
        // Bounded like the typed codec's arrays: a count that fits the input can still ask
        // for far more memory than the input is worth.
        let limit = crate::field::reserve_limit::<Value>(self.r.remaining());
        let mut out = Vec::with_capacity(if self.keep { n.min(limit) } else { 0 });
        for i in 0..n {
            let eat = self.r.position();
            self.open(|| {
                let t = elem.to_string();
                Node::new(format!("{t}[{i}]"), t, eat)
            });
            let x = self
                .read_value(elem, ecx, utf8)
                .map_err(|e| e.at_index(i))?;
            let text = self.trace.is_some().then(|| self.text(&x, ecx));
            self.close(|| text.unwrap_or_default());
            if self.keep {
                out.push(x);
            }
        }
        self.last_len = n;
        if self.keep || n == 0 {
            Ok(Value::Array(out))
        } else {
            Ok(walked_array())
        }
    }
}

/// The metadata-driven codec's tagged entries: values into the struct value, and a trace
/// node per entry.
struct DynEntries<'t, 'o> {
    trace: Option<&'t mut dyn Sink>,
    meta: &'static StructMeta,
    out: &'o mut StructValue,
    v: Version,
    payload_at: usize,
    keep: bool,
}

impl DynEntries<'_, '_> {
    fn top(&mut self) -> Option<&mut Node> {
        self.trace.as_deref_mut().and_then(|t| t.top())
    }

    fn close(&mut self, end: usize, text: String) {
        if let Some(t) = self.trace.as_deref_mut() {
            if let Some(n) = t.top() {
                if n.value.is_empty() {
                    n.value = text;
                }
            }
            t.close(end);
        }
    }
}

impl Entries for DynEntries<'_, '_> {
    fn section(&mut self, at: usize) {
        if let Some(t) = self.trace.as_deref_mut() {
            let mut n = Node::new("tagged_fields", "uvarint", at);
            n.about = "number of tagged fields in this struct".to_owned();
            t.open(n);
        }
    }

    fn count(&mut self, count: usize) {
        if let Some(n) = self.top() {
            n.value = count.to_string();
        }
    }

    fn entry(&mut self, at: usize) {
        if let Some(t) = self.trace.as_deref_mut() {
            t.open(Node::new(String::new(), String::new(), at));
        }
    }

    fn known(&mut self, tag: u32, r: &mut Reader<'_>) -> Result<Option<TagField>, DecodeError> {
        let v = self.v;
        let Some(i) = self.meta.fields.iter().position(|f| f.tag == Some(tag)) else {
            self.payload_at = r.position();
            return Ok(None);
        };
        let Some(f) = self.meta.fields.get(i) else {
            return Ok(None);
        };
        if let Some(n) = self.top() {
            n.name = f.name.to_owned();
            n.ty = f.ty.to_string();
            n.about = f.about.to_owned();
            n.field = Some(f);
        }
        if !f.tagged.contains(v) {
            return Err(tag_not_valid(r, tag, v).in_field(f.rust_name));
        }
        let tcx = tagged_cx(v, f.nullable.contains(v));
        let at = r.position();
        let mut d = Dec {
            r,
            trace: reborrow(&mut self.trace),
            keep: self.keep,
            last_len: 0,
        };
        let x = d
            .read_value(&f.ty, tcx, f.utf8_required)
            .map_err(|e| e.in_field(f.rust_name))?;
        let shown = d.text(&x, tcx);
        let r = d.r;
        // Its default too, as the generated code (and Java) take it.
        let size = r.position() - at;
        let text = format!("{shown} (tag {tag}, size {size})");
        self.close(r.position(), text);
        if let Some(slot) = self.out.fields.get_mut(i) {
            *slot = x;
        }
        Ok(Some(TagField::new(self.meta, i)))
    }

    fn unknown(&mut self, tag: u32, data: Bytes, keep: bool, reserve: usize) {
        let end = self.payload_at + data.len();
        if let Some(n) = self.top() {
            n.name = format!("unknown_tag_{tag}");
            n.ty = "bytes".to_owned();
            n.about = "a tagged field this struct does not declare".to_owned();
        }
        let text = format!("{} (tag {tag}, size {})", bytes_text(&data), data.len());
        self.close(end, text);
        // Not kept, one entry is enough to make the struct unequal to its default.
        if keep && (self.keep || self.out.unknown.is_empty()) {
            if self.keep && self.out.unknown.is_empty() {
                self.out.unknown.as_mut_vec().reserve_exact(reserve);
            }
            self.out.unknown.push(tag, data);
        }
    }

    fn done(&mut self, end: usize) {
        self.close(end, String::new());
    }
}

fn field_node(f: &'static FieldMeta, at: usize) -> Node {
    let mut n = Node::new(f.name, f.ty.to_string(), at);
    n.about = f.about.to_owned();
    n.field = Some(f);
    n
}

// ---- encode -------------------------------------------------------------------------------

/// Encodes a struct at `version`, as [`KafkaMessage::encode`] would encode the typed struct.
pub fn encode(v: &StructValue, version: Version) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_into(v, version, &mut out).map_err(|e| e.in_root(v.meta.name))?;
    Ok(out)
}

fn encode_into(v: &StructValue, version: Version, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    write_struct(v, Cx::new(version), out)
}

fn mismatch() -> EncodeError {
    EncodeError::new(EncodeErrorKind::InvalidValue(
        "value does not match the field's Kafka type",
    ))
}

fn write_struct(s: &StructValue, cx: Cx, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let meta = s.meta;
    let v = cx.version;
    check_write_version(meta.name, meta.versions, v)?;
    if s.fields.len() != meta.fields.len() {
        return Err(mismatch());
    }
    let flex = meta.flexible.contains(v);
    for (f, val) in meta.fields.iter().zip(&s.fields) {
        if f.mandatory().contains(v) {
            write_value(&f.ty, val, field_cx(meta, f, v), out)
                .map_err(|e| e.in_field(f.rust_name))?;
        } else if !f.ignorable && !f.versions.contains(v) && *val != default_value(f) {
            // Absent fields (ARCHITECTURE.md, *Absent fields and `ignorable`*), as the derive checks them.
            return Err(absent_field(f.rust_name, v));
        }
    }
    let mut tagged: Vec<(&FieldMeta, &Value)> = meta
        .fields
        .iter()
        .zip(&s.fields)
        .filter(|(f, _)| f.tag.is_some())
        .collect();
    tagged.sort_by_key(|(f, _)| f.tag);
    let declared: Vec<u32> = tagged.iter().filter_map(|(f, _)| f.tag).collect();
    let present: Vec<(&FieldMeta, &Value)> = tagged
        .into_iter()
        .filter(|(f, val)| f.tagged.contains(v) && **val != default_value(f))
        .collect();
    // The section through the same rule functions as the generated code: the checks and
    // count, each declared entry's header, and the unknown entries among the declared ones
    // in ascending tag order.
    if put_section_start(out, &s.unknown, flex, v, present.len(), &declared)
        .map_err(|e| e.in_field(unknown_name(meta)))?
    {
        let mut raw = RawTags::new(&s.unknown);
        for (f, val) in present {
            let tag = f.tag.unwrap_or_default();
            let mut payload = Vec::new();
            let tcx = tagged_cx(v, f.nullable.contains(v));
            write_value(&f.ty, val, tcx, &mut payload).map_err(|e| e.in_field(f.rust_name))?;
            raw.put_below(out, tag);
            put_tagged_header(out, tag, payload.len()).map_err(|e| e.in_field(f.rust_name))?;
            out.extend_from_slice(&payload);
        }
        raw.put_rest(out);
    }
    Ok(())
}

fn write_value(ty: &KafkaType, val: &Value, cx: Cx, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    match (ty, val) {
        (_, Value::Null) => {
            if !ty.can_be_nullable() {
                return Err(mismatch());
            }
            if !cx.nullable {
                return Err(EncodeError::new(EncodeErrorKind::NullNotAllowed {
                    version: cx.version,
                }));
            }
            match ty {
                KafkaType::String => None::<Str>.write(out, cx),
                KafkaType::Struct(_) => {
                    put_struct_marker(out, false, cx);
                    Ok(())
                }
                // bytes, records and arrays share the int32 / uvarint null marker.
                _ => None::<Bytes>.write(out, cx),
            }
        }
        (KafkaType::Bool, Value::Bool(x)) => x.write(out, cx),
        (KafkaType::Int8, Value::Int8(x)) => x.write(out, cx),
        (KafkaType::Int16, Value::Int16(x)) => x.write(out, cx),
        (KafkaType::Uint16, Value::Uint16(x)) => x.write(out, cx),
        (KafkaType::Int32, Value::Int32(x)) => x.write(out, cx),
        (KafkaType::Uint32, Value::Uint32(x)) => x.write(out, cx),
        (KafkaType::Int64, Value::Int64(x)) => x.write(out, cx),
        (KafkaType::Float64, Value::Float64(x)) => x.write(out, cx),
        (KafkaType::Uuid, Value::Uuid(x)) => x.write(out, cx),
        (KafkaType::String, Value::String(x)) => x.write(out, cx),
        (KafkaType::Bytes, Value::Bytes(x)) | (KafkaType::Records, Value::Records(x)) => {
            x.write(out, cx)
        }
        (KafkaType::Array(t), Value::Array(items)) => {
            put_array_prefix(out, Some(items.len()), cx.compact)?;
            let ecx = cx.element();
            for (i, item) in items.iter().enumerate() {
                write_value(t, item, ecx, out).map_err(|e| e.at_index(i))?;
            }
            Ok(())
        }
        (KafkaType::Struct(m), Value::Struct(s)) => {
            if s.meta.name != m().name {
                return Err(mismatch());
            }
            if cx.nullable {
                put_struct_marker(out, true, cx);
            }
            write_struct(s, cx, out)
        }
        _ => Err(mismatch()),
    }
}

// ---- frames -------------------------------------------------------------------------------

/// A whole request or response frame held dynamically: the header and the body.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Request or response.
    pub kind: ApiKind,
    /// The API key (read from a request header; given for a response).
    pub api_key: i16,
    /// The body's version (read from a request header; given for a response).
    pub api_version: Version,
    /// The request or response header, at the version the API calls for.
    pub header: StructValue,
    /// The body.
    pub body: StructValue,
}

/// The header version that goes with `version` of the message described by `body`.
pub fn header_version(body: &StructMeta, kind: ApiKind, api_key: i16, version: Version) -> Version {
    match kind {
        ApiKind::Request => request_header_version(body.flexible, version),
        ApiKind::Response => response_header_version(api_key, body.flexible, version),
    }
}

/// The header's metadata for `kind`.
pub fn header_meta(kind: ApiKind) -> &'static StructMeta {
    match kind {
        ApiKind::Request => RequestHeader::META,
        ApiKind::Response => ResponseHeader::META,
    }
}

/// What a frame's body is: the API key, the body's metadata and its version.
#[derive(Debug, Clone, Copy)]
pub struct BodySpec {
    /// The API key.
    pub api_key: i16,
    /// The body's metadata.
    pub meta: &'static StructMeta,
    /// The body's version.
    pub version: Version,
}

/// Decodes a whole request frame (size prefix included): reads the API key and version from
/// the header, asks `lookup` for the body's metadata, and decodes header and body with the
/// same checks and errors as the typed frames of `kafka_wire_messages::apis!` (an unknown key
/// or a version the API lacks is an error in the header, before it is read) and otherwise
/// as [`frame::decode_request`]: the limits of `options` (frame size included), and, if
/// `options` allows them, bytes left after the body ignored and counted in the result.
///
/// A key `lookup` does not resolve is `UnknownApiKey` (at offset 4, in
/// `header.request_api_key`), whatever the reason: this codec has no table of APIs of its
/// own, only what the caller gives it. The typed `RequestFrame` of `kafkawire-messages`
/// reports `ApiNotCompiled` (same offset and path) for an API its `ApiKey` knows but whose
/// types a per-area cargo feature left out, because there the table names the feature to
/// enable. A caller that wants that error first checks the key (`ApiKey::from_i16`,
/// `ApiKey::is_compiled`) before handing the frame to this function.
///
/// With a `trace`, the tree is one root node for the message with three children: `Frame`
/// (its `size`), the header and the body. After a failure the trace holds everything read up
/// to the failing node, which carries the error.
///
/// [`frame::decode_request`]: crate::frame::decode_request
pub fn decode_request_frame(
    frame: &Bytes,
    lookup: impl FnOnce(i16) -> Option<&'static StructMeta>,
    trace: Option<&mut Trace>,
    options: &DecodeOptions,
) -> Result<DecodedFrame<Frame>, DecodeError> {
    decode_frame(
        frame,
        ApiKind::Request,
        request_spec(lookup),
        (0, 0),
        trace.map(|t| t as &mut dyn Sink),
        true,
        options,
    )
    .map(|(f, _, trailing)| DecodedFrame::new(f, trailing))
}

/// Decodes a whole response frame (size prefix included) whose body is `body`, with the same
/// checks and errors as the typed frames of `kafka_wire_messages::apis!` (a version the API
/// lacks is an error at offset 4, before the header is read) and otherwise as
/// [`frame::decode_response`]; `trace` and `options` as for [`decode_request_frame`]. The
/// body is decoded at `body.version` only: ApiVersions' fallback to v0
/// ([`DecodeOptions::api_versions_fallback`]) is the typed frames'.
///
/// [`frame::decode_response`]: crate::frame::decode_response
pub fn decode_response_frame(
    frame: &Bytes,
    body: BodySpec,
    trace: Option<&mut Trace>,
    options: &DecodeOptions,
) -> Result<DecodedFrame<Frame>, DecodeError> {
    decode_frame(
        frame,
        ApiKind::Response,
        |_, _| Some(body),
        (body.api_key, body.version),
        trace.map(|t| t as &mut dyn Sink),
        true,
        options,
    )
    .map(|(f, _, trailing)| DecodedFrame::new(f, trailing))
}

/// A request body's description from `lookup`, given the key and version in the header.
fn request_spec(
    lookup: impl FnOnce(i16) -> Option<&'static StructMeta>,
) -> impl FnOnce(i16, Version) -> Option<BodySpec> {
    move |key, version| {
        lookup(key).map(|meta| BodySpec {
            api_key: key,
            meta,
            version,
        })
    }
}

/// What [`walk_request_frame`] and [`walk_response_frame`] learn: the body's description,
/// the header (decoded whole: it is small), and where the body starts.
#[derive(Debug, Clone)]
pub struct WalkedFrame {
    /// The body's API key, metadata and version.
    pub spec: BodySpec,
    /// The request or response header.
    pub header: StructValue,
    /// The offset of the body's first byte in the frame.
    pub body_at: usize,
}

/// Checks a whole request frame exactly as [`decode_request_frame`] does (with `options`),
/// reporting its nodes to `sink` (if given) in the same tree shape, but keeps no body value:
/// memory stays proportional to the nesting depth (see [`walk_from`]).
pub fn walk_request_frame(
    frame: &Bytes,
    lookup: impl FnOnce(i16) -> Option<&'static StructMeta>,
    sink: Option<&mut dyn Sink>,
    options: &DecodeOptions,
) -> Result<DecodedFrame<WalkedFrame>, DecodeError> {
    decode_frame(
        frame,
        ApiKind::Request,
        request_spec(lookup),
        (0, 0),
        sink,
        false,
        options,
    )
    .map(walked)
}

/// [`walk_request_frame`] for a response whose body is `body`.
pub fn walk_response_frame(
    frame: &Bytes,
    body: BodySpec,
    sink: Option<&mut dyn Sink>,
    options: &DecodeOptions,
) -> Result<DecodedFrame<WalkedFrame>, DecodeError> {
    decode_frame(
        frame,
        ApiKind::Response,
        |_, _| Some(body),
        (body.api_key, body.version),
        sink,
        false,
        options,
    )
    .map(walked)
}

fn walked((f, body_at, trailing): (Frame, usize, usize)) -> DecodedFrame<WalkedFrame> {
    let w = WalkedFrame {
        spec: BodySpec {
            api_key: f.api_key,
            meta: f.body.meta,
            version: f.api_version,
        },
        header: f.header,
        body_at,
    };
    DecodedFrame::new(w, trailing)
}

/// The frame, where its body starts, and how many bytes after the body were ignored.
type FrameParts = (Frame, usize, usize);

/// Decodes (or, without `keep`, walks) a whole frame through the frame module's one path
/// ([`frame::decode_request_in`](crate::frame::decode_request_in) and the response form)
/// against a [`MetaSet`]: the same steps, checks and errors as the typed frames, with the
/// trace's nodes added. `given` is the response's API key and version (unused for a
/// request, whose header names them).
fn decode_frame(
    frame: &Bytes,
    kind: ApiKind,
    resolve: impl FnOnce(i16, Version) -> Option<BodySpec>,
    given: (i16, Version),
    mut trace: Option<&mut dyn Sink>,
    keep: bool,
    options: &DecodeOptions,
) -> Result<FrameParts, DecodeError> {
    if let Some(t) = trace.as_deref_mut() {
        let name = match kind {
            ApiKind::Request => "Request",
            ApiKind::Response => "Response",
        };
        t.open(Node::new(name, "message", 0));
        let mut f = Node::new("Frame", "", 0);
        f.about = "length-delimited framing".to_owned();
        t.open(f);
        let mut s = Node::new("size", "int32", 0);
        s.about = "number of bytes that follow".to_owned();
        if let Some(p) = frame.first_chunk::<4>() {
            s.value = i32::from_be_bytes(*p).to_string();
        }
        t.open(s);
    }
    let mut set = MetaSet {
        kind,
        resolve: Some(resolve),
        trace,
        keep,
        at: 0,
        body_at: 0,
    };
    let res = match kind {
        ApiKind::Request => crate::frame::decode_request_in(&mut set, frame, options),
        // The body is read at the version given: no ApiVersions fallback here.
        ApiKind::Response => {
            let options = options.with_api_versions_fallback(false);
            crate::frame::decode_response_in(&mut set, frame, given.0, given.1, &options)
        }
    };
    let MetaSet {
        trace, at, body_at, ..
    } = set;
    if let Some(t) = trace {
        match &res {
            Ok(_) => t.close(frame.len()),
            // The failing part's decoder has already closed its nodes; what is still open
            // gets the error (the frame's size, the header or body node, or the root).
            Err(e) => t.fail(at.max(e.offset()).min(frame.len()), e.to_string()),
        }
    }
    res.map(|d| (d.frame, body_at, d.trailing_bytes))
}

/// The metadata-driven codec as an [`ApiSet`]: the body's description comes from the caller
/// (a lookup by API key for a request, given for a response), headers and bodies are
/// [`StructValue`]s, and every node read goes to the trace, if there is one.
struct MetaSet<'t, F> {
    kind: ApiKind,
    /// The body's description, asked once.
    resolve: Option<F>,
    trace: Option<&'t mut dyn Sink>,
    /// Whether the body's values are kept (a decode) or only checked (a walk).
    keep: bool,
    /// How far the frame has been read: where a failure's open node ends.
    at: usize,
    /// Where the body starts.
    body_at: usize,
}

impl<F: FnOnce(i16, Version) -> Option<BodySpec>> MetaSet<'_, F> {
    /// The body's description, refused as the typed frames refuse an API or version they
    /// lack; the trace's root is named after it.
    fn lookup(&mut self, api_key: i16, version: Version) -> Result<BodySpec, DecodeError> {
        let spec = self
            .resolve
            .take()
            .and_then(|resolve| resolve(api_key, version))
            .ok_or_else(|| crate::frame::unknown_api_key(api_key))?;
        // A version the API lacks is refused before the header is read, as by the typed frames.
        crate::frame::check_version(self.kind, spec.meta, spec.version)?;
        if let Some(root) = self.trace.as_deref_mut().and_then(|t| t.top()) {
            root.name = spec.meta.name.to_owned();
            root.ty = format!("message v{}", spec.version);
        }
        Ok(spec)
    }

    /// The header, read with its node.
    fn header(&mut self, hv: Version, r: &mut Reader<'_>) -> Result<StructValue, DecodeError> {
        let hmeta = header_meta(self.kind);
        if let Some(t) = self.trace.as_deref_mut() {
            let mut h = Node::new(hmeta.name, format!("v{hv}"), 4);
            h.about = match self.kind {
                ApiKind::Request => "common request header",
                ApiKind::Response => "common response header",
            }
            .to_owned();
            t.open(h);
        }
        let header = decode_with(hmeta, r, hv, reborrow(&mut self.trace), true)?;
        self.body_at = r.position();
        self.at = self.body_at;
        if let Some(t) = self.trace.as_deref_mut() {
            t.close(self.body_at);
        }
        Ok(header)
    }

    /// The body, read (or walked) with its node.
    fn body(&mut self, spec: BodySpec, r: &mut Reader<'_>) -> Result<StructValue, DecodeError> {
        if let Some(t) = self.trace.as_deref_mut() {
            let mut b = Node::new(spec.meta.name, "struct", r.position());
            b.about = format!("message body, version {}", spec.version);
            t.open(b);
        }
        let body = decode_with(
            spec.meta,
            r,
            spec.version,
            reborrow(&mut self.trace),
            self.keep,
        )?;
        self.at = r.position();
        if let Some(t) = self.trace.as_deref_mut() {
            t.close(r.position());
        }
        Ok(body)
    }

    /// The frame from its parts.
    fn frame(&self, spec: BodySpec, header: StructValue, body: StructValue) -> Frame {
        Frame {
            kind: self.kind,
            api_key: spec.api_key,
            api_version: spec.version,
            header,
            body,
        }
    }
}

impl<F: FnOnce(i16, Version) -> Option<BodySpec>> ApiSet for MetaSet<'_, F> {
    type Api = BodySpec;
    type RequestHeader = StructValue;
    type ResponseHeader = StructValue;
    type Request = StructValue;
    type Response = StructValue;
    type RequestFrame = Frame;
    type ResponseFrame = Frame;

    fn prefix_read(&mut self) {
        self.at = 4;
        if let Some(t) = self.trace.as_deref_mut() {
            t.close(4); // size
            t.close(4); // Frame
        }
    }
    fn request_api(&mut self, api_key: i16, version: Version) -> Result<BodySpec, DecodeError> {
        self.lookup(api_key, version)
    }
    fn response_api(&mut self, api_key: i16, version: Version) -> Result<BodySpec, DecodeError> {
        self.lookup(api_key, version)
    }
    fn request_header_version(&self, spec: BodySpec, version: Version) -> Version {
        header_version(spec.meta, ApiKind::Request, spec.api_key, version)
    }
    fn response_header_version(&self, spec: BodySpec, version: Version) -> Version {
        header_version(spec.meta, ApiKind::Response, spec.api_key, version)
    }
    fn decode_request_header(
        &mut self,
        header_version: Version,
        r: &mut Reader<'_>,
    ) -> Result<StructValue, DecodeError> {
        self.header(header_version, r)
    }
    fn decode_response_header(
        &mut self,
        header_version: Version,
        r: &mut Reader<'_>,
    ) -> Result<StructValue, DecodeError> {
        self.header(header_version, r)
    }
    fn decode_request(
        &mut self,
        spec: BodySpec,
        _: Version,
        r: &mut Reader<'_>,
    ) -> Result<StructValue, DecodeError> {
        self.body(spec, r)
    }
    fn decode_response(
        &mut self,
        spec: BodySpec,
        _: Version,
        r: &mut Reader<'_>,
    ) -> Result<StructValue, DecodeError> {
        self.body(spec, r)
    }
    fn encode_request(
        &self,
        body: &StructValue,
        version: Version,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        encode_into(body, version, out)
    }
    fn encode_response(
        &self,
        body: &StructValue,
        version: Version,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        encode_into(body, version, out)
    }
    fn request_frame(
        &mut self,
        spec: BodySpec,
        _: Version,
        header: StructValue,
        body: StructValue,
    ) -> Frame {
        self.frame(spec, header, body)
    }
    fn response_frame(
        &mut self,
        spec: BodySpec,
        _: Version,
        header: StructValue,
        body: StructValue,
    ) -> Frame {
        self.frame(spec, header, body)
    }
}

/// Encodes a whole frame into a new vector: size prefix, header at the version the API calls
/// for, and body at `frame.api_version` (see [`encode_frame_into`]).
pub fn encode_frame(frame: &Frame) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_frame_into(&mut out, frame)?;
    Ok(out)
}

/// Encodes a whole frame into `buf`: size prefix, header at the version the API calls for,
/// and body at `frame.api_version`.
///
/// The frame is assembled by [`frame::put_frame`](crate::frame::put_frame), as the typed
/// frames are, so both codecs give the same bytes and the same errors, and the write is all
/// or nothing into every buffer: on any error (a value the version cannot carry, a buffer
/// too small) `buf` is exactly as it was. A request's header must name the frame's API key
/// and version, as a typed frame's must name its body's API.
pub fn encode_frame_into<B: crate::EncodeBuf + ?Sized>(
    buf: &mut B,
    frame: &Frame,
) -> Result<(), EncodeError> {
    if frame.kind == ApiKind::Request {
        check_header_field(
            &frame.header,
            "request_api_key",
            frame.api_key,
            "request_api_key does not match the body's API",
        )?;
        check_header_field(
            &frame.header,
            "request_api_version",
            frame.api_version,
            "request_api_version does not match the body's version",
        )?;
    }
    let hv = header_version(
        frame.body.meta,
        frame.kind,
        frame.api_key,
        frame.api_version,
    );
    crate::frame::put_frame(buf, |out| {
        encode_into(&frame.header, hv, out)
            .map_err(|e| e.in_root(frame.header.meta.name).in_part("header"))?;
        encode_into(&frame.body, frame.api_version, out)
            .map_err(|e| e.in_root(frame.body.meta.name).in_part("body"))
    })
}

/// Fails unless the request header's int16 field `name` holds `expected`: a header naming
/// another API or version than the frame's would make a frame no reader could decode.
fn check_header_field(
    header: &StructValue,
    name: &'static str,
    expected: i16,
    problem: &'static str,
) -> Result<(), EncodeError> {
    let mut value = header.meta.fields.iter().zip(&header.fields);
    match value.find(|(f, _)| f.rust_name == name).map(|(_, v)| v) {
        Some(Value::Int16(x)) if *x == expected => Ok(()),
        _ => Err(EncodeError::new(EncodeErrorKind::InvalidValue(problem))
            .in_field(name)
            .in_part("header")),
    }
}

/// The smallest legal frame of an API at `version`: header with correlation id 0 and an
/// empty (not null) client id, body as [`StructValue::sample`].
pub fn sample_frame(
    kind: ApiKind,
    api_key: i16,
    body: &'static StructMeta,
    version: Version,
) -> Frame {
    let hv = header_version(body, kind, api_key, version);
    let mut header = StructValue::sample(header_meta(kind), hv);
    if kind == ApiKind::Request {
        if let Some(k) = header.get_rust_mut("request_api_key") {
            *k = Value::Int16(api_key);
        }
        if let Some(k) = header.get_rust_mut("request_api_version") {
            *k = Value::Int16(version);
        }
    }
    Frame {
        kind,
        api_key,
        api_version: version,
        header,
        body: StructValue::sample(body, version),
    }
}
