//! Configurable decode limits: how large a frame, a string, a bytes value, an array and a
//! struct's unknown tagged fields may be before decoding stops with
//! [`DecodeErrorKind::LimitExceeded`](crate::DecodeErrorKind::LimitExceeded), which names the
//! limit, with the offset and field path of the value.
//!
//! The defaults are Kafka's own bounds: a 100 MiB frame (`socket.request.max.bytes`), 32767
//! bytes of string, and no tighter bound than the input itself for the rest. Where Kafka's
//! generated readers (4.x) bound the rest by the input, these are at least as strict: Kafka
//! refuses an array count above the bytes remaining ("Tried to allocate a collection of size
//! ..."), this crate one above what the remaining bytes could hold at the element's smallest
//! size; Kafka reads a tagged section's count without a check and grows its list of unknown
//! fields one by one, this crate refuses a count above half the remaining bytes (an entry
//! takes two at least) and reserves no more entries than they could hold; bytes and strings
//! are bounded by the remaining bytes in both. A server that knows its traffic can be
//! stricter:
//!
//! ```
//! use kafka_wire::{DecodeLimits, Reader, Bytes, Field, Cx, DecodeErrorKind, Limit};
//!
//! let limits = DecodeLimits::new().max_array_len(2);
//! let input = Bytes::from_static(&[0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]);
//! let mut r = Reader::with_limits(&input, &limits);
//! let e = <Vec<i32> as Field>::read(&mut r, Cx::new(0)).unwrap_err();
//! assert_eq!(e.kind(), &DecodeErrorKind::LimitExceeded { limit: Limit::ArrayLen, value: 3, max: 2 });
//! assert_eq!(e.offset(), 0);
//! ```

use core::fmt;

/// Kafka's default maximum frame size (`socket.request.max.bytes`, 100 MiB).
pub const DEFAULT_MAX_FRAME_SIZE: usize = 100 * 1024 * 1024;

/// Kafka's limit on string length in both encodings (Java's `MessageDataGenerator` checks it on write).
pub const MAX_STRING_LEN: usize = 0x7fff;

/// Which limit of [`DecodeLimits`] a value exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// [`DecodeLimits::max_frame_size`].
    FrameSize,
    /// [`DecodeLimits::max_string_len`].
    StringLen,
    /// [`DecodeLimits::max_bytes_len`].
    BytesLen,
    /// [`DecodeLimits::max_array_len`].
    ArrayLen,
    /// [`DecodeLimits::max_unknown_tagged_fields`].
    UnknownTaggedFields,
    /// [`DecodeLimits::max_unknown_tagged_bytes`].
    UnknownTaggedBytes,
    /// [`DecodeLimits::max_decompressed_batch`].
    DecompressedBatch,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::FrameSize => "max_frame_size",
            Limit::StringLen => "max_string_len",
            Limit::BytesLen => "max_bytes_len",
            Limit::ArrayLen => "max_array_len",
            Limit::UnknownTaggedFields => "max_unknown_tagged_fields",
            Limit::UnknownTaggedBytes => "max_unknown_tagged_bytes",
            Limit::DecompressedBatch => "max_decompressed_batch",
        })
    }
}

/// The default of [`DecodeLimits::max_decompressed_batch`]: 64 MiB.
pub const DEFAULT_MAX_DECOMPRESSED_BATCH: usize = 64 * 1024 * 1024;

/// Limits on what a decode accepts, on top of what the input can hold. Build with
/// [`DecodeLimits::new`] (the defaults) and the setters; give them to a [`Reader`](crate::Reader)
/// ([`Reader::with_limits`](crate::Reader::with_limits)), to every frame decoder and to
/// [`frame::read_frame`](crate::frame::read_frame) as a
/// [`DecodeOptions`](crate::frame::DecodeOptions) (`DecodeOptions::from(limits)`), to the tokio
/// codec (`FrameCodec::with_limits`) and, with the `records` feature, to the record-batch
/// reader (`records::ReadOptions::from_limits`, `Records::batches_with_limits`), so one value
/// configures a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    max_frame_size: usize,
    max_string_len: usize,
    max_bytes_len: usize,
    max_array_len: usize,
    max_unknown_tagged_fields: usize,
    max_unknown_tagged_bytes: usize,
    max_decompressed_batch: usize,
    strict_utf8: bool,
    /// The longest string the inlined string reader takes: `max_string_len`, or 0 under
    /// `strict_utf8` (every non-empty string then goes through the checked reader). One
    /// test per string instead of two.
    fast_str_len: usize,
}

impl DecodeLimits {
    /// The defaults: frames up to 100 MiB (Kafka's `socket.request.max.bytes`), strings up
    /// to 32767 bytes (Kafka's int16 limit), and bytes values, arrays and unknown tagged
    /// fields bounded only by the input, and a compressed record batch decompressing to at
    /// most 64 MiB ([`DEFAULT_MAX_DECOMPRESSED_BATCH`]).
    pub const DEFAULT: DecodeLimits = DecodeLimits {
        max_frame_size: DEFAULT_MAX_FRAME_SIZE,
        max_string_len: MAX_STRING_LEN,
        max_bytes_len: usize::MAX,
        max_array_len: usize::MAX,
        max_unknown_tagged_fields: usize::MAX,
        max_unknown_tagged_bytes: usize::MAX,
        max_decompressed_batch: DEFAULT_MAX_DECOMPRESSED_BATCH,
        strict_utf8: false,
        fast_str_len: MAX_STRING_LEN,
    };

    /// The defaults ([`DecodeLimits::DEFAULT`]).
    pub const fn new() -> Self {
        Self::DEFAULT
    }

    /// The largest frame size prefix accepted (the bytes after the prefix).
    pub const fn max_frame_size(mut self, n: usize) -> Self {
        self.max_frame_size = n;
        self
    }
    /// The longest string, in bytes (at most Kafka's 32767 in effect).
    pub const fn max_string_len(mut self, n: usize) -> Self {
        self.max_string_len = n;
        self.fast_str_len = self.fast_str_len_of();
        self
    }
    /// The longest bytes (or records) value.
    pub const fn max_bytes_len(mut self, n: usize) -> Self {
        self.max_bytes_len = n;
        self
    }
    /// The most elements of one array.
    pub const fn max_array_len(mut self, n: usize) -> Self {
        self.max_array_len = n;
        self
    }
    /// The most unknown tagged fields in one struct's tagged section.
    pub const fn max_unknown_tagged_fields(mut self, n: usize) -> Self {
        self.max_unknown_tagged_fields = n;
        self
    }
    /// The most payload bytes of unknown tagged fields in one struct's tagged section.
    pub const fn max_unknown_tagged_bytes(mut self, n: usize) -> Self {
        self.max_unknown_tagged_bytes = n;
        self
    }
    /// The most bytes one compressed record batch may decompress to (checked while
    /// decompressing, so a small input claiming a huge output stops after about this many
    /// bytes). Kafka itself has no such limit; the default, 64 MiB, is well above a broker's
    /// default `message.max.bytes` (1 MiB) and a consumer's default `fetch.max.bytes`
    /// (50 MiB). Read by the `records` module through `ReadOptions::from_limits`.
    pub const fn max_decompressed_batch(mut self, n: usize) -> Self {
        self.max_decompressed_batch = n;
        self
    }

    /// Whether a string that is not UTF-8 stops decoding with
    /// [`DecodeErrorKind::InvalidUtf8`](crate::DecodeErrorKind::InvalidUtf8) (at the offset
    /// of its bytes, with its field path). Off by default, as in Kafka's Java decoder, which
    /// accepts any bytes: a [`Str`](crate::Str) then keeps them as they came and checks them
    /// when read ([`Str::to_str`](crate::Str::to_str)). On, every string is checked while
    /// decoding (a `String` field is checked either way: it cannot hold other bytes).
    pub const fn strict_utf8(mut self, on: bool) -> Self {
        self.strict_utf8 = on;
        self.fast_str_len = self.fast_str_len_of();
        self
    }

    /// The frame size limit.
    pub const fn frame_size(&self) -> usize {
        self.max_frame_size
    }
    /// The string length limit.
    pub const fn string_len(&self) -> usize {
        self.max_string_len
    }
    /// The bytes length limit.
    pub const fn bytes_len(&self) -> usize {
        self.max_bytes_len
    }
    /// The array length limit.
    pub const fn array_len(&self) -> usize {
        self.max_array_len
    }
    /// The limit on unknown tagged fields per struct.
    pub const fn unknown_tagged_fields(&self) -> usize {
        self.max_unknown_tagged_fields
    }
    /// The limit on unknown tagged payload bytes per struct.
    pub const fn unknown_tagged_bytes(&self) -> usize {
        self.max_unknown_tagged_bytes
    }
    /// The limit on one record batch's decompressed size.
    pub const fn decompressed_batch(&self) -> usize {
        self.max_decompressed_batch
    }
    /// Whether decoding checks strings' UTF-8 ([`DecodeLimits::strict_utf8`]).
    pub const fn utf8_checked(&self) -> bool {
        self.strict_utf8
    }

    /// The longest string the inlined string reader may take without checking it further:
    /// the length limit, or 0 when strings' UTF-8 is checked (one load and one test per
    /// string, where the two settings took two of each).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(crate) const fn fast_str_len(&self) -> usize {
        self.fast_str_len
    }

    /// What [`DecodeLimits::fast_str_len`] holds for the other settings.
    const fn fast_str_len_of(&self) -> usize {
        if self.strict_utf8 {
            0
        } else {
            self.max_string_len
        }
    }
}

impl Default for DecodeLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
