//! Length prefixes: compact (a uvarint of length + 1) or classic (int16 for strings, int32
//! for bytes, records and arrays), null through a length, each checked against its maximum
//! and the decode limits.

use bytes::BufMut;

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::field::context::Cx;
use crate::limits::{Limit, MAX_STRING_LEN};
use crate::primitives::{put_uvarint, uvarint_size};
use crate::Reader;

/// Which classic prefix a length-prefixed type uses.
#[derive(Clone, Copy)]
pub(crate) enum Prefix {
    /// int16 (strings).
    I16,
    /// int32 (bytes, records, arrays).
    I32,
}

#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn prefix_size(p: Prefix, len: Option<usize>, compact: bool) -> usize {
    if compact {
        match len {
            None => 1,
            // A branch the predictor nearly always gets right, where the branch-free
            // formula is a chain of five dependent instructions per prefix.
            Some(n) if n < 0x7f => 1,
            Some(n) => {
                core::hint::cold_path();
                uvarint_size((n as u32).wrapping_add(1))
            }
        }
    } else {
        match p {
            Prefix::I16 => 2,
            Prefix::I32 => 4,
        }
    }
}

/// The size of an empty (or null) value's prefix: the fewest bytes a length-prefixed value
/// takes.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) const fn empty_prefix(p: Prefix, compact: bool) -> usize {
    match (compact, p) {
        (true, _) => 1,
        (false, Prefix::I16) => 2,
        (false, Prefix::I32) => 4,
    }
}

/// Writes the length prefix of a value of `n` bytes or elements in the forms nearly every
/// value takes, and returns `true`: a compact length in one varint byte, or in two (up to
/// 16,382: a 200-byte metadata string, a record batch) when `two_bytes`, or a classic
/// int16/int32 within its maximum. Anything else returns `false` with nothing written, for
/// the caller's cold path to write with [`put_prefix`] (longer compact lengths; lengths over
/// the maximum, which fail): so the writer of each string, bytes and array type holds only
/// this, inline. (The two-byte form went through the cold call until wave 11: its call,
/// with six registers saved, cost more than the rest of a 200-byte string's write.)
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn put_len_fast<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    n: usize,
    compact: bool,
    two_bytes: bool,
) -> bool {
    if compact {
        if n < 0x7f {
            buf.put_u8(n as u8 + 1);
            return true;
        }
        if two_bytes && n < 0x3fff {
            // uvarint(n + 1) in two bytes: n + 1 is 128 to 16,383.
            let v = n + 1;
            buf.put_slice(&[(v as u8) | 0x80, (v >> 7) as u8]);
            return true;
        }
    } else {
        match p {
            Prefix::I16 if n <= MAX_STRING_LEN => {
                buf.put_i16(n as i16);
                return true;
            }
            Prefix::I32 if n <= i32::MAX as usize => {
                buf.put_i32(n as i32);
                return true;
            }
            _ => {}
        }
    }
    false
}

/// Writes the length prefix of a value of `n` bytes or elements: [`put_len_fast`] inline,
/// else one cold call.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn put_len<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    n: usize,
    compact: bool,
) -> Result<(), EncodeError> {
    // Arrays keep the two-byte compact count out of line: inline, the extra branch in every
    // array writer cost the element loops a register (InitializeShareGroupState 100x100
    // encode +9.6%), and arrays of 127 elements or more are rarer than such strings.
    if put_len_fast(buf, p, n, compact, false) {
        return Ok(());
    }
    put_prefix_cold(buf, p, Some(n), compact)
}

/// A string or bytes value: prefix and contents, the common forms inline (see
/// [`put_len_fast`]). The fast path returns straight after its copy; everything else
/// (null, long compact lengths, too long) is one cold call that writes the whole value, so
/// no code after a slow prefix is shared with the fast path (with the copy after a
/// `put_len(..)?`, TxnOffsetCommit v5 encodes took 1.4% more instructions).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(super) fn put_sized<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    v: Option<&[u8]>,
    compact: bool,
) -> Result<(), EncodeError> {
    if let Some(b) = v {
        if put_len_fast(buf, p, b.len(), compact, true) {
            buf.put_slice(b);
            return Ok(());
        }
    }
    put_sized_slow(buf, p, v, compact)
}

/// The rest of [`put_sized`], cold: null, compact values of 16,383 bytes or more, and
/// lengths over the maximum (which fail).
#[cold]
#[inline(never)]
fn put_sized_slow<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    v: Option<&[u8]>,
    compact: bool,
) -> Result<(), EncodeError> {
    put_prefix(buf, p, v.map(<[u8]>::len), compact)?;
    if let Some(b) = v {
        buf.put_slice(b);
    }
    Ok(())
}

/// [`put_prefix`] out of line and cold: the rest of [`put_len`], and null arrays, so that
/// the loops around an array write keep their registers.
#[cold]
#[inline(never)]
fn put_prefix_cold<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    len: Option<usize>,
    compact: bool,
) -> Result<(), EncodeError> {
    put_prefix(buf, p, len, compact)
}

/// Any length prefix, checked against its maximum (`None`: null). Always inline: its
/// callers are the cold paths, into which LLVM does not inline a plain hint (a call per
/// 200-byte compact string, TxnOffsetCommit 1x5000 encode 765K -> 835K instructions).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(super) fn put_prefix<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    len: Option<usize>,
    compact: bool,
) -> Result<(), EncodeError> {
    let max = match p {
        Prefix::I16 => MAX_STRING_LEN,
        // Compact lengths are uvarint(n + 1) read into a Java int: n + 1 must stay below 2^31.
        Prefix::I32 => i32::MAX as usize - usize::from(compact),
    };
    match len {
        Some(n) if n > max => Err(EncodeError::new(match p {
            Prefix::I16 => EncodeErrorKind::StringTooLong(n),
            Prefix::I32 => EncodeErrorKind::LengthTooLarge(n),
        })),
        // uvarint(n + 1) in two bytes, written here rather than by the general varint
        // writer's loop: compact strings of 127 to 16,382 bytes come here, as do arrays of
        // that many elements. The range is part of the pattern: a shorter length (a caller
        // that skipped `put_len_fast`) takes the general writer's canonical single byte.
        Some(n @ 0x7f..0x3fff) if compact => {
            let v = n + 1;
            buf.put_slice(&[(v as u8 & 0x7f) | 0x80, (v >> 7) as u8]);
            Ok(())
        }
        _ if compact => {
            put_uvarint(buf, len.map_or(0, |n| n as u32 + 1));
            Ok(())
        }
        Some(n) => {
            match p {
                Prefix::I16 => buf.put_i16(n as i16),
                Prefix::I32 => buf.put_i32(n as i32),
            }
            Ok(())
        }
        None => {
            match p {
                Prefix::I16 => buf.put_i16(-1),
                Prefix::I32 => buf.put_i32(-1),
            }
            Ok(())
        }
    }
}

/// Writes an array's length prefix (`None`: null), checked against its maximum, for
/// arrays in `dynamic` (the generated code's `Vec<T>` takes the same
/// [`put_len`] and [`put_prefix`]).
#[cfg(feature = "json")]
#[inline]
pub(crate) fn put_array_prefix<B: BufMut + ?Sized>(
    buf: &mut B,
    len: Option<usize>,
    compact: bool,
) -> Result<(), EncodeError> {
    match len {
        Some(n) => put_len(buf, Prefix::I32, n, compact),
        None => put_prefix(buf, Prefix::I32, None, compact),
    }
}

/// A null prefix (length -1 in the classic form, 0 in the compact one), cold.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn put_null<B: BufMut + ?Sized>(
    buf: &mut B,
    p: Prefix,
    compact: bool,
) -> Result<(), EncodeError> {
    put_prefix_cold(buf, p, None, compact)
}

/// Reads an array's element count (`None`: null), checked against the input and the
/// configured array limit: the one function for array prefixes in the generated code
/// (through `Vec<T>`), the metadata-driven codec and [`Reader::read_array_len`].
#[inline]
pub(crate) fn read_array_prefix(
    r: &mut Reader<'_>,
    compact: bool,
) -> Result<Option<usize>, DecodeError> {
    let at = r.position();
    let Some(n) = read_prefix(r, Prefix::I32, compact)? else {
        return Ok(None);
    };
    r.check_limit(Limit::ArrayLen, n, r.limits.array_len(), at)?;
    Ok(Some(n))
}

/// Reads a length prefix; `None` is Kafka's null marker. Lengths below -1 are errors, and so
/// is a length larger than what remains (checked before anything is allocated).
///
/// Always inline: its few callers pass `p` and `compact` as constants or straight from the
/// context, and out of line it cost a call on every string (TxnOffsetCommit v5 1x5000
/// decode: +7% instructions when the array readers' inlining changed).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(super) fn read_prefix(
    r: &mut Reader<'_>,
    p: Prefix,
    compact: bool,
) -> Result<Option<usize>, DecodeError> {
    let start = r.position();
    let len: i64 = if compact {
        match r.read_uvarint()? {
            0 => return Ok(None),
            n => i64::from(n) - 1,
        }
    } else {
        match p {
            Prefix::I16 => i64::from(r.read_i16()?),
            Prefix::I32 => i64::from(r.read_i32()?),
        }
    };
    if len == -1 && !compact {
        return Ok(None);
    }
    if len < 0 {
        return Err(DecodeError::new(
            DecodeErrorKind::NegativeLength(len),
            start,
        ));
    }
    if matches!(p, Prefix::I16) && len as u64 > MAX_STRING_LEN as u64 {
        return Err(DecodeError::new(
            DecodeErrorKind::StringTooLong(len as u64),
            start,
        ));
    }
    if matches!(p, Prefix::I16) {
        r.check_limit(Limit::StringLen, len as usize, r.limits.string_len(), start)?;
    }
    if len as u64 > r.remaining() as u64 {
        return Err(DecodeError::new(
            DecodeErrorKind::LengthExceedsInput {
                declared: len as u64,
                remaining: r.remaining(),
            },
            start,
        ));
    }
    Ok(Some(len as usize))
}

#[inline]
pub(crate) fn null_error(cx: Cx, at: usize) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnexpectedNull {
            version: cx.version,
        },
        at,
    )
}
