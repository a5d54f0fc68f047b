//! Strings: [`Str`] (the bytes as they came, UTF-8 checked when read) and `String`
//! (always checked), sharing one reader with an inlined fast path.

use bytes::BufMut;

use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::field::context::Cx;
use crate::field::prefix::{empty_prefix, null_error, prefix_size, put_sized, read_prefix, Prefix};
use crate::field::traits::{Field, FieldHooks, NullableField, Sealed, VecBuf};
use crate::meta::KafkaType;
use crate::types::Str;
use crate::Reader;

/// Reads a string. The common cases (a compact length in one byte or a classic int16 length,
/// the string in the input) take an inlined fast path; anything else, errors included,
/// starts again from the prefix in [`read_str_slow`], which reports them.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn read_str(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Str>, DecodeError> {
    if cx.compact {
        if r.eat(0) {
            return Ok(None);
        }
        if let Some((s, rest)) = r.peek_short_compact() {
            if let Some(s) = fast_str(r, s, rest) {
                r.skip_to(rest);
                return Ok(Some(s));
            }
        }
    } else if let Some((s, rest)) = r.peek_classic_str() {
        // The classic form (int16 length) of every non-flexible version.
        match s {
            None => {
                r.skip_to(rest);
                return Ok(None);
            }
            Some(s) => {
                if let Some(s) = fast_str(r, s, rest) {
                    r.skip_to(rest);
                    return Ok(Some(s));
                }
            }
        }
    }
    read_str_slow(r, cx)
}

/// `s`, a slice of the reader's input just before `rest`, as a [`Str`]: copied inline when
/// short, as [`FixedArray`](crate::FixedArray)s are, by one fixed-size copy of whole words
/// ([`Reader::small_before`]), else sharing the input. (Wave 8's inline strings, built from
/// narrow stores that the struct's move read back as words, decoded slower than shared ones.)
/// `None` when it is over the length limit, or not UTF-8 under
/// [`DecodeLimits::strict_utf8`](crate::DecodeLimits::strict_utf8), for the slow path to read
/// again and report. UTF-8 is not checked otherwise, as in Kafka's Java decoder: [`Str`]
/// checks it when read (TxnOffsetCommit v5 1x5000, 200-byte strings: decode 1.27M -> 832K
/// instructions).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn fast_str(r: &Reader<'_>, s: &[u8], rest: &[u8]) -> Option<Str> {
    // The empty string needs no reference to the buffer, and passes every limit.
    if s.is_empty() {
        return Some(Str::new());
    }
    // Over the length limit, or any string under strict UTF-8 (its limit here is 0).
    if s.len() > r.limits.fast_str_len() {
        return None;
    }
    Some(Str::from_small(r.small_before(rest, s.len())))
}

#[inline(never)]
fn read_str_slow(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Str>, DecodeError> {
    let Some(len) = read_prefix(r, Prefix::I16, cx.compact)? else {
        return Ok(None);
    };
    let data_at = r.position();
    let bytes = r.read_slice(len)?;
    if r.limits.utf8_checked() {
        if let Err(e) = core::str::from_utf8(bytes) {
            return Err(DecodeError::new(DecodeErrorKind::InvalidUtf8(e), data_at));
        }
    }
    Ok(Some(Str::from_small(r.small_before(r.rest(), len))))
}

/// A decoded string as a Rust `String`, which cannot hold bytes that are not UTF-8: those
/// are an error at the string's first byte (`r` is just past it), whatever the limits say.
/// Fails with `InvalidUtf8` at the string's first byte when `s`, just read, is not UTF-8
/// (the check of [`utf8_string`], for the metadata-driven readers).
#[cfg(feature = "json")]
pub(crate) fn check_utf8(r: &Reader<'_>, s: &Str) -> Result<(), DecodeError> {
    match s.to_str() {
        Ok(_) => Ok(()),
        Err(e) => Err(DecodeError::new(
            DecodeErrorKind::InvalidUtf8(e),
            r.position().saturating_sub(s.len()),
        )),
    }
}

fn utf8_string(r: &Reader<'_>, s: Str) -> Result<String, DecodeError> {
    match s.to_str() {
        Ok(t) => Ok(t.to_owned()),
        Err(e) => Err(DecodeError::new(
            DecodeErrorKind::InvalidUtf8(e),
            r.position().saturating_sub(s.len()),
        )),
    }
}

impl FieldHooks for Str {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_vec<V: VecBuf + ?Sized>(
        &self,
        buf: &mut V,
        cx: Cx,
        t: Sealed,
    ) -> Result<(), EncodeError> {
        Self::write_nullable_vec(Some(self), buf, cx, t)
    }
    /// A short (inline) string as one fixed-size copy of its storage, the length byte
    /// replaced by the prefix, then the vector truncated (see `SmallBytes::put_inline_str`);
    /// every other string as `write_nullable`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_nullable_vec<V: VecBuf + ?Sized>(
        v: Option<&Self>,
        buf: &mut V,
        cx: Cx,
        _: Sealed,
    ) -> Result<(), EncodeError> {
        if let Some(s) = v {
            if s.small().put_inline_str(buf.vec(), cx.compact) {
                return Ok(());
            }
        }
        Self::write_nullable(v, buf, cx)
    }
}

impl Field for Str {
    const KAFKA_TYPE: KafkaType = KafkaType::String;
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        Self::write_nullable(Some(self), buf, cx)
    }
    #[inline]
    fn size(&self, cx: Cx) -> usize {
        Self::size_nullable(Some(self), cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        let at = r.position();
        read_str(r, cx)?.ok_or_else(|| null_error(cx, at))
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I16, cx.compact)
    }
}

impl NullableField for Str {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        put_sized(buf, Prefix::I16, v.map(|s| s.as_bytes()), cx.compact)
    }
    #[inline]
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        let len = v.map(|s| s.len());
        prefix_size(Prefix::I16, len, cx.compact) + len.unwrap_or(0)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        read_str(r, cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I16, cx.compact)
    }
}

impl FieldHooks for String {
    const UTF8_REQUIRED: bool = true;
}

impl Field for String {
    const KAFKA_TYPE: KafkaType = KafkaType::String;
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        Self::write_nullable(Some(self), buf, cx)
    }
    fn size(&self, cx: Cx) -> usize {
        Self::size_nullable(Some(self), cx)
    }
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        let s = Str::read(r, cx)?;
        utf8_string(r, s)
    }
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I16, cx.compact)
    }
    /// The string is copied: one byte per byte.
    fn alloc_ratio(_cx: Cx) -> usize {
        1
    }
}

impl NullableField for String {
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        put_sized(buf, Prefix::I16, v.map(|s| s.as_bytes()), cx.compact)
    }
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        let len = v.map(|s| s.len());
        prefix_size(Prefix::I16, len, cx.compact) + len.unwrap_or(0)
    }
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        match read_str(r, cx)? {
            Some(s) => utf8_string(r, s).map(Some),
            None => Ok(None),
        }
    }
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I16, cx.compact)
    }
}
