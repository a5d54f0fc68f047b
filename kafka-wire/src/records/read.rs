//! Reading record sets: batches, their headers and their records, as views into the input.

use bytes::Bytes;

use crate::primitives::{unzigzag32, unzigzag64};

use super::compression::{self, CodecError, Contexts};
use super::error::{RecordsError, RecordsErrorKind as K};
use super::{
    BatchHeader, Compression, ReadOptions, TimestampType, LEGACY_MIN_SIZE_V0, LEGACY_MIN_SIZE_V1,
    LOG_OVERHEAD, RECORD_BATCH_OVERHEAD,
};

/// Reads a big-endian integer at a constant offset of a slice already known to be long enough.
macro_rules! be {
    ($t:ty, $s:expr, $at:expr) => {{
        let mut a = [0u8; core::mem::size_of::<$t>()];
        if let Some(src) = $s.get($at..$at + core::mem::size_of::<$t>()) {
            a.copy_from_slice(src);
        }
        <$t>::from_be_bytes(a)
    }};
}

/// The batches of a record set, in order: an iterator of `Result<Batch, RecordsError>`.
///
/// It follows the checks of Kafka's Java reader (`ByteBufferLogInputStream`): an entry whose
/// size is below 14 or whose magic is not 0-2 is an error even when the entry is cut off; an
/// entry that is merely incomplete at the end (as a Fetch response may end) ends the
/// iteration quietly and is reported by [`truncated`](Self::truncated). After an error the
/// iterator ends.
///
/// Memory: a batch decompresses to at most [`ReadOptions::max_decompressed_size`] bytes. A
/// zstd batch written as a stream (no declared size, as Java's producer writes them) also
/// needs libzstd's window buffer, sized from the window its frame declares: at most 128 MiB
/// plus 384 KiB of address space (wider windows are refused, as by Java's reader), filled only
/// as far as the output reaches. The reader shares one zstd context among its batches, and
/// keeps it between batches only while it holds at most 8 MiB (2.6 MiB after a 2 MiB window,
/// Java's level-3 default); a larger one is dropped after its batch.
#[derive(Debug, Clone)]
pub struct Batches {
    input: Bytes,
    pos: usize,
    index: usize,
    opts: ReadOptions,
    done: bool,
    truncated: Option<TruncatedBatch>,
    /// Decompression contexts shared with the batches (see [`Contexts`]).
    ctx: Contexts,
}

/// An incomplete batch at the end of a record set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TruncatedBatch {
    /// Where it starts in the record set.
    pub offset: usize,
    /// How many of its bytes are present.
    pub available: usize,
    /// Its full size (offset and size fields included), when those 12 bytes are present.
    pub size: Option<u64>,
}

impl Batches {
    /// The batches of `input` (the payload of a `records` field), read with `opts`.
    pub fn new(input: Bytes, opts: ReadOptions) -> Self {
        Batches {
            input,
            pos: 0,
            index: 0,
            opts,
            done: false,
            truncated: None,
            ctx: Contexts::default(),
        }
    }

    /// The incomplete batch the record set ended with, once the iteration has reached it.
    pub fn truncated(&self) -> Option<TruncatedBatch> {
        self.truncated
    }

    /// The byte offset of the next batch.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn next_batch(&mut self) -> Result<Option<Batch>, RecordsError> {
        let start = self.pos;
        let rest = self.input.get(start..).unwrap_or_default();
        let err = |kind| RecordsError::new(kind, start, self.index);
        if rest.is_empty() {
            return Ok(None);
        }
        let trunc = |size| TruncatedBatch {
            offset: start,
            available: rest.len(),
            size,
        };
        if rest.len() < LOG_OVERHEAD {
            self.truncated = Some(trunc(None));
            return Ok(None);
        }
        let size = be!(i32, rest, 8);
        if size < LEGACY_MIN_SIZE_V0 as i32 {
            return Err(err(K::BatchTooSmall(size)).with_offset(start + 8));
        }
        let total = LOG_OVERHEAD + size as usize;
        if rest.len() < 17 {
            self.truncated = Some(trunc(Some(total as u64)));
            return Ok(None);
        }
        let magic = be!(i8, rest, 16);
        if !(0..=2).contains(&magic) {
            return Err(err(K::InvalidMagic(magic)).with_offset(start + 16));
        }
        if rest.len() < total {
            self.truncated = Some(trunc(Some(total as u64)));
            return Ok(None);
        }
        let bytes = self.input.slice(start..start + total);
        let mut batch = Batch::parse(bytes, start, self.index, self.opts)?;
        if batch.header.magic == 2 {
            batch.ctx = self.ctx.for_batch(batch.header.compression().ok());
        }
        self.pos = start + total;
        self.index += 1;
        Ok(Some(batch))
    }
}

impl Iterator for Batches {
    type Item = Result<Batch, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_batch() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for Batches {}

/// One batch of a record set: a magic-2 record batch, or one legacy (magic 0/1) message,
/// which may be a compressed wrapper holding a whole inner message set.
///
/// It keeps its bytes (shared with the input, no copy), so it can be written back unchanged
/// with [`as_bytes`](Self::as_bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    bytes: Bytes,
    offset: usize,
    index: usize,
    opts: ReadOptions,
    header: BatchHeader,
    /// Its reader's decompression contexts (see [`Contexts`]).
    ctx: Contexts,
}

impl Batch {
    /// Parses the header of one complete entry and checks its size and checksum.
    fn parse(
        bytes: Bytes,
        offset: usize,
        index: usize,
        opts: ReadOptions,
    ) -> Result<Self, RecordsError> {
        let b: &[u8] = &bytes;
        let magic = be!(i8, b, 16);
        let err = |kind, at: usize| RecordsError::new(kind, offset + at, index);
        let header = if magic == 2 {
            if b.len() < RECORD_BATCH_OVERHEAD {
                return Err(err(K::BatchHeaderTooSmall(b.len()), 8));
            }
            BatchHeader {
                base_offset: be!(i64, b, 0),
                batch_length: be!(i32, b, 8),
                partition_leader_epoch: be!(i32, b, 12),
                magic,
                crc: be!(u32, b, 17),
                attributes: be!(i16, b, 21),
                last_offset_delta: be!(i32, b, 23),
                base_timestamp: be!(i64, b, 27),
                max_timestamp: be!(i64, b, 35),
                producer_id: be!(i64, b, 43),
                producer_epoch: be!(i16, b, 51),
                base_sequence: be!(i32, b, 53),
                record_count: be!(i32, b, 57),
            }
        } else {
            let min = if magic == 0 {
                LEGACY_MIN_SIZE_V0
            } else {
                LEGACY_MIN_SIZE_V1
            };
            let size = b.len() - LOG_OVERHEAD;
            if size < min {
                return Err(err(K::LegacyMessageTooSmall { size, min, magic }, 8));
            }
            let attributes = be!(u8, b, 17);
            let ts = if magic == 1 { be!(i64, b, 18) } else { -1 };
            BatchHeader {
                base_offset: be!(i64, b, 0),
                batch_length: size as i32,
                partition_leader_epoch: -1,
                magic,
                crc: be!(u32, b, 12),
                attributes: i16::from(attributes),
                last_offset_delta: 0,
                base_timestamp: ts,
                max_timestamp: ts,
                producer_id: -1,
                producer_epoch: -1,
                base_sequence: -1,
                record_count: 1,
            }
        };
        if opts.verify_crc {
            let computed = header.computed_crc(b);
            if computed != header.crc {
                let at = if magic == 2 { 17 } else { 12 };
                return Err(err(
                    K::CrcMismatch {
                        stored: header.crc,
                        computed,
                    },
                    at,
                ));
            }
        }
        Ok(Batch {
            bytes,
            offset,
            index,
            opts,
            header,
            ctx: Contexts::default(),
        })
    }

    /// The header fields.
    pub fn header(&self) -> &BatchHeader {
        &self.header
    }

    /// The batch's bytes exactly as they were in the input (shared, not copied).
    pub fn as_bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// Where the batch starts in the record set.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Its index in the record set (0 = first).
    pub fn index(&self) -> usize {
        self.index
    }

    /// Whether the stored checksum matches the bytes (CRC-32C for magic 2, CRC-32 before).
    pub fn crc_is_valid(&self) -> bool {
        self.header.computed_crc(&self.bytes) == self.header.crc
    }

    /// How many records the batch holds, read from its header without decompressing or
    /// parsing them: a magic-2 batch's record count (`None` if negative), 1 for an
    /// uncompressed legacy message, `None` for a compressed legacy one (its count is only known
    /// from the inner messages: [`records`](Self::records)). Not checked against the records;
    /// for a proxy or a log, which forward batches without reading them.
    pub fn record_count(&self) -> Option<usize> {
        let h = &self.header;
        if h.magic == 2 {
            usize::try_from(h.record_count).ok()
        } else if h.attributes & 0x07 == 0 {
            Some(1)
        } else {
            None
        }
    }

    /// The records section as stored (compressed if the batch is): from byte 61 of a magic-2
    /// batch; for a legacy message, its value.
    pub fn records_section(&self) -> &[u8] {
        if self.header.magic == 2 {
            self.bytes.get(RECORD_BATCH_OVERHEAD..).unwrap_or_default()
        } else {
            legacy_fields(&self.bytes)
                .ok()
                .and_then(|f| f.value)
                .unwrap_or_default()
        }
    }

    fn err(&self, kind: K, at: usize) -> RecordsError {
        RecordsError::new(kind, self.offset + at, self.index)
    }

    /// The batch's records, decompressed if need be (at most
    /// [`ReadOptions::max_decompressed_size`] bytes). For an uncompressed batch this shares
    /// the input; iterate the result with [`BatchRecords::iter`].
    pub fn records(&self) -> Result<BatchRecords, RecordsError> {
        let h = &self.header;
        if h.magic == 2 {
            let codec = h
                .compression()
                .map_err(|id| self.err(K::UnknownCompression(id), 21))?;
            if h.record_count < 0 {
                return Err(self.err(K::NegativeRecordCount(h.record_count), 57));
            }
            let v2 = V2State {
                base_offset: h.base_offset,
                base_timestamp: h.base_timestamp,
                log_append_time: (h.timestamp_type() == TimestampType::LogAppendTime)
                    .then_some(h.max_timestamp),
                base_sequence: h.base_sequence,
                count: h.record_count as u32,
            };
            if codec == Compression::None || h.record_count == 0 {
                return Ok(BatchRecords {
                    data: self.bytes.slice(RECORD_BATCH_OVERHEAD..),
                    origin: Some(self.offset + RECORD_BATCH_OVERHEAD),
                    batch: self.index,
                    kind: Kind::V2(v2),
                });
            }
            let data = self.decompress(codec, self.records_section(), RECORD_BATCH_OVERHEAD)?;
            return Ok(BatchRecords {
                data,
                origin: None,
                batch: self.index,
                kind: Kind::V2(v2),
            });
        }
        let codec = Compression::from_id((h.attributes & 0x07) as u8)
            .ok_or_else(|| self.err(K::UnknownCompression((h.attributes & 0x07) as u8), 17))?;
        if codec == Compression::None {
            return Ok(BatchRecords {
                data: self.bytes.clone(),
                origin: Some(self.offset),
                batch: self.index,
                kind: Kind::LegacySingle { done: false },
            });
        }
        if codec == Compression::Zstd {
            return Err(self.err(K::ZstdInLegacyMessage(h.magic), 17));
        }
        let fields = legacy_fields(&self.bytes).map_err(|(k, at)| self.err(k, at))?;
        let Some(value) = fields.value else {
            return Err(self.err(K::LegacyWrapperNullValue, fields.value_at));
        };
        let data = self.decompress(codec, value, fields.value_at + 4)?;
        let scan = LegacyScan::run(&data, h.magic, self.opts.verify_crc)
            .map_err(|(k, at)| RecordsError::new(k, at, self.index).in_decompressed_data())?;
        let wrapper = h.base_offset;
        let base = if h.magic == 0 {
            0
        } else if wrapper == 0 {
            // Some librdkafka versions leave the wrapper offset at 0; Java reads the inner
            // offsets as they are then.
            0
        } else if wrapper < scan.last_offset {
            return Err(self.err(
                K::LegacyWrapperOffset {
                    wrapper,
                    last_inner: scan.last_offset,
                },
                0,
            ));
        } else {
            // Java's long arithmetic: a negative inner offset under a large wrapper offset
            // wraps (found by fuzzing: plain subtraction overflowed).
            wrapper.wrapping_sub(scan.last_offset)
        };
        let log_append_time =
            (h.timestamp_type() == TimestampType::LogAppendTime).then_some(h.max_timestamp);
        Ok(BatchRecords {
            data,
            origin: None,
            batch: self.index,
            kind: Kind::LegacyInner {
                pos: 0,
                end: scan.end,
                base,
                log_append_time,
            },
        })
    }

    fn decompress(
        &self,
        codec: Compression,
        input: &[u8],
        at: usize,
    ) -> Result<Bytes, RecordsError> {
        let limit = self.opts.max_decompressed_size;
        compression::decompress(codec, input, self.header.magic, limit, &self.ctx)
            .map(Bytes::from)
            .map_err(|e| {
                let kind = match e {
                    CodecError::NotEnabled => K::CompressionNotEnabled(codec),
                    CodecError::TooLarge => K::DecompressedTooLarge { limit },
                    CodecError::Invalid(message) => K::Decompress { codec, message },
                };
                self.err(kind, at)
            })
    }
}

/// The records of one batch, ready to iterate: shared with the input when the batch is
/// uncompressed, or the decompressed bytes.
#[derive(Debug, Clone)]
pub struct BatchRecords {
    data: Bytes,
    /// Where `data` starts in the record set; `None` when it is decompressed.
    origin: Option<usize>,
    batch: usize,
    kind: Kind,
}

#[derive(Debug, Clone, Copy)]
struct V2State {
    base_offset: i64,
    base_timestamp: i64,
    log_append_time: Option<i64>,
    base_sequence: i32,
    count: u32,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    V2(V2State),
    LegacySingle {
        done: bool,
    },
    LegacyInner {
        pos: usize,
        end: usize,
        base: i64,
        log_append_time: Option<i64>,
    },
}

impl BatchRecords {
    /// The bytes the records are read from (the decompressed records of a compressed batch).
    pub fn data(&self) -> &Bytes {
        &self.data
    }

    /// Whether the records were decompressed (their views then point into
    /// [`data`](Self::data), not into the record set).
    pub fn is_decompressed(&self) -> bool {
        self.origin.is_none()
    }

    /// A [`Bytes`] sharing `part`, a key, value or header slice of a record read from this set
    /// (for keeping it past the iteration without a copy).
    pub fn share(&self, part: &[u8]) -> Bytes {
        if part.is_empty() {
            return Bytes::new();
        }
        self.data.slice_ref(part)
    }

    /// The records, in order. After an error the iterator ends.
    pub fn iter(&self) -> RecordIter<'_> {
        RecordIter {
            set: self,
            rest: &self.data,
            index: 0,
            kind: self.kind,
            failed: false,
        }
    }
}

impl<'a> IntoIterator for &'a BatchRecords {
    type Item = Result<Record<'a>, RecordsError>;
    type IntoIter = RecordIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// One record: a view into its batch's bytes (or its decompressed records).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// The record's offset.
    pub offset: i64,
    /// Its timestamp (the batch's append time under LogAppendTime; -1 in magic 0).
    pub timestamp: i64,
    /// The attributes byte (unused by Kafka in magic 2; the message attributes before).
    pub attributes: i8,
    /// Offset minus the batch's base offset (magic 2; 0 for legacy messages).
    pub offset_delta: i32,
    /// The timestamp delta as stored (magic 2; 0 for legacy messages).
    pub timestamp_delta: i64,
    /// The producer sequence number: base sequence + offset delta, or -1.
    pub sequence: i32,
    /// The key (`None` for null).
    pub key: Option<&'a [u8]>,
    /// The value (`None` for null).
    pub value: Option<&'a [u8]>,
    /// The headers (magic 2 only).
    pub headers: Headers<'a>,
}

impl<'a> Record<'a> {
    /// The headers as a vector.
    pub fn headers_vec(&self) -> Vec<Header<'a>> {
        self.headers.iter().collect()
    }
}

/// The headers of a record, already validated; iterate them with [`iter`](Self::iter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Headers<'a> {
    raw: &'a [u8],
    count: u32,
}

impl<'a> Headers<'a> {
    /// How many headers there are.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The headers, in order.
    pub fn iter(&self) -> HeaderIter<'a> {
        HeaderIter {
            rest: self.raw,
            left: self.count,
        }
    }
}

impl<'a> IntoIterator for Headers<'a> {
    type Item = Header<'a>;
    type IntoIter = HeaderIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// One record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'a> {
    /// The key: UTF-8 when written by Kafka's clients, but not checked on read (as in Java).
    pub key: &'a [u8],
    /// The value (`None` for null).
    pub value: Option<&'a [u8]>,
}

/// Iterator over [`Headers`].
#[derive(Debug, Clone)]
pub struct HeaderIter<'a> {
    rest: &'a [u8],
    left: u32,
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = Header<'a>;

    fn next(&mut self) -> Option<Header<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        // Validated when the record was read, so a failure here cannot happen; stop quietly.
        let mut c = Cur(self.rest);
        let key = c.bytes_nullable().ok()?.unwrap_or_default();
        let value = c.bytes_nullable().ok()?;
        self.rest = c.0;
        Some(Header { key, value })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

/// Iterator over the records of a [`BatchRecords`].
#[derive(Debug, Clone)]
pub struct RecordIter<'a> {
    set: &'a BatchRecords,
    rest: &'a [u8],
    index: usize,
    kind: Kind,
    failed: bool,
}

/// A failed read inside a slice: what, and at which position of the slice.
type Fail = (K, usize);

/// Why a primitive read failed: the slice ended, or a varint ran past its last byte.
use crate::primitives::VarintError as Short;

/// A cursor over a slice for the varint-heavy record layout.
struct Cur<'a>(&'a [u8]);

impl<'a> Cur<'a> {
    #[inline(always)]
    fn u8(&mut self) -> Result<u8, Short> {
        let (&b, rest) = self.0.split_first().ok_or(Short::Eof)?;
        self.0 = rest;
        Ok(b)
    }

    /// Kafka's zigzag varint: a continuation bit on the 5th byte is an error; bits of the
    /// 5th byte beyond 32 are dropped (as Java's `readVarint` does).
    #[inline(always)]
    fn varint(&mut self) -> Result<i32, Short> {
        self.varint_raw().map(unzigzag32)
    }

    /// [`varint`](Self::varint) before its zigzag decoding: for a length, whose sign is the
    /// low bit and whose value (when not negative) the rest.
    #[inline(always)]
    fn varint_raw(&mut self) -> Result<u32, Short> {
        let all = self.0;
        let b = self.u8()?;
        let raw = if b < 0x80 {
            u32::from(b)
        } else {
            match self.0.split_first() {
                // Two bytes (64 to 8,191 in magnitude: a 1 KB record's size, its value length).
                Some((&b1, rest)) if b1 < 0x80 => {
                    self.0 = rest;
                    u32::from(b & 0x7f) | (u32::from(b1) << 7)
                }
                _ => self.varint_long(all)?,
            }
        };
        Ok(raw)
    }

    /// A varint of three bytes or more (or one that fails), read again from its first byte
    /// (`all`) by the runtime's one varint reader. Inlined: an offset delta from 8,192 on
    /// takes three bytes, so every record past the 8,192nd of a batch comes here (10,000
    /// tiny records: 6% more instructions out of line).
    #[inline(always)]
    fn varint_long(&mut self, all: &'a [u8]) -> Result<u32, Short> {
        let (v, n) = crate::primitives::uvarint_at(all)?;
        self.0 = all.get(n..).unwrap_or_default();
        Ok(v)
    }

    /// Kafka's zigzag varlong: at most 10 bytes, only bit 0 of a 10th byte is kept.
    #[inline(always)]
    fn varlong(&mut self) -> Result<i64, Short> {
        let (v, n) = crate::primitives::uvarlong_at(self.0)?;
        self.0 = self.0.get(n..).unwrap_or_default();
        Ok(unzigzag64(v))
    }

    #[inline(always)]
    fn take(&mut self, n: usize) -> Result<&'a [u8], Short> {
        let (a, b) = self.0.split_at_checked(n).ok_or(Short::Eof)?;
        self.0 = b;
        Ok(a)
    }

    /// varint length then bytes; any negative length is null, as in Java.
    #[inline(always)]
    fn bytes_nullable(&mut self) -> Result<Option<&'a [u8]>, Short> {
        let raw = self.varint_raw()?;
        self.take_nullable(raw)
    }

    /// The bytes of a length already read as [`varint_raw`](Self::varint_raw) gives it: any
    /// negative length (the low bit set) is null, as in Java; otherwise the value is the
    /// rest of the bits.
    #[inline(always)]
    fn take_nullable(&mut self, raw: u32) -> Result<Option<&'a [u8]>, Short> {
        if raw & 1 != 0 {
            return Ok(None);
        }
        self.take((raw >> 1) as usize).map(Some)
    }
}

fn structure(s: Short) -> K {
    K::InvalidRecordStructure(match s {
        Short::Eof => "a field runs past the end of the record",
        Short::TooLong => "varint is too long",
    })
}

/// The fields of a v2 record body, before the batch's bases are applied.
struct RawRecord<'a> {
    attributes: i8,
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
    headers: Headers<'a>,
}

/// A record's leading fields (attributes, timestamp delta, offset delta, key length) from
/// one 8-byte load of `body`, with the number of bytes they take, when the body has 8 bytes
/// and each of the three varints takes one or two bytes (the common case); `None` otherwise,
/// and the exact byte-by-byte path reads them (with its errors). Within those bounds the
/// values are the ones that path reads: a varlong of at most two bytes is its zigzag value
/// like a varint's. The key length is left before its zigzag decoding (as
/// [`Cur::varint_raw`] gives it).
#[inline(always)]
fn record_prefix(body: &[u8]) -> Option<((i8, i64, i32, u32), usize)> {
    let x = u64::from_le_bytes(*body.first_chunk::<8>()?);
    /// The varint of one or two bytes at the low end of `w` (before its zigzag decoding),
    /// and its length.
    #[inline(always)]
    fn short(w: u64) -> Option<(u32, u32)> {
        let raw = if w & 0x80 == 0 {
            (w & 0x7f, 1)
        } else if w & 0x8000 == 0 {
            ((w & 0x7f) | ((w >> 1) & 0x3f80), 2)
        } else {
            return None;
        };
        Some((raw.0 as u32, raw.1))
    }
    let attributes = x as u8 as i8;
    let mut at = 8;
    let (ts, n) = short(x >> at)?;
    at += 8 * n;
    let (od, n) = short(x >> at)?;
    at += 8 * n;
    let (kl, n) = short(x >> at)?;
    at += 8 * n;
    let (ts, od) = (unzigzag32(ts), unzigzag32(od));
    Some(((attributes, i64::from(ts), od, kl), (at / 8) as usize))
}

/// A record's attributes, timestamp delta, offset delta and raw key length.
type RecordPrefix = (i8, i64, i32, u32);

/// The fields before a record's key (attributes, timestamp delta, offset delta, the key's raw
/// length), read one byte at a time as the exact path reads them, and the bytes after them.
#[inline(always)]
fn prefix_bytewise(body: &[u8]) -> Option<(RecordPrefix, &[u8])> {
    let mut c = Cur(body);
    let prefix = (
        c.u8().ok()? as i8,
        c.varlong().ok()?,
        c.varint().ok()?,
        c.varint_raw().ok()?,
    );
    Some((prefix, c.0))
}

/// One v2 record of the common shape, or `None` and the exact path
/// ([`read_v2_record`]) reads it: the record's length takes one or two bytes and is not
/// negative, the varints before the key are read (by [`record_prefix`] when they take one
/// or two bytes each, else one byte at a time), and the record has no headers, its value's length written in the shortest
/// form of one or two bytes (below 8,192 bytes) and the value filling the body but for its
/// last byte, a header count of 0. The exact path reads such a record to the same fields and
/// position, so the answers are the same. The value's length is not decoded but compared:
/// the bytes left after the key can only be this record if they are the length the value
/// would have in that room, the value and a 0, so one comparison of two bytes checks it.
#[inline(always)]
fn read_v2_common<'a>(rest: &'a [u8]) -> Option<(RawRecord<'a>, &'a [u8])> {
    let w = u16::from_le_bytes(*rest.first_chunk::<2>()?);
    let (raw, n) = if w & 0x80 == 0 {
        (w & 0x7f, 1)
    } else if w & 0x8000 == 0 {
        ((w & 0x7f) | ((w >> 1) & 0x3f80), 2)
    } else {
        return None;
    };
    if raw & 1 != 0 {
        return None;
    }
    let (body, after) = rest.get(n..)?.split_at_checked(usize::from(raw >> 1))?;
    let ((attributes, timestamp_delta, offset_delta, key_len), b) = match record_prefix(body) {
        Some((prefix, n)) => (prefix, body.get(n..)?),
        // Longer varints (an offset delta from 4,096 on takes three bytes).
        None => prefix_bytewise(body)?,
    };
    let (key, b) = if key_len & 1 != 0 {
        (None, b)
    } else {
        b.split_at_checked((key_len >> 1) as usize)
            .map(|(k, b)| (Some(k), b))?
    };
    // `b`: the value's length, the value and the header count 0, if this is such a record.
    let w = u16::from_le_bytes(*b.first_chunk::<2>()?);
    let (&0, b) = b.split_last()? else {
        return None;
    };
    // The value fills `b` but for its length's bytes: one byte up to 63 (zigzag 2·len
    // below 128), two from 64 to 8,191.
    let (v, ok) = if b.len() <= 64 {
        let v = b.get(1..)?;
        (v, u64::from(w & 0xff) == (v.len() as u64) << 1)
    } else if b.len() <= 8193 {
        let v = b.get(2..)?;
        let z = (v.len() as u64) << 1;
        (v, u64::from(w) == (z & 0x7f | 0x80 | (z >> 7) << 8))
    } else {
        return None;
    };
    if !ok {
        return None;
    }
    Some((
        headerless(attributes, timestamp_delta, offset_delta, key, v),
        after,
    ))
}

/// A record without headers whose value is not null: what both fast answers (the common
/// shape, and the exact path's header-less case) build.
#[inline(always)]
fn headerless<'a>(
    attributes: i8,
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&'a [u8]>,
    value: &'a [u8],
) -> RawRecord<'a> {
    RawRecord {
        attributes,
        timestamp_delta,
        offset_delta,
        key,
        value: Some(value),
        headers: Headers::default(),
    }
}

/// Reads one v2 record from `rest` (which holds at least the rest of the records section),
/// with the checks of Java's `DefaultRecord.readFrom`.
#[inline(always)]
fn read_v2_record<'a>(rest: &mut &'a [u8]) -> Result<RawRecord<'a>, Fail> {
    let mut c = Cur(rest);
    // Lengths are taken before their zigzag decoding: negative when the low bit is set, the
    // value the rest (`unzigzag32` only for the error).
    let raw = c.varint_raw().map_err(|_| (K::PrematureEof, 0))?;
    let at = rest.len() - c.0.len();
    if raw & 1 != 0 {
        return Err((
            K::RecordSizeMismatch {
                declared: unzigzag32(raw).into(),
                read: 0,
            },
            0,
        ));
    }
    let len = (raw >> 1) as i32;
    let Some((body, after)) = c.0.split_at_checked(len as usize) else {
        return Err((
            K::RecordSizeExceeds {
                declared: len.into(),
                remaining: c.0.len(),
            },
            0,
        ));
    };
    let mut b = Cur(body);
    let pos = |b: &Cur<'_>| at + body.len() - b.0.len();
    let r = (|| {
        let (attributes, timestamp_delta, offset_delta, key_len) = match record_prefix(b.0) {
            Some((prefix, n)) => {
                b.0 = b.0.get(n..).unwrap_or_default();
                prefix
            }
            None => (b.u8()? as i8, b.varlong()?, b.varint()?, b.varint_raw()?),
        };
        let key = b.take_nullable(key_len)?;
        let value_raw = b.varint_raw()?;
        Ok((attributes, timestamp_delta, offset_delta, key, value_raw))
    })();
    let (attributes, timestamp_delta, offset_delta, key, value_raw) =
        r.map_err(|s| (structure(s), pos(&b)))?;
    // A record without headers (the common case): the value fills the body but for its last
    // byte, and that byte is a header count of 0 (one byte). The exact path below would read
    // the same value, no headers, and end exactly at the body's end, so this answers the
    // same; any other record (a null value, headers, a short or long body) goes below.
    if let Some((&0, v)) = b.0.split_last() {
        // Twice the length is the zigzag form of a length that is not negative (the slice's
        // length is below 2^63, so the product does not wrap).
        if (v.len() as u64) << 1 == u64::from(value_raw) {
            *rest = after;
            return Ok(headerless(
                attributes,
                timestamp_delta,
                offset_delta,
                key,
                v,
            ));
        }
    }
    let value = b
        .take_nullable(value_raw)
        .map_err(|s| (structure(s), pos(&b)))?;
    let hat = pos(&b);
    let count = b.varint().map_err(|s| (structure(s), hat))?;
    if count < 0 || count as usize > b.0.len() {
        return Err((K::InvalidHeaderCount(count), hat));
    }
    let raw = b.0;
    for _ in 0..count {
        let kat = pos(&b);
        let klen = b.varint().map_err(|s| (structure(s), kat))?;
        if klen < 0 {
            return Err((K::NegativeHeaderKeySize(klen), kat));
        }
        b.take(klen as usize).map_err(|s| (structure(s), kat))?;
        let vat = pos(&b);
        b.bytes_nullable().map_err(|s| (structure(s), vat))?;
    }
    if !b.0.is_empty() {
        return Err((
            K::RecordSizeMismatch {
                declared: len.into(),
                read: body.len() - b.0.len(),
            },
            pos(&b),
        ));
    }
    let headers = Headers {
        raw: raw.get(..raw.len() - b.0.len()).unwrap_or_default(),
        count: count as u32,
    };
    *rest = after;
    Ok(RawRecord {
        attributes,
        timestamp_delta,
        offset_delta,
        key,
        value,
        headers,
    })
}

/// [`read_v2_record`] out of line: the records [`read_v2_common`] does not take. The slice
/// goes in and comes back by value, not through a reference to the iterator's field: a field
/// whose address reaches a call that is not inlined stays in memory, and the common path
/// would then load and store it for every record.
#[inline(never)]
fn read_v2_exact<'a>(mut rest: &'a [u8]) -> Result<(RawRecord<'a>, &'a [u8]), Fail> {
    let r = read_v2_record(&mut rest)?;
    Ok((r, rest))
}

/// Java's `DefaultRecordBatch.incrementSequence`: wraps past `i32::MAX` to 0.
fn increment_sequence(base: i32, delta: i32) -> i32 {
    if base > i32::MAX.wrapping_sub(delta) {
        base.wrapping_sub(i32::MAX.wrapping_sub(delta))
            .wrapping_sub(1)
    } else {
        base.wrapping_add(delta)
    }
}

/// The fields of one legacy message, located in its entry bytes.
struct LegacyFields<'a> {
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
    /// Where the value's length field is, from the start of the entry.
    value_at: usize,
}

fn legacy_fields(e: &[u8]) -> Result<LegacyFields<'_>, Fail> {
    let magic = be!(i8, e, 16);
    let key_at = if magic == 0 { 18 } else { 26 };
    let mut c = Cur(e.get(key_at..).unwrap_or_default());
    let past = (
        K::InvalidRecordStructure("a field runs past the end of the message"),
        key_at,
    );
    fn sized<'a>(c: &mut Cur<'a>, past: &Fail) -> Result<Option<&'a [u8]>, Fail> {
        let len = c.take(4).map_err(|_| past.clone())?;
        let n = i32::from_be_bytes(*len.first_chunk().ok_or_else(|| past.clone())?);
        if n < 0 {
            return Ok(None);
        }
        c.take(n as usize).map(Some).map_err(|_| past.clone())
    }
    let key = sized(&mut c, &past)?;
    let value_at = e.len() - c.0.len();
    let value = sized(&mut c, &past)?;
    Ok(LegacyFields {
        key,
        value,
        value_at,
    })
}

/// A legacy message as a record.
fn legacy_record(
    e: &[u8],
    offset: i64,
    timestamp_override: Option<i64>,
) -> Result<Record<'_>, Fail> {
    let f = legacy_fields(e)?;
    let magic = be!(i8, e, 16);
    let ts = if magic == 0 { -1 } else { be!(i64, e, 18) };
    Ok(Record {
        offset,
        timestamp: timestamp_override.unwrap_or(ts),
        attributes: be!(i8, e, 17),
        offset_delta: 0,
        timestamp_delta: 0,
        sequence: -1,
        key: f.key,
        value: f.value,
        headers: Headers::default(),
    })
}

/// The first pass over a decompressed inner message set: its complete entries, checked.
struct LegacyScan {
    /// The end of the last complete entry (a truncated tail is dropped, as in Java).
    end: usize,
    /// The offset field of the last entry.
    last_offset: i64,
}

impl LegacyScan {
    fn run(data: &[u8], wrapper_magic: i8, verify_crc: bool) -> Result<Self, Fail> {
        let mut pos = 0;
        let mut last = None;
        while let Some(rest) = data.get(pos..) {
            if rest.len() < LOG_OVERHEAD {
                break;
            }
            let size = be!(i32, rest, 8);
            if size < LEGACY_MIN_SIZE_V0 as i32 {
                return Err((K::BatchTooSmall(size), pos + 8));
            }
            let total = LOG_OVERHEAD + size as usize;
            let Some(e) = rest.get(..total) else {
                break;
            };
            check_inner(e, wrapper_magic, verify_crc).map_err(|(k, at)| (k, pos + at))?;
            last = Some(be!(i64, e, 0));
            pos += total;
        }
        match last {
            Some(last_offset) => Ok(LegacyScan {
                end: pos,
                last_offset,
            }),
            None => Err((K::LegacyWrapperEmpty, 0)),
        }
    }
}

/// The checks on one inner legacy message.
fn check_inner(e: &[u8], wrapper_magic: i8, verify_crc: bool) -> Result<(), Fail> {
    let magic = be!(i8, e, 16);
    if magic != wrapper_magic {
        return Err((
            K::LegacyInnerMagic {
                inner: magic,
                wrapper: wrapper_magic,
            },
            16,
        ));
    }
    let min = if magic == 0 {
        LEGACY_MIN_SIZE_V0
    } else {
        LEGACY_MIN_SIZE_V1
    };
    if e.len() - LOG_OVERHEAD < min {
        return Err((
            K::LegacyMessageTooSmall {
                size: e.len() - LOG_OVERHEAD,
                min,
                magic,
            },
            8,
        ));
    }
    if be!(u8, e, 17) & 0x07 != 0 {
        return Err((K::LegacyInnerCompressed, 17));
    }
    if verify_crc {
        let stored = be!(u32, e, 12);
        let computed = crc32fast::hash(e.get(16..).unwrap_or_default());
        if stored != computed {
            return Err((K::CrcMismatch { stored, computed }, 12));
        }
    }
    legacy_fields(e).map(|_| ())
}

impl<'a> RecordIter<'a> {
    /// Marks the iterator failed and makes the error (out of line, see [`record_error`]).
    #[inline(always)]
    fn fail(&mut self, f: Fail, start: &'a [u8]) -> RecordsError {
        self.failed = true;
        record_error(self.set, self.index, f, start)
    }
}

/// The error of a record that failed to read at `at` within `start` (the rest of `set`'s
/// data when the record began). Out of line and given values, not the iterator: the
/// iterator's fields stay in registers only if no call that is not inlined takes its address.
#[cold]
#[inline(never)]
fn record_error(set: &BatchRecords, index: usize, (kind, at): Fail, start: &[u8]) -> RecordsError {
    let pos = set.data.len() - start.len() + at;
    let e = match set.origin {
        Some(o) => RecordsError::new(kind, o + pos, set.batch),
        None => RecordsError::new(kind, pos, set.batch).in_decompressed_data(),
    };
    e.at_record(index)
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = Result<Record<'a>, RecordsError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match &mut self.kind {
            Kind::V2(st) => {
                if st.count == 0 {
                    return None;
                }
                let start = self.rest;
                let raw = match read_v2_common(start) {
                    Some((r, after)) => {
                        self.rest = after;
                        r
                    }
                    None => match read_v2_exact(start) {
                        Ok((r, after)) => {
                            self.rest = after;
                            r
                        }
                        Err(f) => return Some(Err(self.fail(f, start))),
                    },
                };
                st.count -= 1;
                let st = *st;
                let rec = Record {
                    offset: st.base_offset.wrapping_add(raw.offset_delta.into()),
                    timestamp: match st.log_append_time {
                        Some(t) => t,
                        None => st.base_timestamp.wrapping_add(raw.timestamp_delta),
                    },
                    attributes: raw.attributes,
                    offset_delta: raw.offset_delta,
                    timestamp_delta: raw.timestamp_delta,
                    sequence: if st.base_sequence < 0 {
                        -1
                    } else {
                        increment_sequence(st.base_sequence, raw.offset_delta)
                    },
                    key: raw.key,
                    value: raw.value,
                    headers: raw.headers,
                };
                if st.count == 0 && !self.rest.is_empty() {
                    let rest = self.rest;
                    self.index += 1;
                    return Some(Err(self.fail((K::RecordsRemaining, 0), rest)));
                }
                self.index += 1;
                Some(Ok(rec))
            }
            Kind::LegacySingle { done } => {
                if *done {
                    return None;
                }
                *done = true;
                let e = self.rest;
                let offset = be!(i64, e, 0);
                match legacy_record(e, offset, None) {
                    Ok(r) => {
                        self.index += 1;
                        Some(Ok(r))
                    }
                    Err(f) => Some(Err(self.fail(f, e))),
                }
            }
            Kind::LegacyInner {
                pos,
                end,
                base,
                log_append_time,
                ..
            } => {
                let data: &'a [u8] = &self.set.data;
                if *pos >= *end {
                    return None;
                }
                let rest = data.get(*pos..*end).unwrap_or_default();
                let size = be!(i32, rest, 8);
                let total = LOG_OVERHEAD + size.max(0) as usize;
                let e = rest.get(..total).unwrap_or_default();
                *pos += total;
                let offset = base.wrapping_add(be!(i64, e, 0));
                // Checked by the scan already.
                match legacy_record(e, offset, *log_append_time) {
                    Ok(r) => {
                        self.index += 1;
                        Some(Ok(r))
                    }
                    Err(f) => {
                        self.rest = data.get(*pos - total..).unwrap_or_default();
                        let start = self.rest;
                        Some(Err(self.fail(f, start)))
                    }
                }
            }
        }
    }
}

impl core::iter::FusedIterator for RecordIter<'_> {}

#[cfg(test)]
mod tests {
    use super::super::fused::model::rng;
    use super::*;

    /// The leading fields as the byte-by-byte path reads them, with the bytes taken.
    fn prefix_exact(body: &[u8]) -> Option<((i8, i64, i32, u32), usize)> {
        prefix_bytewise(body).map(|(p, rest)| (p, body.len() - rest.len()))
    }

    /// Whenever the 8-byte fast path answers, the byte-by-byte path reads the same fields
    /// and takes as many bytes; it answers for every body of 8 bytes or more whose three
    /// varints take one or two bytes, and for no shorter body.
    #[test]
    fn record_prefix_agrees_with_the_exact_path() {
        // Bytes that end a varint (below 0x80) or continue it, at the edges of each form.
        let bytes = [0x00u8, 0x01, 0x02, 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff];
        let mut checked = 0u32;
        let mut fast = 0u32;
        let mut body = [0u8; 9];
        // Every combination of the first 7 bytes from `bytes` (9^7 = 4.8M is too many: the
        // attributes byte is any value, so it takes two), then lengths 0-9.
        for a in [0x00u8, 0xff] {
            body[0] = a;
            for i in 0..bytes.len().pow(6) {
                let mut k = i;
                for slot in body.iter_mut().take(7).skip(1) {
                    *slot = bytes[k % bytes.len()];
                    k /= bytes.len();
                }
                body[7] = (i % 251) as u8;
                body[8] = 0x80;
                for len in [7, 8, 9] {
                    let b = &body[..len];
                    let exact = prefix_exact(b);
                    checked += 1;
                    match record_prefix(b) {
                        Some(p) => {
                            fast += 1;
                            assert_eq!(Some(p), exact, "{b:02x?}");
                        }
                        None => {
                            // Only for too short a body, a failing read or a varint of
                            // three bytes or more.
                            let mut c = Cur(&b[1..]);
                            let mut long = c.varlong().is_err() || b.len() - 1 - c.0.len() > 2;
                            for _ in 0..2 {
                                let before = c.0.len();
                                long |= c.varint().is_err() || before - c.0.len() > 2;
                            }
                            long |= exact.is_none();
                            assert!(len < 8 || long, "{b:02x?}");
                        }
                    }
                }
            }
        }
        assert!(fast > checked / 10, "{fast} of {checked}");
    }

    /// Records assembled by hand (Kafka's `DefaultRecord` layout: zigzag varint length,
    /// attributes, varlong timestamp delta, varint offset delta, key, value, header count,
    /// headers), around the header-less exit: the value ending one byte before the body's end,
    /// that byte a header count of 0. Each is checked field by field, and the mismatches
    /// against the exact path's error and offset.
    #[test]
    fn header_less_records_and_their_neighbours() {
        type Seen<'a> = (
            Option<&'a [u8]>,
            Option<&'a [u8]>,
            usize,
            Vec<(&'a [u8], Option<&'a [u8]>)>,
            usize,
        );
        fn read(bytes: &[u8]) -> Result<Seen<'_>, Fail> {
            let mut rest = bytes;
            let r = read_v2_record(&mut rest)?;
            let headers = r.headers.iter().map(|h| (h.key, h.value)).collect();
            Ok((r.key, r.value, r.headers.len(), headers, rest.len()))
        }
        // Body of 9: attributes 0, deltas 0, null key (-1 = 0x01), value "abc" (3 = 0x06),
        // no headers; then one byte of the next record.
        let r = read(&[0x12, 0, 0, 0, 0x01, 0x06, b'a', b'b', b'c', 0x00, 0xee]).unwrap();
        assert_eq!(r, (None, Some(&b"abc"[..]), 0, vec![], 1));
        // A key of 2 bytes, an empty value (0), no headers.
        let r = read(&[0x10, 0, 0x02, 0x04, 0x04, b'k', b'y', 0x00, 0x00]).unwrap();
        assert_eq!(r, (Some(&b"ky"[..]), Some(&b""[..]), 0, vec![], 0));
        // A null value (-1 = 0x01) before the header count 0: the value stays null.
        let r = read(&[0x0c, 0, 0, 0, 0x01, 0x01, 0x00]).unwrap();
        assert_eq!(r, (None, None, 0, vec![], 0));
        // One header whose value is empty, so the body ends with a 0 that is not the count:
        // value "a" (0x02), count 1 (0x02), key "" (0x00), value "" (0x00).
        let r = read(&[0x12, 0, 0, 0, 0x01, 0x02, b'a', 0x02, 0x00, 0x00]).unwrap();
        assert_eq!(
            r,
            (
                None,
                Some(&b"a"[..]),
                1,
                vec![(&b""[..], Some(&b""[..]))],
                0
            )
        );
        // One header "k" -> "v".
        let r = read(&[
            0x18, 0, 0, 0, 0x01, 0x04, b'a', b'b', 0x02, 0x02, b'k', 0x02, b'v',
        ])
        .unwrap();
        assert_eq!(
            r,
            (
                None,
                Some(&b"ab"[..]),
                1,
                vec![(&b"k"[..], Some(&b"v"[..]))],
                0
            )
        );
        // The count 0 and then one byte more inside the body (declared 10, 9 read): Java's
        // "Invalid record size", at the extra byte (1 + 9).
        let e = read(&[0x14, 0, 0, 0, 0x01, 0x06, b'a', b'b', b'c', 0x00, 0x00]).unwrap_err();
        assert!(
            matches!(
                e,
                (
                    K::RecordSizeMismatch {
                        declared: 10,
                        read: 9
                    },
                    10
                )
            ),
            "{e:?}"
        );
        // The value one byte longer than the body leaves room for: past the end, at the value.
        let e = read(&[0x10, 0, 0, 0, 0x01, 0x08, b'a', b'b', b'c', 0x00]).unwrap_err();
        assert!(matches!(e, (K::InvalidRecordStructure(_), 6)), "{e:?}");
        // A value that fills the body exactly, so no byte is left for the header count, even
        // when its own last byte is 0.
        for last in [b'c', 0x00] {
            let e = read(&[0x10, 0, 0, 0, 0x01, 0x06, b'a', b'b', last]).unwrap_err();
            assert!(matches!(e, (K::InvalidRecordStructure(_), 9)), "{e:?}");
        }
    }

    /// Kafka's varint (LEB128 of the zigzag value), written here from the rule.
    fn put_varint(out: &mut Vec<u8>, v: i64) {
        let mut u = ((v << 1) ^ (v >> 63)) as u64;
        while u >= 0x80 {
            out.push(u as u8 | 0x80);
            u >>= 7;
        }
        out.push(u as u8);
    }

    /// A v2 record in Kafka's `DefaultRecord` layout, assembled by hand: length, attributes,
    /// timestamp delta, offset delta, key, value, headers (`None` = null; a length of -1).
    fn assemble(
        attributes: u8,
        ts: i64,
        od: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[(&[u8], Option<&[u8]>)],
    ) -> Vec<u8> {
        let mut body = vec![attributes];
        put_varint(&mut body, ts);
        put_varint(&mut body, od);
        for part in [key, value] {
            match part {
                None => put_varint(&mut body, -1),
                Some(p) => {
                    put_varint(&mut body, p.len() as i64);
                    body.extend_from_slice(p);
                }
            }
        }
        put_varint(&mut body, headers.len() as i64);
        for (k, v) in headers {
            put_varint(&mut body, k.len() as i64);
            body.extend_from_slice(k);
            match v {
                None => put_varint(&mut body, -1),
                Some(v) => {
                    put_varint(&mut body, v.len() as i64);
                    body.extend_from_slice(v);
                }
            }
        }
        let mut out = Vec::new();
        put_varint(&mut out, body.len() as i64);
        out.extend_from_slice(&body);
        out
    }

    type Fields<'a> = (
        i8,
        i64,
        i32,
        Option<&'a [u8]>,
        Option<&'a [u8]>,
        Headers<'a>,
    );

    fn fields<'a>(r: &RawRecord<'a>) -> Fields<'a> {
        (
            r.attributes,
            r.timestamp_delta,
            r.offset_delta,
            r.key,
            r.value,
            r.headers,
        )
    }

    /// Whenever the common-shape path answers, the exact path reads the same fields and
    /// ends at the same byte; over hand-assembled records at the edges of every one- and
    /// two-byte varint (and past them), with and without headers, null and empty parts,
    /// bytes after the record, each record also cut short and with single bytes changed.
    /// The common-shape path must answer for the header-less records whose varints all fit
    /// in two bytes (so the test fails if it never answers).
    #[test]
    fn common_records_agree_with_the_exact_path() {
        let ints = [
            0i64,
            1,
            -1,
            63,
            -64,
            64,
            -65,
            100,
            8191,
            -8192,
            8192,
            -8193,
            1 << 20,
        ];
        let lens = [0usize, 1, 7, 16, 50, 58, 59, 60, 61, 200, 1000, 8180, 8200];
        let fill = |n: usize, seed: u8| -> Vec<u8> { (0..n).map(|i| seed ^ (i as u8)).collect() };
        let (mut checked, mut answered, mut should) = (0u32, 0u32, 0u32);
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut check = |bytes: &[u8], must: bool| {
            checked += 1;
            let mut rest = bytes;
            let exact = read_v2_record(&mut rest);
            match read_v2_common(bytes) {
                Some((r, after)) => {
                    answered += 1;
                    let e = exact
                        .as_ref()
                        .unwrap_or_else(|e| panic!("{e:?}: {bytes:02x?}"));
                    assert_eq!(fields(&r), fields(e), "{bytes:02x?}");
                    assert_eq!(after.len(), rest.len(), "{bytes:02x?}");
                }
                None => assert!(!must, "not taken: {bytes:02x?}"),
            }
        };
        for (i, &ts) in ints.iter().enumerate() {
            for (j, &od) in ints.iter().enumerate() {
                for key_len in [None, Some(0), Some(16), Some(63), Some(64), Some(9000)] {
                    for value_len in lens.iter().map(|&n| Some(n)).chain([None]) {
                        for with_header in [false, true] {
                            let key = key_len.map(|n| fill(n, 0x5a));
                            let value = value_len.map(|n| fill(n, 0xa5));
                            let hv = fill(3, 0);
                            let headers: &[(&[u8], Option<&[u8]>)] = if with_header {
                                &[(b"h", Some(&hv))]
                            } else {
                                &[]
                            };
                            let mut rec = assemble(
                                (i * 13 + j) as u8,
                                ts,
                                od,
                                key.as_deref(),
                                value.as_deref(),
                                headers,
                            );
                            let small = |v: i64| (-8192..8192).contains(&v);
                            let must = !with_header
                                && value.is_some()
                                && small(ts)
                                && small(od)
                                && key_len.is_none_or(|n| n < 8192)
                                && value_len.is_some_and(|n| n < 8192)
                                && rec.len() <= 8192
                                && rec.len() >= 10;
                            should += u32::from(must);
                            check(&rec, must);
                            let n = rec.len();
                            rec.extend_from_slice(&[0, 0x80, 0xff, 7, 0, 0, 0, 0]);
                            check(&rec, must);
                            // Cut short, and one byte changed (among the first 24 and the
                            // last 3, where the lengths and the header count are).
                            check(&rec[..n - 1], false);
                            check(&rec[..n / 2], false);
                            for _ in 0..4 {
                                let r = rng(&mut s);
                                let k = (r >> 8) as usize;
                                let at = if r & 1 == 0 {
                                    k % n.min(24)
                                } else {
                                    n - 1 - k % 3
                                };
                                let mut m = rec.clone();
                                m[at] ^= (r >> 1) as u8 | 1;
                                check(&m, false);
                            }
                        }
                    }
                }
            }
        }
        assert!(
            should > 1000 && answered >= should,
            "{answered} of {checked}, {should}"
        );
    }

    /// Two-byte varints read inline give what the byte-by-byte loop gives, at the edges.
    #[test]
    fn two_byte_varints() {
        for (bytes, want, left) in [
            (&[0x80u8, 0x01][..], 64, 0),
            (&[0xfe, 0x7f, 0x05], 8191, 1),
            (&[0x81, 0x01], -65, 0),
            (&[0xff, 0x7f], -8192, 0),
            (&[0xfe, 0x7f], 8191, 0),
            (&[0x80, 0x80, 0x01], 8192, 0),
            (&[0xd0, 0x0f], 1000, 0),
        ] {
            let mut c = Cur(bytes);
            assert_eq!(c.varint().ok(), Some(want), "{bytes:02x?}");
            assert_eq!(c.0.len(), left, "{bytes:02x?}");
        }
        // Cut off after a continuation byte: end of input, whether the second is there or not.
        assert!(matches!(Cur(&[0x80]).varint(), Err(Short::Eof)));
        assert!(matches!(Cur(&[0x80, 0x80]).varint(), Err(Short::Eof)));
    }
}
