//! A bounds-checked cursor over a shared buffer: every read either succeeds or returns a
//! [`DecodeError`] carrying the byte offset; strings and bytes are sliced, not copied.

use bytes::Bytes;

use crate::error::{DecodeError, DecodeErrorKind};
use crate::limits::DecodeLimits;
use crate::small::{SmallBytes, INLINE_CAP};

/// The error for a value above a configured limit.
#[cold]
pub(crate) fn limit_error(limit: crate::Limit, value: usize, max: usize, at: usize) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::LimitExceeded {
            limit,
            value: value as u64,
            max: max as u64,
        },
        at,
    )
}

/// A cursor over a [`Bytes`] buffer. Offsets in errors count from the start of that buffer.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a Bytes,
    /// The bytes not read yet: the tail of `buf`. Keeping the tail (rather than a position)
    /// makes each read a single length check.
    rest: &'a [u8],
    /// Bytes at the end of the input already spoken for: the fewest bytes that the elements
    /// still to come of the arrays (and tagged sections) being read need. An array checks its
    /// own elements' minimum against what is left after these, so nested counts cannot all
    /// claim the same bytes.
    pub(crate) claimed: usize,
    /// The configured limits (see [`DecodeLimits`]).
    pub(crate) limits: &'a DecodeLimits,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a Bytes) -> Self {
        Reader {
            buf,
            rest: buf.as_ref(),
            claimed: 0,
            limits: &DecodeLimits::DEFAULT,
        }
    }

    /// A reader at byte `pos` of `buf` (a position past the end reads as truncated).
    pub fn at(buf: &'a Bytes, pos: usize) -> Self {
        let data: &'a [u8] = buf.as_ref();
        Reader {
            buf,
            rest: data.get(pos..).unwrap_or_default(),
            claimed: 0,
            limits: &DecodeLimits::DEFAULT,
        }
    }

    /// A reader at the start of `buf` that enforces `limits`.
    pub fn with_limits(buf: &'a Bytes, limits: &'a DecodeLimits) -> Self {
        Reader {
            limits,
            ..Reader::new(buf)
        }
    }

    /// The same reader, enforcing `limits` from here on.
    pub fn limited(self, limits: &'a DecodeLimits) -> Self {
        Reader { limits, ..self }
    }

    /// The limits this reader enforces.
    pub fn limits(&self) -> &'a DecodeLimits {
        self.limits
    }

    /// Fails with `LimitExceeded` at byte `at` if `value` is above `max`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn check_limit(
        &self,
        limit: crate::Limit,
        value: usize,
        max: usize,
        at: usize,
    ) -> Result<(), DecodeError> {
        if value > max {
            return Err(limit_error(limit, value, max, at));
        }
        Ok(())
    }

    /// The current byte offset from the start of the buffer.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn position(&self) -> usize {
        self.buf.len() - self.rest.len()
    }

    /// Bytes left to read.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// Bytes left that no enclosing array's later elements need (see `claimed`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn unclaimed(&self) -> usize {
        self.rest.len().saturating_sub(self.claimed)
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// An error of `kind` at the current position.
    #[cold]
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.position())
    }

    #[cold]
    fn truncated(&self, needed: usize) -> DecodeError {
        self.error(DecodeErrorKind::Truncated {
            needed,
            available: self.remaining(),
        })
    }

    /// Reads `N` bytes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        match self.rest.split_first_chunk::<N>() {
            Some((a, rest)) => {
                self.rest = rest;
                Ok(*a)
            }
            None => Err(self.truncated(N)),
        }
    }

    /// Reads one byte.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_u8(&mut self) -> Result<u8, DecodeError> {
        match self.rest.split_first() {
            Some((&b, rest)) => {
                self.rest = rest;
                Ok(b)
            }
            None => Err(self.truncated(1)),
        }
    }

    /// Reads a big-endian `i8`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_i8(&mut self) -> Result<i8, DecodeError> {
        self.read_array().map(i8::from_be_bytes)
    }
    /// Reads a big-endian `i16`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_i16(&mut self) -> Result<i16, DecodeError> {
        self.read_array().map(i16::from_be_bytes)
    }
    /// Reads a big-endian `u16`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_u16(&mut self) -> Result<u16, DecodeError> {
        self.read_array().map(u16::from_be_bytes)
    }
    /// Reads a big-endian `i32`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_i32(&mut self) -> Result<i32, DecodeError> {
        self.read_array().map(i32::from_be_bytes)
    }
    /// Reads a big-endian `u32`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_u32(&mut self) -> Result<u32, DecodeError> {
        self.read_array().map(u32::from_be_bytes)
    }
    /// Reads a big-endian `i64`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_i64(&mut self) -> Result<i64, DecodeError> {
        self.read_array().map(i64::from_be_bytes)
    }
    /// Reads a big-endian IEEE-754 `f64`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_f64(&mut self) -> Result<f64, DecodeError> {
        self.read_array().map(f64::from_be_bytes)
    }

    /// Reads an unsigned LEB128 varint of at most 5 bytes (Kafka's `readUnsignedVarint`).
    ///
    /// A 5th byte with the continuation bit set is an error, as in Kafka. Unlike Kafka,
    /// non-minimal forms and bits above bit 31 are errors too, so that whatever decodes
    /// re-encodes to the same bytes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub fn read_uvarint(&mut self) -> Result<u32, DecodeError> {
        // Fast path, inlined: the single-byte form is by far the most common (lengths,
        // counts, tags). Everything else is out of line.
        if let Some((&b, rest)) = self.rest.split_first() {
            if b & 0x80 == 0 {
                self.rest = rest;
                return Ok(u32::from(b));
            }
        }
        self.read_uvarint_slow()
    }

    #[inline(never)]
    fn read_uvarint_slow(&mut self) -> Result<u32, DecodeError> {
        let (v, n) =
            crate::primitives::uvarint_at(self.rest).map_err(|e| self.varint_error(e, 5))?;
        // A zero last byte (non-minimal form) or bits above bit 31 would not re-encode to
        // the same bytes; Kafka never writes either.
        self.canonical(n, n == 5 && self.rest.get(4).is_some_and(|&b| b > 0x0f))?;
        Ok(v)
    }

    /// Reads an unsigned LEB128 varlong of at most 10 bytes.
    pub fn read_uvarlong(&mut self) -> Result<u64, DecodeError> {
        let (v, n) =
            crate::primitives::uvarlong_at(self.rest).map_err(|e| self.varint_error(e, 10))?;
        self.canonical(n, n == 10 && self.rest.get(9).is_some_and(|&b| b > 0x01))?;
        Ok(v)
    }

    /// The error of a varint that the shared readers of `primitives` could not read from
    /// here (nothing consumed): the byte after the input's end missing, or too long a form.
    #[cold]
    fn varint_error(&self, e: crate::primitives::VarintError, max_bytes: u8) -> DecodeError {
        match e {
            crate::primitives::VarintError::Eof => DecodeError::new(
                DecodeErrorKind::Truncated {
                    needed: 1,
                    available: 0,
                },
                self.position(),
            ),
            crate::primitives::VarintError::TooLong => {
                self.error(DecodeErrorKind::VarintTooLong { max_bytes })
            }
        }
    }

    /// Consumes the `n` bytes of a varint just read, unless its form is not the shortest (a
    /// zero last byte) or `high_bits` (bits beyond its type in the last byte) says so.
    fn canonical(&mut self, n: usize, high_bits: bool) -> Result<(), DecodeError> {
        let zero_last = n > 1 && self.rest.get(n - 1) == Some(&0);
        if zero_last || high_bits {
            return Err(self.error(DecodeErrorKind::NonCanonicalVarint));
        }
        self.rest = self.rest.get(n..).unwrap_or_default();
        Ok(())
    }

    /// Reads a zigzag-encoded signed varint (records only).
    pub fn read_varint(&mut self) -> Result<i32, DecodeError> {
        let u = self.read_uvarint()?;
        Ok(crate::primitives::unzigzag32(u))
    }

    /// Reads a zigzag-encoded signed varlong (records only).
    pub fn read_varlong(&mut self) -> Result<i64, DecodeError> {
        let u = self.read_uvarlong()?;
        Ok(crate::primitives::unzigzag64(u))
    }

    /// Consumes the next byte if it is `b`; leaves the reader unchanged otherwise.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn eat(&mut self, b: u8) -> bool {
        match self.rest.split_first() {
            Some((&x, rest)) if x == b => {
                self.rest = rest;
                true
            }
            _ => false,
        }
    }

    /// A compact string or bytes of fewer than 16,383 bytes, in the input: the length
    /// prefix (`n + 1` as an unsigned varint of one byte, 1..=0x7f, or of two bytes in the
    /// canonical form, whose last byte is 1..=0x7f) and the `n` bytes after it, with the
    /// input after them (for [`skip_to`](Self::skip_to)). Nothing is consumed; `None` for
    /// anything else (null, a longer or non-canonical prefix, a short input), which the
    /// caller reads the long way. Two-byte prefixes (127 to 16,382 bytes) took the general
    /// varint reader and the slow string path: TxnOffsetCommit v5 1x5000 with 200-byte
    /// metadata decoded in 2.28M instructions, 456 per partition, before this.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn peek_short_compact(&self) -> Option<(&'a [u8], &'a [u8])> {
        match *self.rest {
            [b @ 1..=0x7f, ref rest @ ..] => rest.split_at_checked(usize::from(b) - 1),
            [b0 @ 0x80..=0xff, b1 @ 1..=0x7f, ref rest @ ..] => {
                let n = usize::from(b0 & 0x7f) | usize::from(b1) << 7;
                rest.split_at_checked(n - 1)
            }
            _ => None,
        }
    }

    /// An array's element count, consumed when it is the common form: a compact count of
    /// one byte (0 to 126 elements) or a classic int32 that is not negative, no larger than
    /// the bytes left after it (every element takes at least one byte) nor the array limit.
    /// `None`, nothing consumed, for anything else (null, a longer varint, a short input, a
    /// count too large), which the caller reads the long way for its error.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn take_array_count(&mut self, compact: bool) -> Option<usize> {
        let (n, rest) = if compact {
            match *self.rest {
                [b @ 1..=0x7f, ref rest @ ..] => (usize::from(b) - 1, rest),
                _ => return None,
            }
        } else {
            let (len, rest) = self.rest.split_first_chunk::<4>()?;
            (usize::try_from(i32::from_be_bytes(*len)).ok()?, rest)
        };
        if n > rest.len() || n > self.limits.array_len() {
            return None;
        }
        self.rest = rest;
        Some(n)
    }

    /// A classic (int16-length) string in the input: its bytes (`None` for the null marker,
    /// -1) and the input after it. Nothing is consumed; `None` for anything else (a short
    /// input, a length below -1 or past the input), which the caller reads the long way.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn peek_classic_str(&self) -> Option<(Option<&'a [u8]>, &'a [u8])> {
        let (len, rest) = self.rest.split_first_chunk::<2>()?;
        match i16::from_be_bytes(*len) {
            -1 => Some((None, rest)),
            n if n < 0 => None,
            n => rest
                .split_at_checked(n as usize)
                .map(|(s, rest)| (Some(s), rest)),
        }
    }

    /// The unread input (for [`Reader::small_before`] after a read).
    #[inline]
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// A classic (int32-length) `bytes` value in the input that is not null: its bytes and the
    /// input after it. Nothing is consumed; `None` for anything else (null, a negative length,
    /// a short input), which the caller reads the long way.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn peek_classic_bytes(&self) -> Option<(&'a [u8], &'a [u8])> {
        let (len, rest) = self.rest.split_first_chunk::<4>()?;
        let n = usize::try_from(i32::from_be_bytes(*len)).ok()?;
        rest.split_at_checked(n)
    }

    /// Moves on to `rest`, a tail of the unread input (from a `peek_*`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn skip_to(&mut self, rest: &'a [u8]) {
        debug_assert!(rest.len() <= self.rest.len());
        self.rest = rest;
    }

    /// The `len` bytes just before `rest` (a tail of the input, from a `peek_*`), as a
    /// zero-copy [`Bytes`]. By offsets rather than `Bytes::slice_ref`, which is not inlined
    /// and checks that the slice lies in the buffer (TxnOffsetCommit v5 100x100 with
    /// metadata "m": decode 2.22M -> 2.07M instructions).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn share_before(&self, rest: &[u8], len: usize) -> Bytes {
        let end = self.buf.len().saturating_sub(rest.len());
        self.buf.slice(end.saturating_sub(len)..end)
    }

    /// The `len` bytes just before `rest` (a tail of the input, from a `peek_*`), copied
    /// inline when they are short and shared ([`Reader::share_before`]) otherwise: a short
    /// value then costs no reference count on the buffer, taking it or dropping it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn small_before(&self, rest: &[u8], len: usize) -> SmallBytes {
        if len > INLINE_CAP {
            return SmallBytes::Shared(self.share_before(rest, len));
        }
        let end = self.buf.len().saturating_sub(rest.len());
        let start = end.saturating_sub(len);
        // From the byte before the value (its length prefix's last byte): the inline form
        // keeps the length in that place.
        let window = match start.checked_sub(1) {
            Some(before) => self.buf.get(before..).unwrap_or_default(),
            None => &[],
        };
        match window.first_chunk::<{ INLINE_CAP + 1 }>() {
            // A fixed-size copy (whole words) of the value and whatever is around it.
            Some(window) => SmallBytes::inline_window(window, len),
            // Within the input's last bytes (or at its first): copy exactly the value.
            None => SmallBytes::inline(self.buf.get(start..end).unwrap_or_default())
                .unwrap_or(SmallBytes::EMPTY),
        }
    }

    /// Takes the next `len` bytes as a [`SmallBytes`] (inline when short, else shared), or
    /// `None` (nothing consumed) when fewer are left.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn read_small_opt(&mut self, len: usize) -> Option<SmallBytes> {
        let (_, rest) = self.rest.split_at_checked(len)?;
        let b = self.small_before(rest, len);
        self.rest = rest;
        Some(b)
    }

    /// Takes the next `len` bytes, or `None` (nothing consumed) when fewer are left.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) fn read_slice_opt(&mut self, len: usize) -> Option<&'a [u8]> {
        let (s, rest) = self.rest.split_at_checked(len)?;
        self.rest = rest;
        Some(s)
    }

    /// Takes the next `len` bytes as a borrowed slice.
    #[inline]
    pub fn read_slice(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        match self.rest.split_at_checked(len) {
            Some((s, rest)) => {
                self.rest = rest;
                Ok(s)
            }
            None => Err(self.error(DecodeErrorKind::LengthExceedsInput {
                declared: len as u64,
                remaining: self.remaining(),
            })),
        }
    }

    /// Takes the next `len` bytes as a zero-copy [`Bytes`] sharing the input buffer.
    #[inline]
    pub fn read_bytes(&mut self, len: usize) -> Result<Bytes, DecodeError> {
        if len == 0 {
            return Ok(Bytes::new());
        }
        let start = self.position();
        self.read_slice(len)?;
        Ok(self.buf.slice(start..start + len))
    }
}
