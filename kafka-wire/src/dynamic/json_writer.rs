//! JSON written straight from the bytes, without building a value tree: the same document
//! as [`crate::json::frame_to_json`] and [`crate::json::struct_to_json`] give for the decoded
//! value, with memory proportional to the nesting depth instead of to the input.

use std::io::{self, Write};

use bytes::Bytes;
use serde_json::Value as Json;

use super::{default_value, field_cx, header_version, read_array_prefix, Dec, WalkedFrame};
use crate::error::DecodeError;
use crate::field::Cx;
use crate::json::{api_name, json_name, struct_to_json, value_to_json};
use crate::meta::{ApiKind, KafkaType, StructMeta};
use crate::rules::nullable::read_struct_marker;
use crate::rules::skip::{skip_declared, skip_value};
use crate::rules::tagged::{read_section, tagged_cx, Entries, TagField};
use crate::rules::version::check_read_version;
use crate::{Reader, Version};

/// Why [`write_json`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteJsonError {
    /// The writer failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The input does not decode (check it first with [`super::walk_from`] or
    /// [`super::walk_request_frame`], so that no partial document is written).
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// Writes a `records` value as JSON: gets the bytes after the length prefix and their
/// offset in the buffer. Without one, records are base64 text, as in [`crate::json`].
pub type RecordsJson<'h> = &'h mut dyn FnMut(&Bytes, usize, &mut dyn Write) -> io::Result<()>;

/// Writes the struct at byte `at` of `buf`, at `version`, as the JSON object
/// [`crate::json::struct_to_json`] gives for its decoded value; returns the offset where the
/// struct ends. `records`, if given, writes each `records` value instead of base64.
///
/// Declared tagged fields appear in declaration order, as in the decoded value, though the
/// wire carries them last: such a struct is read twice, once to find them.
pub fn write_json(
    meta: &'static StructMeta,
    buf: &Bytes,
    at: usize,
    version: Version,
    w: &mut dyn Write,
    records: Option<RecordsJson<'_>>,
) -> Result<usize, WriteJsonError> {
    let mut r = Reader::at(buf, at);
    let mut jw = Jw {
        buf,
        w,
        records,
        version,
    };
    jw.write_struct(meta, &mut r, Cx::new(version))
        .map_err(|e| match e {
            WriteJsonError::Decode(d) => WriteJsonError::Decode(d.in_root(meta.name)),
            e => e,
        })?;
    Ok(r.position())
}

/// Writes a whole frame that [`super::walk_request_frame`] or
/// [`super::walk_response_frame`] accepted as the document
/// [`crate::json::frame_to_json`] gives for it.
pub fn write_frame_json(
    frame: &Bytes,
    walked: &WalkedFrame,
    kind: ApiKind,
    w: &mut dyn Write,
    records: Option<RecordsJson<'_>>,
) -> Result<(), WriteJsonError> {
    let spec = walked.spec;
    let hv = header_version(spec.meta, kind, spec.api_key, spec.version);
    let kind_text = match kind {
        ApiKind::Request => "request",
        ApiKind::Response => "response",
    };
    w.write_all(b"{\"kind\":")?;
    serde_json::to_writer(&mut *w, kind_text).map_err(io::Error::from)?;
    write!(w, ",\"apiKey\":{},\"apiName\":", spec.api_key)?;
    serde_json::to_writer(&mut *w, api_name(spec.meta)).map_err(io::Error::from)?;
    write!(w, ",\"apiVersion\":{},\"header\":", spec.version)?;
    serde_json::to_writer(&mut *w, &struct_to_json(&walked.header, hv)).map_err(io::Error::from)?;
    w.write_all(b",\"body\":")?;
    write_json(spec.meta, frame, walked.body_at, spec.version, w, records).map_err(
        |e| match e {
            WriteJsonError::Decode(d) => WriteJsonError::Decode(d.in_part("body")),
            e => e,
        },
    )?;
    w.write_all(b"}")?;
    Ok(())
}

struct Jw<'b, 'w, 'h> {
    buf: &'b Bytes,
    w: &'w mut dyn Write,
    records: Option<RecordsJson<'h>>,
    version: Version,
}

fn put(w: &mut dyn Write, j: &Json) -> io::Result<()> {
    serde_json::to_writer(w, j).map_err(io::Error::from)
}

impl Jw<'_, '_, '_> {
    fn write_struct(
        &mut self,
        meta: &'static StructMeta,
        r: &mut Reader<'_>,
        cx: Cx,
    ) -> Result<(), WriteJsonError> {
        let v = cx.version;
        check_read_version(meta.name, meta.versions, v, r)?;
        let flex = meta.flexible.contains(v);
        // Declared tagged fields sit after the regular ones on the wire; find them first.
        let located = if flex && meta.fields.iter().any(|f| f.tagged.contains(v)) {
            self.locate_tagged(meta, r.position(), v)?
        } else {
            Vec::new()
        };
        self.w.write_all(b"{")?;
        let mut first = true;
        for (i, f) in meta.fields.iter().enumerate() {
            if !f.versions.contains(v) {
                continue;
            }
            // A tagged field appears only when it holds something other than its default,
            // as Kafka's JSON converters write it (and `struct_to_json`): its value is read
            // whole to compare, bounded by the tagged payload.
            let tagged = if f.mandatory().contains(v) {
                None
            } else {
                let Some(&(_, at)) = located.iter().find(|(j, _)| *j == i) else {
                    continue;
                };
                let mut tr = Reader::at(self.buf, at);
                let x = Dec {
                    r: &mut tr,
                    trace: None,
                    keep: true,
                    last_len: 0,
                }
                .read_value(&f.ty, tagged_cx(v, f.nullable.contains(v)), f.utf8_required)
                .map_err(|e| e.in_field(f.rust_name))?;
                if x == default_value(f) {
                    continue;
                }
                Some(x)
            };
            if !first {
                self.w.write_all(b",")?;
            }
            first = false;
            put(self.w, &Json::from(json_name(f.name)))?;
            self.w.write_all(b":")?;
            match tagged {
                None => self
                    .write_value(&f.ty, r, field_cx(meta, f, v), f.utf8_required)
                    .map_err(|e| in_field(e, f.rust_name))?,
                Some(x) => put(self.w, &value_to_json(&x, self.version))?,
            }
        }
        if flex {
            let mut e = UnknownOut {
                meta,
                v,
                w: &mut *self.w,
                comma: !first,
                any: false,
                error: None,
            };
            read_section(r, &mut e)?;
            if let Some(err) = e.error {
                return Err(err.into());
            }
            if e.any {
                self.w.write_all(b"]")?;
            }
        }
        self.w.write_all(b"}")?;
        Ok(())
    }

    /// Where each present declared tagged field's payload starts: (field index, offset).
    fn locate_tagged(
        &mut self,
        meta: &'static StructMeta,
        at: usize,
        v: Version,
    ) -> Result<Vec<(usize, usize)>, DecodeError> {
        let mut r = Reader::at(self.buf, at);
        for f in meta.fields.iter().filter(|f| f.mandatory().contains(v)) {
            skip_value(&f.ty, &mut r, field_cx(meta, f, v), f.utf8_required)
                .map_err(|e| e.in_field(f.rust_name))?;
        }
        let mut e = Locate {
            meta,
            v,
            found: Vec::new(),
        };
        read_section(&mut r, &mut e)?;
        Ok(e.found)
    }

    fn write_value(
        &mut self,
        ty: &KafkaType,
        r: &mut Reader<'_>,
        cx: Cx,
        utf8: bool,
    ) -> Result<(), WriteJsonError> {
        match ty {
            KafkaType::Array(elem) => {
                let at = r.position();
                let Some(n) = read_array_prefix(r, cx.compact)? else {
                    if !cx.nullable {
                        return Err(DecodeError::new(
                            crate::error::DecodeErrorKind::UnexpectedNull {
                                version: cx.version,
                            },
                            at,
                        )
                        .into());
                    }
                    self.w.write_all(b"null")?;
                    return Ok(());
                };
                self.w.write_all(b"[")?;
                let ecx = cx.element();
                for i in 0..n {
                    if i > 0 {
                        self.w.write_all(b",")?;
                    }
                    self.write_value(elem, r, ecx, utf8)
                        .map_err(|e| at_index(e, i))?;
                }
                self.w.write_all(b"]")?;
            }
            KafkaType::Struct(m) => {
                if cx.nullable && !read_struct_marker(r, cx)? {
                    self.w.write_all(b"null")?;
                    return Ok(());
                }
                self.write_struct(m(), r, cx)?;
            }
            KafkaType::Records if self.records.is_some() => {
                let x = Dec {
                    r,
                    trace: None,
                    keep: false,
                    last_len: 0,
                }
                .read_value(ty, cx, utf8)?;
                match (&x, self.records.as_deref_mut()) {
                    (super::Value::Records(data), Some(hook)) => {
                        let at = r.position() - data.len();
                        hook(data, at, &mut *self.w)?;
                    }
                    _ => put(self.w, &value_to_json(&x, self.version))?,
                }
            }
            leaf => {
                let x = Dec {
                    r,
                    trace: None,
                    keep: false,
                    last_len: 0,
                }
                .read_value(leaf, cx, utf8)?;
                put(self.w, &value_to_json(&x, self.version))?;
            }
        }
        Ok(())
    }
}

fn in_field(e: WriteJsonError, name: &'static str) -> WriteJsonError {
    match e {
        WriteJsonError::Decode(d) => WriteJsonError::Decode(d.in_field(name)),
        e => e,
    }
}

fn at_index(e: WriteJsonError, i: usize) -> WriteJsonError {
    match e {
        WriteJsonError::Decode(d) => WriteJsonError::Decode(d.at_index(i)),
        e => e,
    }
}

/// Finds the payloads of declared tags (skipped by the one skipping reader, as every
/// declared tag this writer passes over).
struct Locate {
    meta: &'static StructMeta,
    v: Version,
    found: Vec<(usize, usize)>,
}

impl Entries for Locate {
    fn known(&mut self, tag: u32, r: &mut Reader<'_>) -> Result<Option<TagField>, DecodeError> {
        let Some((i, at)) = skip_declared(self.meta, self.v, tag, r)? else {
            return Ok(None);
        };
        self.found.push((i, at));
        Ok(Some(TagField::new(self.meta, i)))
    }

    fn unknown(&mut self, _tag: u32, _data: Bytes, _keep: bool, _reserve: usize) {}
}

/// Writes the unknown entries of a tagged section as `"_unknownTaggedFields": [...]`, after
/// the struct's fields (the caller closes the list when `any`).
struct UnknownOut<'w> {
    meta: &'static StructMeta,
    v: Version,
    w: &'w mut dyn Write,
    /// Whether a field was written before the list.
    comma: bool,
    any: bool,
    error: Option<io::Error>,
}

impl Entries for UnknownOut<'_> {
    fn known(&mut self, tag: u32, r: &mut Reader<'_>) -> Result<Option<TagField>, DecodeError> {
        Ok(skip_declared(self.meta, self.v, tag, r)?.map(|(i, _)| TagField::new(self.meta, i)))
    }

    fn unknown(&mut self, tag: u32, data: Bytes, keep: bool, _reserve: usize) {
        if !keep || self.error.is_some() {
            return;
        }
        let res = (|| -> io::Result<()> {
            if self.any {
                self.w.write_all(b",")?;
            } else {
                if self.comma {
                    self.w.write_all(b",")?;
                }
                write!(self.w, "{}:[", Json::from(crate::json::UNKNOWN_TAGGED_KEY))?;
                self.any = true;
            }
            use base64::Engine as _;
            write!(self.w, "{{\"tag\":{tag},\"data\":")?;
            put(
                self.w,
                &Json::from(base64::engine::general_purpose::STANDARD.encode(&data)),
            )?;
            self.w.write_all(b"}")
        })();
        if let Err(e) = res {
            self.error = Some(e);
        }
    }
}
