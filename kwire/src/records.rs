//! `records` fields in kwire: record batches as JSON (both ways) and as dump subtrees.
//!
//! JSON form of a `records` value (instead of base64):
//!
//! ```text
//! {"batches": [BATCH...], "truncated": {"offset", "available", "size", "raw"}, "error": {"message", "offset", "raw"}}
//! BATCH  = {"baseOffset", "batchLength", "partitionLeaderEpoch", "magic", "crc", "crcValid",
//!           "attributes", "compression", "timestampType", "transactional", "control",
//!           "lastOffsetDelta", "baseTimestamp", "maxTimestamp", "producerId", "producerEpoch",
//!           "baseSequence", "recordCount", "records": [RECORD...], "recordsError", "raw"}
//! RECORD = {"offset", "timestamp", "attributes", "offsetDelta", "timestampDelta", "key",
//!           "value", "headers": [{"key", "value"}], "controlRecord"}
//! ```
//!
//! Keys, values and header values: a JSON string is the bytes as UTF-8 text;
//! `{"base64": "..."}` is bytes that are not UTF-8; `null` is null. `truncated` (an
//! incomplete last batch, as a Fetch response may end with) and `error` (where reading
//! stopped, with the rest of the bytes) appear only when there is one. `raw` (base64) is
//! given for legacy (magic 0/1) batches and for what could not be read; `encode` writes it
//! back unchanged. A magic-2 batch is re-encoded from its fields and records (`crc`,
//! `crcValid`, `batchLength`, `recordCount`, `compression`, `timestampType`, `transactional`,
//! `control`, `offset`, `timestamp` and `controlRecord` are informational: the attributes
//! carry the flags), byte for byte when uncompressed; a compressed batch is compressed
//! again with its codec, which gives the same records but not necessarily the same bytes
//! as the client that wrote it.

use std::io::{self, Write};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use bytes::Bytes;
use kafka_wire::dynamic::{Node, Sink};
use kafka_wire::json::json_name;
use kafka_wire::records::{
    Batch, BatchBuilder, BatchHeader, Batches, ControlRecord, NewHeader, ReadOptions, Record,
};
use kafka_wire::{KafkaType, StructMeta};
use serde_json::{json, Map, Value as Json};

/// How kwire reads batches: CRCs are checked but a bad one does not stop reading (it is
/// shown), and decompression stops at the default `DecodeLimits::max_decompressed_batch`
/// (64 MiB per batch; more is shown as an error).
pub fn options() -> ReadOptions {
    ReadOptions {
        verify_crc: false,
        ..ReadOptions::from_limits(&kafka_wire::DecodeLimits::DEFAULT)
    }
}

/// Bytes as JSON: UTF-8 text as a string, anything else as `{"base64": ...}`.
fn bytes_json(b: Option<&[u8]>) -> Json {
    match b {
        None => Json::Null,
        Some(b) => match std::str::from_utf8(b) {
            Ok(s) => Json::from(s),
            Err(_) => json!({ "base64": B64.encode(b) }),
        },
    }
}

fn header_json(b: &Batch) -> Map<String, Json> {
    let h = b.header();
    let mut o = Map::new();
    let mut put = |k: &str, v: Json| {
        o.insert(k.to_owned(), v);
    };
    put("baseOffset", h.base_offset.into());
    put("batchLength", h.batch_length.into());
    put("partitionLeaderEpoch", h.partition_leader_epoch.into());
    put("magic", h.magic.into());
    put("crc", h.crc.into());
    put("crcValid", b.crc_is_valid().into());
    put("attributes", h.attributes.into());
    put(
        "compression",
        match h.compression() {
            Ok(c) => Json::from(c.name()),
            Err(id) => Json::from(format!("unknown ({id})")),
        },
    );
    put(
        "timestampType",
        Json::from(format!("{:?}", h.timestamp_type())),
    );
    put("transactional", h.is_transactional().into());
    put("control", h.is_control().into());
    put("lastOffsetDelta", h.last_offset_delta.into());
    put("baseTimestamp", h.base_timestamp.into());
    put("maxTimestamp", h.max_timestamp.into());
    put("producerId", h.producer_id.into());
    put("producerEpoch", h.producer_epoch.into());
    put("baseSequence", h.base_sequence.into());
    put("recordCount", h.record_count.into());
    o
}

fn record_json(r: &Record<'_>, control: bool) -> Json {
    let headers: Vec<Json> = r
        .headers
        .iter()
        .map(|h| json!({"key": bytes_json(Some(h.key)), "value": bytes_json(h.value)}))
        .collect();
    let mut o = json!({
        "offset": r.offset,
        "timestamp": r.timestamp,
        "attributes": r.attributes,
        "offsetDelta": r.offset_delta,
        "timestampDelta": r.timestamp_delta,
        "key": bytes_json(r.key),
        "value": bytes_json(r.value),
        "headers": headers,
    });
    if control {
        let c = match ControlRecord::parse(r) {
            Ok(c) => format!("{c:?}"),
            Err(e) => format!("invalid control record: {e}"),
        };
        if let Some(m) = o.as_object_mut() {
            m.insert("controlRecord".to_owned(), Json::from(c));
        }
    }
    o
}

fn put(w: &mut dyn Write, j: &Json) -> io::Result<()> {
    serde_json::to_writer(w, j).map_err(io::Error::from)
}

/// Writes the JSON form of a `records` value (see the module docs), one record at a time.
/// Returns whether every batch and record read (`false` when the document holds an `error`
/// or a `recordsError`; an incomplete last batch, `truncated`, is not a failure).
pub fn write_json(data: &Bytes, w: &mut dyn Write) -> io::Result<bool> {
    let mut batches = Batches::new(data.clone(), options());
    w.write_all(b"{\"batches\":[")?;
    let mut error = None;
    let mut first = true;
    let mut all_read = true;
    for b in batches.by_ref() {
        let b = match b {
            Ok(b) => b,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        if !first {
            w.write_all(b",")?;
        }
        first = false;
        let head = Json::Object(header_json(&b));
        let text = head.to_string();
        // The header object, left open for the records.
        w.write_all(text.get(..text.len() - 1).unwrap_or_default().as_bytes())?;
        w.write_all(b",\"records\":[")?;
        let control = b.header().is_control();
        let mut records_error = None;
        match b.records() {
            Err(e) => records_error = Some(e),
            Ok(rs) => {
                for (i, r) in rs.iter().enumerate() {
                    match r {
                        Ok(r) => {
                            if i > 0 {
                                w.write_all(b",")?;
                            }
                            put(w, &record_json(&r, control))?;
                        }
                        Err(e) => {
                            records_error = Some(e);
                            break;
                        }
                    }
                }
            }
        }
        w.write_all(b"]")?;
        if let Some(e) = records_error {
            all_read = false;
            w.write_all(b",\"recordsError\":")?;
            put(w, &json!({"message": e.to_string(), "offset": e.offset()}))?;
        }
        if b.header().magic < 2 || records_error_raw(&b) {
            w.write_all(b",\"raw\":")?;
            put(w, &Json::from(B64.encode(b.as_bytes())))?;
        }
        w.write_all(b"}")?;
    }
    w.write_all(b"]")?;
    all_read &= error.is_none();
    if let Some(e) = error {
        let rest = data.get(e.offset()..).unwrap_or_default();
        w.write_all(b",\"error\":")?;
        put(
            w,
            &json!({"message": e.to_string(), "offset": e.offset(), "raw": B64.encode(rest)}),
        )?;
    } else if let Some(t) = batches.truncated() {
        let rest = data.get(t.offset..).unwrap_or_default();
        w.write_all(b",\"truncated\":")?;
        put(
            w,
            &json!({"offset": t.offset, "available": t.available, "size": t.size, "raw": B64.encode(rest)}),
        )?;
    }
    w.write_all(b"}")?;
    Ok(all_read)
}

/// The JSON form of a `records` value (see the module docs) as a tree, for documents built
/// as trees (the proxy's log); written by [`write_json`], so both have the same form.
pub fn to_json(data: &Bytes) -> Json {
    let mut text = Vec::new();
    if write_json(data, &mut text).is_err() {
        return Json::from(B64.encode(data));
    }
    // `write_json` writes valid JSON by construction; the fallback keeps the bytes anyway.
    serde_json::from_slice(&text).unwrap_or_else(|_| Json::from(B64.encode(data)))
}

/// Replaces, in a body (or header) JSON object described by `meta` as the library's JSON
/// writer gives it, every `records` value (base64) by its readable JSON form
/// ([`to_json`]): the inverse of [`encode_in`].
pub fn readable_in(meta: &'static StructMeta, j: &mut Json) {
    let Json::Object(o) = j else {
        return;
    };
    for f in meta.fields {
        if let Some(v) = o.get_mut(&json_name(f.name)) {
            readable_value(&f.ty, v);
        }
    }
}

fn readable_value(ty: &KafkaType, j: &mut Json) {
    match ty {
        KafkaType::Records => {
            if let Some(bytes) = j.as_str().and_then(|s| B64.decode(s).ok()) {
                *j = to_json(&Bytes::from(bytes));
            }
        }
        KafkaType::Array(t) => {
            if let Json::Array(items) = j {
                for x in items {
                    readable_value(t, x);
                }
            }
        }
        KafkaType::Struct(m) => readable_in(m(), j),
        _ => {}
    }
}

/// Whether a magic-2 batch must be written back from its bytes: its records do not read
/// (so they cannot be re-encoded) or its CRC is wrong (a rebuild would fix it silently).
fn records_error_raw(b: &Batch) -> bool {
    if !b.crc_is_valid() {
        return true;
    }
    match b.records() {
        Err(_) => true,
        Ok(rs) => rs.iter().any(|r| r.is_err()),
    }
}

// ---- JSON to bytes -------------------------------------------------------------------------

/// Replaces, in a body (or header) JSON object described by `meta`, every `records` value
/// given in the JSON form by its base64 bytes, so that the library's JSON reader takes it.
pub fn encode_in(meta: &'static StructMeta, j: &mut Json, path: &str) -> Result<(), String> {
    let Json::Object(o) = j else {
        return Ok(());
    };
    for f in meta.fields {
        let key = json_name(f.name);
        if let Some(v) = o.get_mut(&key) {
            encode_value(&f.ty, v, &format!("{path}.{key}"))?;
        }
    }
    Ok(())
}

fn encode_value(ty: &KafkaType, j: &mut Json, path: &str) -> Result<(), String> {
    match ty {
        KafkaType::Records if j.is_object() => {
            let bytes = records_from_json(j).map_err(|e| format!("{e} at `{path}`"))?;
            *j = Json::from(B64.encode(bytes));
        }
        KafkaType::Array(t) => {
            if let Json::Array(items) = j {
                for (i, x) in items.iter_mut().enumerate() {
                    encode_value(t, x, &format!("{path}[{i}]"))?;
                }
            }
        }
        KafkaType::Struct(m) => encode_in(m(), j, path)?,
        _ => {}
    }
    Ok(())
}

fn get_i64(o: &Map<String, Json>, k: &str) -> Result<i64, String> {
    o.get(k)
        .and_then(Json::as_i64)
        .ok_or_else(|| format!("batch field `{k}` must be an integer"))
}

fn num<T: TryFrom<i64>>(o: &Map<String, Json>, k: &str) -> Result<T, String> {
    T::try_from(get_i64(o, k)?).map_err(|_| format!("batch field `{k}` is out of range"))
}

fn bytes_from(j: Option<&Json>, what: &str) -> Result<Option<Vec<u8>>, String> {
    match j {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.as_bytes().to_vec())),
        Some(Json::Object(o)) => match o.get("base64").and_then(Json::as_str) {
            Some(b) if o.len() == 1 => B64
                .decode(b)
                .map(Some)
                .map_err(|e| format!("{what}: invalid base64: {e}")),
            _ => Err(format!(
                "{what}: expected a string, {{\"base64\": ...}} or null"
            )),
        },
        Some(_) => Err(format!(
            "{what}: expected a string, {{\"base64\": ...}} or null"
        )),
    }
}

fn raw(o: &Map<String, Json>) -> Result<Option<Vec<u8>>, String> {
    match o.get("raw") {
        None => Ok(None),
        Some(Json::String(s)) => B64
            .decode(s)
            .map(Some)
            .map_err(|e| format!("`raw` is not base64: {e}")),
        Some(_) => Err("`raw` must be a base64 string".to_owned()),
    }
}

/// The bytes of a `records` value in the JSON form.
pub fn records_from_json(j: &Json) -> Result<Vec<u8>, String> {
    let Json::Object(o) = j else {
        return Err("records: expected an object".to_owned());
    };
    if let Some(k) = o
        .keys()
        .find(|k| !matches!(k.as_str(), "batches" | "truncated" | "error"))
    {
        return Err(format!("records: unknown key `{k}`"));
    }
    let mut out = Vec::new();
    let batches = match o.get("batches") {
        None => &Vec::new(),
        Some(Json::Array(b)) => b,
        Some(_) => return Err("records: `batches` must be an array".to_owned()),
    };
    for (i, b) in batches.iter().enumerate() {
        let Json::Object(b) = b else {
            return Err(format!("batch {i}: expected an object"));
        };
        batch_bytes(b, &mut out).map_err(|e| format!("batch {i}: {e}"))?;
    }
    for k in ["truncated", "error"] {
        if let Some(t) = o.get(k) {
            let Json::Object(t) = t else {
                return Err(format!("records: `{k}` must be an object"));
            };
            out.extend(raw(t)?.unwrap_or_default());
        }
    }
    Ok(out)
}

fn batch_bytes(b: &Map<String, Json>, out: &mut Vec<u8>) -> Result<(), String> {
    if let Some(r) = raw(b)? {
        out.extend(r);
        return Ok(());
    }
    let magic: i8 = num(b, "magic")?;
    if magic != 2 {
        return Err(format!(
            "magic {magic} batches are written from `raw` only (legacy formats are read-only)"
        ));
    }
    let header = BatchHeader {
        base_offset: num(b, "baseOffset")?,
        batch_length: 0,
        partition_leader_epoch: num(b, "partitionLeaderEpoch")?,
        magic,
        crc: 0,
        attributes: num(b, "attributes")?,
        last_offset_delta: num(b, "lastOffsetDelta")?,
        base_timestamp: num(b, "baseTimestamp")?,
        max_timestamp: num(b, "maxTimestamp")?,
        producer_id: num(b, "producerId")?,
        producer_epoch: num(b, "producerEpoch")?,
        base_sequence: num(b, "baseSequence")?,
        record_count: 0,
    };
    if header.compression().is_err() {
        return Err("unknown compression id in `attributes`".to_owned());
    }
    let mut builder = BatchBuilder::from_header(&header);
    let records = match b.get("records") {
        None => &Vec::new(),
        Some(Json::Array(r)) => r,
        Some(_) => return Err("`records` must be an array".to_owned()),
    };
    for (i, r) in records.iter().enumerate() {
        let Json::Object(r) = r else {
            return Err(format!("record {i}: expected an object"));
        };
        let key = bytes_from(r.get("key"), &format!("record {i} key"))?;
        let value = bytes_from(r.get("value"), &format!("record {i} value"))?;
        let mut hs: Vec<(Vec<u8>, Option<Vec<u8>>)> = Vec::new();
        if let Some(h) = r.get("headers") {
            let Json::Array(h) = h else {
                return Err(format!("record {i}: `headers` must be an array"));
            };
            for (k, x) in h.iter().enumerate() {
                let what = format!("record {i} header {k}");
                let hk = bytes_from(x.get("key"), &what)?
                    .ok_or_else(|| format!("{what}: a header key cannot be null"))?;
                hs.push((hk, bytes_from(x.get("value"), &what)?));
            }
        }
        let headers: Vec<NewHeader<'_>> = hs
            .iter()
            .map(|(k, v)| NewHeader {
                key: k,
                value: v.as_deref(),
            })
            .collect();
        builder.append_raw(
            num(r, "attributes").map_err(|e| format!("record {i}: {e}"))?,
            get_i64(r, "timestampDelta").map_err(|e| format!("record {i}: {e}"))?,
            num(r, "offsetDelta").map_err(|e| format!("record {i}: {e}"))?,
            key.as_deref(),
            value.as_deref(),
            &headers,
        );
    }
    builder.build_into(out).map_err(|e| e.to_string())
}

// ---- dump ------------------------------------------------------------------------------------

fn leaf(sink: &mut dyn Sink, name: &str, ty: &str, at: usize, size: usize, value: String) {
    let mut n = Node::new(name, ty, at);
    n.value = value;
    sink.open(n);
    sink.close(at + size);
}

/// Where `part` (a slice of `base`) starts in it.
fn offset_in(base: &[u8], part: &[u8]) -> usize {
    (part.as_ptr() as usize).wrapping_sub(base.as_ptr() as usize)
}

fn bytes_text(b: Option<&[u8]>) -> String {
    match b {
        None => "null".to_owned(),
        Some(b) => match std::str::from_utf8(b) {
            Ok(s) if s.chars().count() <= 48 => format!("{s:?}"),
            Ok(s) => format!(
                "{:?}… ({} bytes)",
                s.chars().take(48).collect::<String>(),
                b.len()
            ),
            Err(_) => {
                let hex: String = b.iter().take(24).map(|x| format!("{x:02x}")).collect();
                format!(
                    "0x{hex}{} ({} bytes)",
                    if b.len() > 24 { "…" } else { "" },
                    b.len()
                )
            }
        },
    }
}

/// Opens and closes the nodes of a `records` value's batches under the records field's
/// node: `at` is where `data` starts in the frame.
pub fn dump(sink: &mut dyn Sink, at: usize, data: &Bytes) {
    let mut batches = Batches::new(data.clone(), options());
    for b in batches.by_ref() {
        let b = match b {
            Ok(b) => b,
            Err(e) => {
                let mut n = Node::new("invalid_batch", "bytes", at + e.offset());
                let rest = data.get(e.offset()..).unwrap_or_default();
                n.value = bytes_text(Some(rest));
                n.about = "the bytes from where reading stopped".to_owned();
                n.error = Some(e.to_string());
                sink.open(n);
                sink.close(at + data.len());
                return;
            }
        };
        dump_batch(sink, at, &b);
    }
    if let Some(t) = batches.truncated() {
        let mut n = Node::new("truncated_batch", "bytes", at + t.offset);
        n.value = format!(
            "{} of {} bytes",
            t.available,
            t.size.map_or("?".to_owned(), |s| s.to_string())
        );
        n.about = "an incomplete last batch (a Fetch response may end with one)".to_owned();
        sink.open(n);
        sink.close(at + data.len());
    }
}

fn dump_batch(sink: &mut dyn Sink, at: usize, b: &Batch) {
    let h = *b.header();
    let start = at + b.offset();
    let mut n = Node::new(
        format!("RecordBatch[{}]", b.index()),
        format!("batch (magic {})", h.magic),
        start,
    );
    n.value = format!(
        "{} record{}",
        h.record_count,
        if h.record_count == 1 { "" } else { "s" }
    );
    n.about = "a record batch (or a legacy message)".to_owned();
    sink.open(n);
    let compression = match h.compression() {
        Ok(c) => c.name().to_owned(),
        Err(id) => format!("unknown ({id})"),
    };
    if h.magic == 2 {
        let fields: [(&str, &str, usize, usize, String); 13] = [
            ("base_offset", "int64", 0, 8, h.base_offset.to_string()),
            ("batch_length", "int32", 8, 4, h.batch_length.to_string()),
            (
                "partition_leader_epoch",
                "int32",
                12,
                4,
                h.partition_leader_epoch.to_string(),
            ),
            ("magic", "int8", 16, 1, h.magic.to_string()),
            ("crc", "uint32", 17, 4, format!("0x{:08x}", h.crc)),
            (
                "attributes",
                "int16",
                21,
                2,
                format!(
                    "{} (compression {compression}, {:?}{}{})",
                    h.attributes,
                    h.timestamp_type(),
                    if h.is_transactional() {
                        ", transactional"
                    } else {
                        ""
                    },
                    if h.is_control() { ", control" } else { "" }
                ),
            ),
            (
                "last_offset_delta",
                "int32",
                23,
                4,
                h.last_offset_delta.to_string(),
            ),
            (
                "base_timestamp",
                "int64",
                27,
                8,
                h.base_timestamp.to_string(),
            ),
            ("max_timestamp", "int64", 35, 8, h.max_timestamp.to_string()),
            ("producer_id", "int64", 43, 8, h.producer_id.to_string()),
            (
                "producer_epoch",
                "int16",
                51,
                2,
                h.producer_epoch.to_string(),
            ),
            ("base_sequence", "int32", 53, 4, h.base_sequence.to_string()),
            ("records_count", "int32", 57, 4, h.record_count.to_string()),
        ];
        for (name, ty, off, size, value) in fields {
            let mut n = Node::new(name, ty, start + off);
            n.value = value;
            if name == "crc" && !b.crc_is_valid() {
                n.error = Some(format!(
                    "CRC mismatch: computed 0x{:08x}",
                    h.computed_crc(b.as_bytes())
                ));
            }
            sink.open(n);
            sink.close(start + off + size);
        }
    } else {
        leaf(sink, "offset", "int64", start, 8, h.base_offset.to_string());
        leaf(
            sink,
            "message_size",
            "int32",
            start + 8,
            4,
            h.batch_length.to_string(),
        );
        leaf(
            sink,
            "crc",
            "uint32",
            start + 12,
            4,
            format!("0x{:08x}", h.crc),
        );
        leaf(sink, "magic", "int8", start + 16, 1, h.magic.to_string());
        leaf(
            sink,
            "attributes",
            "int8",
            start + 17,
            1,
            format!("{} (compression {compression})", h.attributes),
        );
    }
    let end = start + b.as_bytes().len();
    match b.records() {
        Err(e) => {
            let mut n = Node::new("records", "records", end);
            n.error = Some(e.to_string());
            sink.open(n);
            sink.close(end);
        }
        Ok(rs) => {
            // Uncompressed records are views into the frame; decompressed ones into their
            // own buffer, whose offsets the nodes then show.
            let (base, origin, label) = if rs.is_decompressed() {
                (rs.data().clone(), 0, " (decompressed)")
            } else {
                (b.as_bytes().clone(), start, "")
            };
            if rs.is_decompressed() {
                let mut n = Node::new("decompressed_records", "bytes", 0);
                n.value = format!("{} bytes", rs.data().len());
                n.about = "offsets below are within the decompressed records".to_owned();
                sink.open(n);
            }
            let control = h.is_control();
            // Magic-2 records start with their length (a zigzag varint): their spans.
            let section: &[u8] = if rs.is_decompressed() {
                rs.data()
            } else {
                b.records_section()
            };
            let mut pos = offset_in(&base, section);
            for (i, r) in rs.iter().enumerate() {
                let span = if h.magic == 2 {
                    varint(&base, pos).map(|(len, n)| {
                        let s = (pos, pos + n + usize::try_from(len).unwrap_or(0));
                        pos = s.1;
                        s
                    })
                } else {
                    None
                };
                match r {
                    Ok(r) => dump_record(sink, &base, origin, i, &r, control, label, span),
                    Err(e) => {
                        let mut n = Node::new(format!("Record[{i}]"), "record", origin);
                        n.error = Some(e.to_string());
                        sink.open(n);
                        sink.close(origin);
                        break;
                    }
                }
            }
            if rs.is_decompressed() {
                sink.close(rs.data().len());
            }
        }
    }
    sink.close(end);
}

/// A zigzag varint at `pos` of `b`: its value and length.
fn varint(b: &[u8], pos: usize) -> Option<(i64, usize)> {
    let mut v: u64 = 0;
    for i in 0..10 {
        let byte = *b.get(pos + i)?;
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((((v >> 1) as i64) ^ -((v & 1) as i64), i + 1));
        }
    }
    None
}

/// One record's node: `span` is its bytes within `base` (magic 2), else it starts at its key
/// or value.
#[allow(clippy::too_many_arguments)]
fn dump_record(
    sink: &mut dyn Sink,
    base: &[u8],
    origin: usize,
    i: usize,
    r: &Record<'_>,
    control: bool,
    label: &str,
    span: Option<(usize, usize)>,
) {
    let parts: Vec<usize> = [r.key, r.value]
        .into_iter()
        .flatten()
        .map(|p| offset_in(base, p))
        .collect();
    let first = span.map_or(parts.iter().min().copied().unwrap_or(0), |s| s.0);
    let mut n = Node::new(
        format!("Record[{i}]"),
        format!("record{label}"),
        origin + first,
    );
    n.value = format!("offset {}, timestamp {}", r.offset, r.timestamp);
    n.about = format!(
        "offset delta {}, timestamp delta {}, attributes {}",
        r.offset_delta, r.timestamp_delta, r.attributes
    );
    if control {
        n.about = match ControlRecord::parse(r) {
            Ok(c) => format!("control record: {c:?}"),
            Err(e) => format!("invalid control record: {e}"),
        };
    }
    sink.open(n);
    let end = match span {
        Some((start, end)) => {
            v2_parts(sink, base, origin, start, r);
            origin + end
        }
        None => legacy_parts(sink, base, origin, origin + first, r),
    };
    sink.close(end);
}

/// The parts of a magic-2 record starting at `start` of `base`, walked as Kafka lays them
/// out: length, attributes, timestamp delta, offset delta, key, value, header count, headers.
fn v2_parts(sink: &mut dyn Sink, base: &[u8], origin: usize, start: usize, r: &Record<'_>) {
    let mut p = start;
    // A varint field's node; `None` (nothing shown) past the end.
    fn field(
        sink: &mut dyn Sink,
        base: &[u8],
        origin: usize,
        p: &mut usize,
        name: &str,
        ty: &str,
    ) -> Option<()> {
        let (v, n) = varint(base, *p)?;
        leaf(sink, name, ty, origin + *p, n, v.to_string());
        *p += n;
        Some(())
    }
    if field(sink, base, origin, &mut p, "length", "varint").is_none() {
        return;
    }
    leaf(
        sink,
        "attributes",
        "int8",
        origin + p,
        1,
        r.attributes.to_string(),
    );
    p += 1;
    if field(sink, base, origin, &mut p, "timestamp_delta", "varlong").is_none()
        || field(sink, base, origin, &mut p, "offset_delta", "varint").is_none()
    {
        return;
    }
    for (name, part) in [("key", r.key), ("value", r.value)] {
        let Some((len, n)) = varint(base, p) else {
            return;
        };
        let size = n + usize::try_from(len).unwrap_or(0);
        leaf(
            sink,
            name,
            "varint bytes",
            origin + p,
            size,
            bytes_text(part),
        );
        p += size;
    }
    let Some((_, n)) = varint(base, p) else {
        return;
    };
    leaf(
        sink,
        "headers",
        "varint",
        origin + p,
        n,
        r.headers.len().to_string(),
    );
    p += n;
    for (k, h) in r.headers.iter().enumerate() {
        let at = p;
        for _ in 0..2 {
            let Some((len, n)) = varint(base, p) else {
                return;
            };
            p += n + usize::try_from(len).unwrap_or(0);
        }
        leaf(
            sink,
            &format!("header[{k}]"),
            "header",
            origin + at,
            p - at,
            format!("{} = {}", bytes_text(Some(h.key)), bytes_text(h.value)),
        );
    }
}

/// The key and value of a legacy message (their offsets from where they point); returns
/// where the last ends.
fn legacy_parts(
    sink: &mut dyn Sink,
    base: &[u8],
    origin: usize,
    at: usize,
    r: &Record<'_>,
) -> usize {
    let mut last = at;
    for (name, part) in [("key", r.key), ("value", r.value)] {
        let (o, len) = match part {
            Some(p) => (origin + offset_in(base, p), p.len()),
            None => (last, 0),
        };
        leaf(sink, name, "bytes", o, len, bytes_text(part));
        last = o + len;
    }
    last
}
