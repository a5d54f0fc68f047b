//! Skipping: a value read by its declared Kafka type and dropped, with every check a reading
//! that keeps it makes (prefixes and nullability, the nullable-struct marker, struct
//! versions, mandatory fields, tagged sections, the decode limits, UTF-8 where the Rust type
//! needs it), so that the error, its offset and its field path are the ones a full reading
//! finds. One reader serves every place that moves past a value without building it: array
//! elements the input cannot hold (`FieldHooks::read_discard` of derived structs), the JSON
//! writer's search for tagged fields and its pass over declared tagged payloads, and
//! `dynamic`'s walk without a sink.

use bytes::Bytes;

use crate::error::DecodeError;
use crate::field::context::{field_cx, Cx};
use crate::field::prefix::{null_error, read_array_prefix};
use crate::field::traits::Field;
use crate::meta::{KafkaType, StructMeta};
use crate::rules::nullable::read_struct_marker;
use crate::rules::tagged::{read_section, tag_not_valid, tagged_cx, Entries, TagField};
use crate::rules::version::check_read_version;
use crate::types::{Records, Str, Uuid};
use crate::{Reader, Version};

/// Skips a struct described by `meta` at `cx` (its marker, if nullable, already read): the
/// version check, the fields `cx.version` has, then the tagged section when flexible. A
/// field of a user's own `Field` type is read as its declared Kafka type, as the
/// metadata-driven codec reads it.
pub(crate) fn skip_struct(
    meta: &'static StructMeta,
    r: &mut Reader<'_>,
    cx: Cx,
) -> Result<(), DecodeError> {
    let v = cx.version;
    check_read_version(meta.name, meta.versions, v, r)?;
    for f in meta.fields {
        if !f.mandatory().contains(v) {
            continue;
        }
        if let Err(e) = skip_value(&f.ty, r, field_cx(meta, f, v), f.utf8_required) {
            return Err(e.in_field(f.rust_name));
        }
    }
    if meta.flexible.contains(v) {
        read_section(r, &mut Skip { meta, v })?;
    }
    Ok(())
}

/// Skips one value of type `ty` at `cx`; its strings must be UTF-8 when `utf8` (the field is
/// a Rust `String`, see `FieldMeta::utf8_required`).
pub(crate) fn skip_value(
    ty: &KafkaType,
    r: &mut Reader<'_>,
    cx: Cx,
    utf8: bool,
) -> Result<(), DecodeError> {
    match ty {
        KafkaType::Bool => bool::read(r, cx).map(drop),
        KafkaType::Int8 => r.read_i8().map(drop),
        KafkaType::Int16 => r.read_i16().map(drop),
        KafkaType::Uint16 => r.read_u16().map(drop),
        KafkaType::Int32 => r.read_i32().map(drop),
        KafkaType::Uint32 => r.read_u32().map(drop),
        KafkaType::Int64 => r.read_i64().map(drop),
        KafkaType::Float64 => r.read_f64().map(drop),
        KafkaType::Uuid => Uuid::read(r, cx).map(drop),
        // `Option<T>::read` rejects null unless `cx.nullable`, as `T::read` does.
        KafkaType::String if utf8 => Option::<String>::read(r, cx).map(drop),
        KafkaType::String => Option::<Str>::read(r, cx).map(drop),
        KafkaType::Bytes => Option::<Bytes>::read(r, cx).map(drop),
        KafkaType::Records => Option::<Records>::read(r, cx).map(drop),
        KafkaType::Array(t) => {
            let at = r.position();
            let Some(n) = read_array_prefix(r, cx.compact)? else {
                return if cx.nullable {
                    Ok(())
                } else {
                    Err(null_error(cx, at))
                };
            };
            let ecx = cx.element();
            for i in 0..n {
                skip_value(t, r, ecx, utf8).map_err(|e| e.at_index(i))?;
            }
            Ok(())
        }
        KafkaType::Struct(m) => {
            if cx.nullable && !read_struct_marker(r, cx)? {
                return Ok(());
            }
            skip_struct(m(), r, cx)
        }
    }
}

/// Skips the payload of tag `tag` of a struct described by `meta` at version `v`, checked
/// against the versions it is tagged in: the index of its field and where the payload
/// started, or `None`, reading nothing, for a tag the struct does not declare (the
/// section's reader then takes it as unknown).
pub(crate) fn skip_declared(
    meta: &'static StructMeta,
    v: Version,
    tag: u32,
    r: &mut Reader<'_>,
) -> Result<Option<(usize, usize)>, DecodeError> {
    let Some((i, f)) = meta
        .fields
        .iter()
        .enumerate()
        .find(|(_, f)| f.tag == Some(tag))
    else {
        return Ok(None);
    };
    if !f.tagged.contains(v) {
        return Err(tag_not_valid(r, tag, v).in_field(f.rust_name));
    }
    let at = r.position();
    let tcx = tagged_cx(v, f.nullable.contains(v));
    skip_value(&f.ty, r, tcx, f.utf8_required).map_err(|e| e.in_field(f.rust_name))?;
    Ok(Some((i, at)))
}

/// The tagged entries of a skipped struct: declared ones skipped as their type, unknown
/// ones dropped.
struct Skip {
    meta: &'static StructMeta,
    v: Version,
}

impl Entries for Skip {
    fn known(&mut self, tag: u32, r: &mut Reader<'_>) -> Result<Option<TagField>, DecodeError> {
        let found = skip_declared(self.meta, self.v, tag, r)?;
        Ok(found.map(|(i, _)| TagField::new(self.meta, i)))
    }

    fn unknown(&mut self, _tag: u32, _data: Bytes, _keep: bool, _reserve: usize) {}
}
