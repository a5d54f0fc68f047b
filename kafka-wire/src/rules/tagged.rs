//! Tagged fields (KIP-482): the section at the end of every flexible struct, a uvarint count
//! then entries of uvarint tag, uvarint size and payload, in ascending tag order. Declared
//! fields are written only when not default; unknown ones are kept and written back as
//! they came. One reader serves the generated code and the metadata-driven codec, which
//! differ only in what they do with each entry ([`Entries`]).

use bytes::{BufMut, Bytes};

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::field::context::Cx;
use crate::meta::StructMeta;
use crate::primitives::{put_uvarint, uvarint_size};
use crate::types::{RawTaggedField, UnknownTaggedFields};
use crate::{Reader, Version};

/// The context of a tagged field's payload: always compact.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub const fn tagged_cx(version: Version, nullable: bool) -> Cx {
    Cx {
        version,
        compact: true,
        nullable,
        tagged: true,
    }
}

/// A known tagged field's tag and payload size. The derive calls this and `Field::write`
/// itself, rather than one generic helper writing both, so that a field type with no codec is
/// one error on the type instead of one per generic helper.
///
/// A payload above [`MAX_TAGGED_SIZE`] is `LengthTooLarge`, nothing written.
#[inline]
pub fn put_tagged_header<B: BufMut + ?Sized>(
    buf: &mut B,
    tag: u32,
    size: usize,
) -> Result<(), EncodeError> {
    if size > MAX_TAGGED_SIZE {
        return Err(EncodeError::new(EncodeErrorKind::LengthTooLarge(size)));
    }
    put_uvarint(buf, tag);
    put_uvarint(buf, size as u32);
    Ok(())
}

/// The largest tagged-field payload: its size is an unsigned varint that Kafka reads into an
/// int32, so anything larger would go out with a truncated size.
pub const MAX_TAGGED_SIZE: usize = i32::MAX as usize;

/// The size of a known tagged field whose payload is `size` bytes.
#[inline]
pub fn tagged_entry_size(tag: u32, size: usize) -> usize {
    uvarint_size(tag) + uvarint_size(size as u32) + size
}

/// Checks the unknown tagged fields can be written: strictly ascending, none reusing a
/// declared tag, and none at all at a non-flexible version (Java throws `UnsupportedVersionException` for the latter).
#[inline]
pub fn check_unknown_tagged(
    unknown: &UnknownTaggedFields,
    flexible: bool,
    version: Version,
    declared: &[u32],
) -> Result<(), EncodeError> {
    if unknown.is_empty() {
        return Ok(());
    }
    if !flexible {
        return Err(EncodeError::new(
            EncodeErrorKind::TaggedFieldsNotSupported { version },
        ));
    }
    let mut prev: Option<u32> = None;
    for f in unknown {
        if declared.contains(&f.tag) {
            return Err(EncodeError::new(EncodeErrorKind::RawTagCollides(f.tag)));
        }
        if let Some(p) = prev {
            if f.tag <= p {
                return Err(EncodeError::new(EncodeErrorKind::UnorderedRawTag {
                    tag: f.tag,
                    previous: p,
                }));
            }
        }
        prev = Some(f.tag);
        if f.data.len() > MAX_TAGGED_SIZE {
            return Err(EncodeError::new(EncodeErrorKind::LengthTooLarge(
                f.data.len(),
            )));
        }
    }
    Ok(())
}

/// Checks the unknown tagged fields (see [`check_unknown_tagged`]) and, when the struct is
/// flexible at `version`, writes the section's count: the unknown fields plus `known`
/// declared ones. Returns whether the section exists, so the caller writes its entries:
/// each declared field after [`RawTags::put_below`] its tag, then [`RawTags::put_rest`].
/// Nothing is written on error.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn put_section_start<B: BufMut + ?Sized>(
    buf: &mut B,
    unknown: &UnknownTaggedFields,
    flexible: bool,
    version: Version,
    known: usize,
    declared: &[u32],
) -> Result<bool, EncodeError> {
    if unknown.is_unset() {
        if flexible {
            put_count(buf, known);
        }
        return Ok(flexible);
    }
    check_unknown_tagged(unknown, flexible, version, declared)?;
    if flexible {
        put_count(buf, unknown.len() + known);
    }
    Ok(flexible)
}

/// Writes the unknown tagged fields of a section among the declared ones, so the section
/// comes out in ascending tag order, as Java's generated writer does
/// (`RawTaggedFieldWriter.writeRawTags(_writable, tag)` before each declared tag that does
/// not follow the previous one, then `writeRawTags(_writable, Integer.MAX_VALUE)`). The
/// fields were checked first ([`check_unknown_tagged`]: ascending, no declared tag reused).
pub struct RawTags<'a> {
    rest: &'a [RawTaggedField],
}

impl<'a> RawTags<'a> {
    /// A writer over the struct's unknown tagged fields, none written yet.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn new(unknown: &'a UnknownTaggedFields) -> Self {
        RawTags {
            rest: unknown.as_slice(),
        }
    }

    /// Writes the unknown fields not yet written whose tag is below `tag`, the next
    /// declared tag.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn put_below<B: BufMut + ?Sized>(&mut self, buf: &mut B, tag: u32) {
        while let Some((f, rest)) = self.rest.split_first() {
            if f.tag >= tag {
                break;
            }
            put_raw(buf, f);
            self.rest = rest;
        }
    }

    /// Writes the unknown fields not yet written.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn put_rest<B: BufMut + ?Sized>(self, buf: &mut B) {
        if !self.rest.is_empty() {
            put_raws(buf, self.rest);
        }
    }
}

/// The unknown fields left to write (see [`RawTags::put_rest`]): out of line, so that every
/// flexible struct's `write` holds one test of an empty list instead of the loop.
#[cold]
#[inline(never)]
fn put_raws<B: BufMut + ?Sized>(buf: &mut B, fields: &[RawTaggedField]) {
    for f in fields {
        put_raw(buf, f);
    }
}

/// One unknown field, unchanged (its size was checked against [`MAX_TAGGED_SIZE`]).
#[inline]
fn put_raw<B: BufMut + ?Sized>(buf: &mut B, f: &RawTaggedField) {
    put_uvarint(buf, f.tag);
    put_uvarint(buf, f.data.len() as u32);
    buf.put_slice(&f.data);
}

/// The size of the unknown tagged fields.
#[inline]
pub fn unknown_tagged_size(unknown: &UnknownTaggedFields) -> usize {
    unknown
        .iter()
        .map(|f| uvarint_size(f.tag) + uvarint_size(f.data.len() as u32) + f.data.len())
        .sum()
}

/// Writes a tagged-section count.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn put_count<B: BufMut + ?Sized>(buf: &mut B, n: usize) {
    put_uvarint(buf, n as u32);
}

/// The size of a tagged-section count.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn count_size(n: usize) -> usize {
    // Nearly always one byte: a predicted branch, not the varint size formula's chain.
    if n < 0x80 {
        1
    } else {
        core::hint::cold_path();
        uvarint_size(n as u32)
    }
}

/// A declared tagged field just read, for the error paths after it: the field's name is
/// looked up (out of line) only when an error needs it, not for every field read.
#[derive(Debug, Clone, Copy)]
pub struct TagField {
    meta: &'static StructMeta,
    index: usize,
}

impl TagField {
    /// Field `index` of the struct `meta` describes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub const fn new(meta: &'static StructMeta, index: usize) -> Self {
        TagField { meta, index }
    }

    /// The field's Rust name, as error paths show it.
    #[cold]
    #[inline(never)]
    pub fn name(self) -> &'static str {
        self.meta
            .fields
            .get(self.index)
            .map_or("?", |f| f.rust_name)
    }
}

/// What a tagged-section reader does with each entry: the generated code keeps declared
/// fields in locals and unknown ones in the struct; the metadata-driven codec keeps values
/// and records a trace. Everything else (order, sizes, claims, errors and their offsets) is
/// [`read_section`]'s, written once.
pub trait Entries {
    /// The section starts at `at` (before its count).
    fn section(&mut self, at: usize) {
        let _ = at;
    }

    /// The section's count was read.
    fn count(&mut self, count: usize) {
        let _ = count;
    }

    /// An entry starts at `at` (its tag).
    fn entry(&mut self, at: usize) {
        let _ = at;
    }

    /// Reads the payload of declared tag `tag` and returns its field (named in an error
    /// found after it), or `None`, reading nothing, for a tag the struct does not declare.
    fn known(&mut self, tag: u32, r: &mut Reader<'_>) -> Result<Option<TagField>, DecodeError>;

    /// An unknown entry: keep it when `keep` (false past what the input could hold), after
    /// reserving `reserve` entries when this is the first.
    fn unknown(&mut self, tag: u32, data: Bytes, keep: bool, reserve: usize);

    /// The section ends at `end`.
    fn done(&mut self, end: usize) {
        let _ = end;
    }
}

/// How generated code reads a declared tag: the payload of tag `tag` into its field,
/// returning the field (for error paths, see [`TagField`]), or `None`, reading nothing, for
/// a tag the struct does not declare.
///
/// A trait object, not a type parameter: the section reader is then compiled once for every
/// struct instead of once per struct (about 470 copies over Kafka's APIs, 12% of the LLVM
/// lines of an unoptimised build of the messages crate). Only a non-empty section reaches
/// it (see [`read_tagged_section`]), so the indirect call is off the common path.
pub type KnownTags<'a> =
    dyn FnMut(u32, &mut Reader<'_>) -> Result<Option<TagField>, DecodeError> + 'a;

/// The generated code's entries: declared tags through `known`, unknown ones into the
/// struct's `UnknownTaggedFields`.
struct Typed<'u, 'k, 'f> {
    unknown: &'u mut UnknownTaggedFields,
    known: &'k mut KnownTags<'f>,
}

impl Entries for Typed<'_, '_, '_> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn known(&mut self, tag: u32, r: &mut Reader<'_>) -> Result<Option<TagField>, DecodeError> {
        (self.known)(tag, r)
    }

    fn unknown(&mut self, tag: u32, data: Bytes, keep: bool, reserve: usize) {
        if keep {
            // Reserve at the first unknown entry (a vector's first push would reserve 4, 160
            // bytes, for what may be a 2-byte field), as many as the input could hold.
            if self.unknown.is_empty() {
                self.unknown.as_mut_vec().reserve_exact(reserve);
            }
            self.unknown.push(tag, data);
        }
    }
}

/// Reads a tagged-field section for generated code. `known` reads a declared tag and returns
/// the Rust name of its field (for error paths), or `None` for a tag the struct does not
/// declare, which is kept in `unknown`.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn read_tagged_section(
    r: &mut Reader<'_>,
    unknown: &mut UnknownTaggedFields,
    known: &mut KnownTags<'_>,
) -> Result<(), DecodeError> {
    // Fast path, inlined: the empty section (one 0 byte), read once per decoded struct.
    // Anything else starts again from the count, out of line.
    if r.eat(0) {
        return Ok(());
    }
    read_typed_section(r, unknown, known)
}

/// A non-empty tagged section for generated code: one copy for every struct.
#[inline(never)]
fn read_typed_section(
    r: &mut Reader<'_>,
    unknown: &mut UnknownTaggedFields,
    known: &mut KnownTags<'_>,
) -> Result<(), DecodeError> {
    read_section(r, &mut Typed { unknown, known })
}

/// Reads a tagged-field section.
///
/// Tags must be strictly ascending, which rejects duplicates (Kafka does not check order on
/// read, but an out-of-order section could not be re-encoded byte-exact). A known field must
/// fill exactly its declared size. A declared tag that is not tagged at this version is
/// reported at the tag's own byte.
pub fn read_section<E: Entries>(r: &mut Reader<'_>, e: &mut E) -> Result<(), DecodeError> {
    let count_at = r.position();
    e.section(count_at);
    let count = r.read_uvarint()? as usize;
    e.count(count);
    if count == 0 {
        e.done(r.position());
        return Ok(());
    }
    // Every entry takes at least two bytes (tag and size).
    if count > r.remaining() / TAGGED_ENTRY_MIN_SIZE {
        return Err(DecodeError::new(
            DecodeErrorKind::LengthExceedsInput {
                declared: count as u64,
                remaining: r.remaining(),
            },
            count_at,
        ));
    }
    // The entries claim their two bytes each as an array's elements do (see
    // `field::read_elements`), so that a known field's nested counts cannot claim them too;
    // entries past what the unclaimed bytes could hold cannot decode and are not kept.
    let saved = r.claimed;
    let cap = count.min(r.unclaimed() / TAGGED_ENTRY_MIN_SIZE);
    let res = read_entries(r, e, count, cap);
    r.claimed = saved;
    if res.is_ok() {
        e.done(r.position());
    }
    res
}

/// The fewest bytes a tagged field takes: a one-byte tag and a one-byte size.
pub const TAGGED_ENTRY_MIN_SIZE: usize = 2;

/// The most bytes the unknown tagged fields of a struct allocate per input byte: the first
/// entry (at least [`TAGGED_ENTRY_MIN_SIZE`] bytes) brings the boxed vector and its own
/// [`RawTaggedField`], 64 bytes for 2, so 32; every later entry one more, 40 bytes for 2.
/// The section's count byte pays for nothing here: it is part of the struct's own smallest
/// size, which already pays for the struct's place in its array (counting it twice is what
/// let a struct of ratio below 32 with one empty unknown field pass the bound).
pub const UNKNOWN_TAGGED_RATIO: usize = crate::field::arrays::ratio(
    size_of::<Vec<RawTaggedField>>() + size_of::<RawTaggedField>(),
    TAGGED_ENTRY_MIN_SIZE,
);

/// The entries of a tagged section of `count` entries, with the claim for all of them made.
#[inline]
fn read_entries<E: Entries>(
    r: &mut Reader<'_>,
    e: &mut E,
    count: usize,
    cap: usize,
) -> Result<(), DecodeError> {
    let mut prev: Option<u32> = None;
    // The unknown fields so far and their payload bytes, against the configured limits.
    let (mut unknown_fields, mut unknown_bytes) = (0usize, 0usize);
    let mut claimed = r
        .claimed
        .saturating_add(count.saturating_mul(TAGGED_ENTRY_MIN_SIZE));
    for i in 0..count {
        r.claimed = if i < cap {
            claimed -= TAGGED_ENTRY_MIN_SIZE;
            claimed
        } else {
            usize::MAX
        };
        let tag_at = r.position();
        e.entry(tag_at);
        let tag = r.read_uvarint()?;
        if let Some(previous) = prev {
            if tag <= previous {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnorderedTag { tag, previous },
                    tag_at,
                ));
            }
        }
        prev = Some(tag);
        let size_at = r.position();
        let size = r.read_uvarint()? as usize;
        if size > r.remaining() {
            return Err(DecodeError::new(
                DecodeErrorKind::LengthExceedsInput {
                    declared: size as u64,
                    remaining: r.remaining(),
                },
                size_at,
            ));
        }
        let payload_at = r.position();
        // A declared tag that is not tagged at this version is reported at the tag itself
        // (`known` finds it before reading the payload, so its error is at `payload_at`; one
        // from a nested tagged section inside the payload lies further on and is left alone).
        let is_known = e.known(tag, r).map_err(|err| match err.kind() {
            DecodeErrorKind::TagNotValidForVersion { .. } if err.offset() == payload_at => {
                err.with_offset(tag_at)
            }
            _ => err,
        })?;
        if let Some(field) = is_known {
            let used = r.position() - payload_at;
            if used != size {
                return Err(DecodeError::new(
                    DecodeErrorKind::TaggedSizeMismatch {
                        tag,
                        declared: size as u64,
                        actual: used,
                    },
                    payload_at,
                )
                .in_field(field.name()));
            }
        } else {
            unknown_fields += 1;
            unknown_bytes = unknown_bytes.saturating_add(size);
            let limits = r.limits();
            r.check_limit(
                crate::Limit::UnknownTaggedFields,
                unknown_fields,
                limits.unknown_tagged_fields(),
                tag_at,
            )?;
            r.check_limit(
                crate::Limit::UnknownTaggedBytes,
                unknown_bytes,
                limits.unknown_tagged_bytes(),
                tag_at,
            )?;
            let data = r.read_bytes(size)?;
            e.unknown(tag, data, i < cap, cap.saturating_sub(i));
        }
    }
    Ok(())
}

/// The error for a declared tag that is not tagged at `version`.
#[cold]
pub fn tag_not_valid(r: &Reader<'_>, tag: u32, version: Version) -> DecodeError {
    r.error(DecodeErrorKind::TagNotValidForVersion { tag, version })
}
