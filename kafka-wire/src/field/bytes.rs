//! `bytes` and `records` values: shared slices of the input, referenced rather than copied
//! by a vectored encode.

use bytes::{BufMut, Bytes};

use crate::error::{DecodeError, EncodeError};
use crate::field::context::Cx;
use crate::field::prefix::{
    empty_prefix, null_error, prefix_size, put_len, put_sized, read_prefix, Prefix,
};
use crate::field::traits::{Field, FieldHooks, NullableField};
use crate::limits::Limit;
use crate::meta::KafkaType;
use crate::types::Records;
use crate::vectored::VECTORED_MIN;
use crate::Reader;

impl FieldHooks for Bytes {}

impl Field for Bytes {
    const KAFKA_TYPE: KafkaType = KafkaType::Bytes;
    #[inline]
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
        Self::read_nullable(r, cx)?.ok_or_else(|| null_error(cx, at))
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
}

impl NullableField for Bytes {
    #[inline]
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        if let Some(b) = v {
            // A long value written into the head of a vectored encode is referenced, not
            // copied (see `vectored`); one comparison for every other long value.
            if b.len() >= VECTORED_MIN && crate::vectored::is_target(buf) {
                return put_referenced(buf, b, cx.compact);
            }
        }
        put_sized(buf, Prefix::I32, v.map(|b| &b[..]), cx.compact)
    }
    #[inline]
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        let len = v.map(|b| b.len());
        prefix_size(Prefix::I32, len, cx.compact) + len.unwrap_or(0)
    }
    // The common cases inlined into the struct's read (a compact length in one or two bytes,
    // up to 16 KiB: a record batch; a classic int32 length of a value in the input), the rest
    // in `read_bytes_slow`. Out of line, the caller read the returned `Bytes` back in 16-byte
    // loads over the callee's 8-byte stores, a store-forwarding stall per value: Produce v12
    // decode took 0.8 us in release against 0.4 us in bench-lto, where it was inlined.
    // Either path only moves the reader past the value and gives its length; the value is
    // made in one place after them, so that no `Bytes` from two paths meets in stack slots
    // that are copied before the struct takes it (Produce: about 25 instructions per record
    // set, eleventh wave).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        let peeked = if cx.compact {
            r.peek_short_compact()
        } else {
            r.peek_classic_bytes()
        };
        let len = match peeked {
            Some((s, rest)) if s.len() <= r.limits.bytes_len() => {
                r.skip_to(rest);
                Some(s.len())
            }
            _ => read_bytes_slow(r, cx)?,
        };
        Ok(len.map(|n| match n {
            0 => Bytes::new(),
            n => r.share_before(r.rest(), n),
        }))
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
}

/// A `bytes` value the inlined reader does not take (null, long, over the limit, a bad
/// length): read from its prefix, errors reported; the reader is left after the value and
/// its length returned (`None`: null), for the caller to take the bytes before it.
#[inline(never)]
fn read_bytes_slow(r: &mut Reader<'_>, cx: Cx) -> Result<Option<usize>, DecodeError> {
    let at = r.position();
    match read_prefix(r, Prefix::I32, cx.compact)? {
        None => Ok(None),
        Some(n) => {
            r.check_limit(Limit::BytesLen, n, r.limits.bytes_len(), at)?;
            r.read_slice(n)?;
            Ok(Some(n))
        }
    }
}

/// A `bytes` value in a vectored encode: its length prefix written, the value recorded at
/// the position after it (see [`crate::vectored::Vectored`]).
#[inline(never)]
fn put_referenced<B: BufMut + ?Sized>(
    buf: &mut B,
    b: &Bytes,
    compact: bool,
) -> Result<(), EncodeError> {
    put_len(buf, Prefix::I32, b.len(), compact)?;
    crate::vectored::refer(buf.remaining_mut(), b);
    Ok(())
}

impl FieldHooks for Records {}

impl Field for Records {
    const KAFKA_TYPE: KafkaType = KafkaType::Records;
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        self.0.write(buf, cx)
    }
    fn size(&self, cx: Cx) -> usize {
        self.0.size(cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        Bytes::read(r, cx).map(Records)
    }
    fn min_size(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
}

impl NullableField for Records {
    fn write_nullable<B: BufMut + ?Sized>(
        v: Option<&Self>,
        buf: &mut B,
        cx: Cx,
    ) -> Result<(), EncodeError> {
        Bytes::write_nullable(v.map(|r| &r.0), buf, cx)
    }
    fn size_nullable(v: Option<&Self>, cx: Cx) -> usize {
        Bytes::size_nullable(v.map(|r| &r.0), cx)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn read_nullable(r: &mut Reader<'_>, cx: Cx) -> Result<Option<Self>, DecodeError> {
        Ok(Bytes::read_nullable(r, cx)?.map(Records))
    }
    fn min_size_nullable(cx: Cx) -> usize {
        empty_prefix(Prefix::I32, cx.compact)
    }
}
