//! Kafka's record batches: the payload of a `records` field.
//!
//! A record set is a sequence of entries that each start with an 8-byte offset and a 4-byte
//! size. Magic 2 entries are record batches (a 61-byte header, then records with varint
//! fields, optionally compressed as one stream); magic 0 and 1 entries are legacy messages,
//! where a compressed message wraps a whole inner message set.
//!
//! Reading ([`Batches`], [`Batch::records`]) follows the checks of Kafka's Java reader:
//! what Java rejects is a [`RecordsError`] with the byte offset and the batch and record
//! index; what Java accepts is accepted; an incomplete last batch (a Fetch response may end
//! with one) ends the iteration and is reported by [`Batches::truncated`]. Keys, values and
//! headers are slices of the input when the batch is uncompressed. Decompression never
//! produces more than [`ReadOptions::max_decompressed_size`] bytes per batch.
//!
//! Writing ([`BatchBuilder`]) produces magic-2 batches byte for byte as Kafka's Java
//! producer does when they are uncompressed (compressed ones carry the same records; codec
//! output differs between implementations and versions).
//!
//! ```
//! use kafka_wire::records::{BatchBuilder, Compression, ReadOptions, Batches};
//!
//! let mut b = BatchBuilder::new(0);
//! b.append(1_700_000_000_000, None, Some(b"hello"), &[]);
//! let bytes = b.build().unwrap();
//!
//! for batch in Batches::new(bytes, ReadOptions::default()) {
//!     let batch = batch.unwrap();
//!     let records = batch.records().unwrap();
//!     for record in &records {
//!         let record = record.unwrap();
//!         assert_eq!(record.value, Some(&b"hello"[..]));
//!         assert_eq!(record.offset, 0);
//!     }
//! }
//! ```

mod compression;
mod control;
mod error;
mod fused;
mod header_mut;
mod read;
mod write;

use core::fmt;

pub use control::{
    ControlRecord, ControlRecordType, EndTxnMarker, KRaftVersionRecord, LeaderChangeMessage,
    LeaderChangeVoter, SnapshotFooterRecord, SnapshotHeaderRecord, VotersRecord,
    VotersRecordEndpoint, VotersRecordKRaftVersionFeature, VotersRecordVoter,
};
pub use error::{RecordsError, RecordsErrorKind};
pub use header_mut::{assign_offsets, BatchHeaderMut};
pub use read::{
    Batch, BatchRecords, Batches, Header, HeaderIter, Headers, Record, RecordIter, TruncatedBatch,
};
pub use write::{BatchBuilder, NewHeader, NewRecord};

/// The offset and size fields in front of every entry.
pub const LOG_OVERHEAD: usize = 12;
/// The size of a magic-2 batch header (a batch with no records).
pub const RECORD_BATCH_OVERHEAD: usize = 61;
/// The smallest legacy magic-0 message (its size field), also the smallest size of any entry.
pub const LEGACY_MIN_SIZE_V0: usize = 14;
/// The smallest legacy magic-1 message (its size field).
pub const LEGACY_MIN_SIZE_V1: usize = 22;
/// The default of [`ReadOptions::max_decompressed_size`]: 64 MiB, the same as
/// [`DecodeLimits::max_decompressed_batch`](crate::DecodeLimits::max_decompressed_batch)'s.
pub const DEFAULT_MAX_DECOMPRESSED_SIZE: usize = crate::DEFAULT_MAX_DECOMPRESSED_BATCH;

/// How batches are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Check each batch's CRC (on by default; off for tools that look at corrupt data).
    pub verify_crc: bool,
    /// The most bytes one batch may decompress to; more is
    /// [`RecordsErrorKind::DecompressedTooLarge`], detected while decompressing.
    ///
    /// Kafka itself sets no such limit. The default, 64 MiB, is well above a broker's default
    /// `message.max.bytes` (1 MiB) and a consumer's default `fetch.max.bytes` (50 MiB), and
    /// bounds what a small hostile batch can make the reader allocate. A server that keeps
    /// its limits in one [`DecodeLimits`](crate::DecodeLimits) sets it there
    /// ([`max_decompressed_batch`](crate::DecodeLimits::max_decompressed_batch)) and reads
    /// with [`ReadOptions::from_limits`].
    pub max_decompressed_size: usize,
}

impl ReadOptions {
    /// The options `limits` implies: CRC checked, and at most
    /// [`DecodeLimits::max_decompressed_batch`](crate::DecodeLimits::max_decompressed_batch)
    /// bytes per decompressed batch. Exceeding it is
    /// [`RecordsErrorKind::DecompressedTooLarge`], whose
    /// [`limit`](RecordsErrorKind::limit) is
    /// [`Limit::DecompressedBatch`](crate::Limit::DecompressedBatch).
    ///
    /// ```
    /// use kafka_wire::DecodeLimits;
    /// use kafka_wire::records::ReadOptions;
    ///
    /// let limits = DecodeLimits::new().max_decompressed_batch(1 << 20);
    /// assert_eq!(ReadOptions::from_limits(&limits).max_decompressed_size, 1 << 20);
    /// ```
    pub const fn from_limits(limits: &crate::DecodeLimits) -> Self {
        ReadOptions {
            verify_crc: true,
            max_decompressed_size: limits.decompressed_batch(),
        }
    }
}

impl From<&crate::DecodeLimits> for ReadOptions {
    fn from(limits: &crate::DecodeLimits) -> Self {
        ReadOptions::from_limits(limits)
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            verify_crc: true,
            max_decompressed_size: DEFAULT_MAX_DECOMPRESSED_SIZE,
        }
    }
}

/// A batch's compression codec (attribute bits 0-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    /// Uncompressed (0).
    #[default]
    None,
    /// gzip (1).
    Gzip,
    /// snappy (2).
    Snappy,
    /// lz4 (3).
    Lz4,
    /// zstd (4; magic 2 only).
    Zstd,
}

impl Compression {
    /// Every codec, in attribute-id order (for tools and tests that go through them all).
    ///
    /// ```
    /// use kafka_wire::records::Compression;
    /// for (id, codec) in (0u8..).zip(Compression::ALL) {
    ///     assert_eq!(Compression::from_id(id), Some(codec));
    /// }
    /// assert_eq!(Compression::from_id(5), None);
    /// ```
    pub const ALL: [Compression; 5] = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];

    /// The codec of attribute id `id`, or `None` for 5-7.
    pub fn from_id(id: u8) -> Option<Self> {
        Some(match id {
            0 => Compression::None,
            1 => Compression::Gzip,
            2 => Compression::Snappy,
            3 => Compression::Lz4,
            4 => Compression::Zstd,
            _ => return None,
        })
    }

    /// The attribute id.
    pub fn id(self) -> u8 {
        self as u8
    }

    /// Kafka's name (`compression.type`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }

    /// The codec of a Kafka name.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Compression::None,
            Compression::Gzip,
            Compression::Snappy,
            Compression::Lz4,
            Compression::Zstd,
        ]
        .into_iter()
        .find(|c| c.name() == name)
    }

    /// The cargo feature of this crate that enables the codec.
    pub fn feature(self) -> &'static str {
        match self {
            Compression::None => "records",
            c => c.name(),
        }
    }

    /// Whether this build can read and write it.
    pub fn is_enabled(self) -> bool {
        match self {
            Compression::None => true,
            Compression::Gzip => cfg!(feature = "gzip"),
            Compression::Snappy => cfg!(feature = "snappy"),
            Compression::Lz4 => cfg!(feature = "lz4"),
            Compression::Zstd => cfg!(feature = "zstd"),
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a batch's timestamps mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimestampType {
    /// Magic 0: no timestamps.
    NoTimestamp,
    /// Set by the producer.
    #[default]
    CreateTime,
    /// Set by the broker when appending.
    LogAppendTime,
}

/// The header fields of a batch.
///
/// For a legacy (magic 0/1) message the fields it does not have hold Kafka's "none" values:
/// partition leader epoch, producer id, epoch and base sequence -1, last offset delta 0,
/// record count 1 (the inner count of a compressed wrapper is known once it is read), and
/// both timestamps the message's timestamp (-1 in magic 0). `base_offset` is the message's
/// offset, which for a compressed wrapper is the offset of its last inner message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchHeader {
    /// The offset of the first record (legacy: the message's offset).
    pub base_offset: i64,
    /// The bytes after this field (legacy: the message size).
    pub batch_length: i32,
    /// The leader epoch the broker stamped.
    pub partition_leader_epoch: i32,
    /// 0, 1 or 2.
    pub magic: i8,
    /// The stored checksum.
    pub crc: u32,
    /// The attributes (legacy: the message's attributes byte).
    pub attributes: i16,
    /// The last offset minus the base offset.
    pub last_offset_delta: i32,
    /// The first record's timestamp (or the delete horizon when that flag is set).
    pub base_timestamp: i64,
    /// The largest timestamp, or the append time under LogAppendTime.
    pub max_timestamp: i64,
    /// The producer id, -1 when not idempotent.
    pub producer_id: i64,
    /// The producer epoch, -1 when not idempotent.
    pub producer_epoch: i16,
    /// The first record's sequence number, -1 when not idempotent.
    pub base_sequence: i32,
    /// The number of records.
    pub record_count: i32,
}

impl BatchHeader {
    /// The codec, or the unknown id (5-7) as the error.
    pub fn compression(&self) -> Result<Compression, u8> {
        let id = (self.attributes & 0x07) as u8;
        Compression::from_id(id).ok_or(id)
    }

    /// The timestamp type (bit 3; magic 0 has none).
    pub fn timestamp_type(&self) -> TimestampType {
        if self.magic == 0 {
            TimestampType::NoTimestamp
        } else if self.attributes & 0x08 != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// Bit 4: part of a transaction (magic 2).
    pub fn is_transactional(&self) -> bool {
        self.magic == 2 && self.attributes & 0x10 != 0
    }

    /// Bit 5: a control batch (magic 2).
    pub fn is_control(&self) -> bool {
        self.magic == 2 && self.attributes & 0x20 != 0
    }

    /// Bit 6: `base_timestamp` holds the delete horizon (magic 2).
    pub fn has_delete_horizon(&self) -> bool {
        self.magic == 2 && self.attributes & 0x40 != 0
    }

    /// The offset of the last record.
    pub fn last_offset(&self) -> i64 {
        self.base_offset
            .wrapping_add(i64::from(self.last_offset_delta))
    }

    /// The sequence number of the last record (wrapping past `i32::MAX` to 0), or -1.
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence < 0 {
            return -1;
        }
        let delta = self.last_offset_delta;
        if self.base_sequence > i32::MAX.wrapping_sub(delta) {
            self.base_sequence
                .wrapping_sub(i32::MAX.wrapping_sub(delta))
                .wrapping_sub(1)
        } else {
            self.base_sequence.wrapping_add(delta)
        }
    }

    /// The checksum of `entry` (this batch's bytes) over the range Kafka covers: CRC-32C of
    /// bytes 21.. for magic 2, CRC-32 of bytes 16.. before.
    pub fn computed_crc(&self, entry: &[u8]) -> u32 {
        if self.magic == 2 {
            crc32c(entry.get(21..).unwrap_or_default())
        } else {
            crc32fast::hash(entry.get(16..).unwrap_or_default())
        }
    }
}

/// Decompresses a whole records stream of `codec` as Kafka reads it for `magic` (the magic
/// matters for lz4, whose magic-0 header checksum Kafka ignores), producing at most `limit`
/// bytes: more is [`RecordsErrorKind::DecompressedTooLarge`], found while decompressing.
pub fn decompress(
    codec: Compression,
    magic: i8,
    data: &[u8],
    limit: usize,
) -> Result<Vec<u8>, RecordsErrorKind> {
    compression::decompress(codec, data, magic, limit, &Default::default()).map_err(|e| match e {
        compression::CodecError::NotEnabled => RecordsErrorKind::CompressionNotEnabled(codec),
        compression::CodecError::TooLarge => RecordsErrorKind::DecompressedTooLarge { limit },
        compression::CodecError::Invalid(message) => {
            RecordsErrorKind::Decompress { codec, message }
        }
    })
}

/// Compresses `data` with `codec` in the framing Kafka's Java client writes for `magic`
/// (gzip member, snappy-java's xerial stream, Kafka's lz4 frame, zstd frame); `level` as
/// `compression.<codec>.level` (default when `None`).
pub fn compress(
    codec: Compression,
    magic: i8,
    data: &[u8],
    level: Option<i32>,
) -> Result<Vec<u8>, RecordsErrorKind> {
    compression::compress(codec, data, magic, level).map_err(|e| match e {
        compression::CodecError::NotEnabled => RecordsErrorKind::CompressionNotEnabled(codec),
        compression::CodecError::TooLarge => RecordsErrorKind::DecompressedTooLarge { limit: 0 },
        compression::CodecError::Invalid(message) => {
            RecordsErrorKind::Decompress { codec, message }
        }
    })
}

/// CRC-32C (Castagnoli), the checksum of magic-2 batches: carry-less multiplication folding
/// (the `crc-fast` crate: AVX-512 VPCLMULQDQ, SSE PCLMULQDQ or Arm NEON, chosen at run time;
/// a table-driven fallback elsewhere). The one CRC-32C of the crate; only the batch builder
/// with the feature `fused-crc` folds its own while copying.
pub fn crc32c(data: &[u8]) -> u32 {
    crc_fast::crc32_iscsi(data)
}

/// CRC-32 (IEEE), the checksum of legacy messages.
pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

impl crate::Records {
    /// The batches of this record set, read with the default [`ReadOptions`].
    pub fn batches(&self) -> Batches {
        Batches::new(self.0.clone(), ReadOptions::default())
    }

    /// The batches of this record set, read with `opts`.
    pub fn batches_with(&self, opts: ReadOptions) -> Batches {
        Batches::new(self.0.clone(), opts)
    }

    /// The batches of this record set, read under `limits`
    /// ([`ReadOptions::from_limits`]: CRC checked, decompression bounded by
    /// [`DecodeLimits::max_decompressed_batch`](crate::DecodeLimits::max_decompressed_batch)).
    pub fn batches_with_limits(&self, limits: &crate::DecodeLimits) -> Batches {
        Batches::new(self.0.clone(), ReadOptions::from_limits(limits))
    }
}
