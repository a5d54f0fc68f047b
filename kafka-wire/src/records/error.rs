//! Typed errors of the record-batch reader and builder.

use core::fmt;

use super::Compression;

/// What was wrong with a record set, a batch or a record.
///
/// The variants follow the checks of Kafka's Java reader: everything it rejects has a variant
/// here, and inputs it accepts (negative key lengths read as null, non-zero record attributes,
/// out-of-order offset deltas) are accepted too.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordsErrorKind {
    /// A batch whose size field is below 14, the smallest legacy message.
    #[error("record size {0} is less than the minimum record overhead (14)")]
    BatchTooSmall(i32),
    /// A magic byte other than 0, 1 or 2.
    #[error("invalid magic {0} found in record batch")]
    InvalidMagic(i8),
    /// A magic-2 batch shorter than its 61-byte header.
    #[error("record batch is only {0} bytes, less than the 61-byte batch header")]
    BatchHeaderTooSmall(usize),
    /// A legacy message shorter than the fixed part of its version.
    #[error(
        "legacy message of {size} bytes is smaller than the {min}-byte minimum of magic {magic}"
    )]
    LegacyMessageTooSmall {
        /// The message's size field.
        size: usize,
        /// The minimum for its magic.
        min: usize,
        /// The magic.
        magic: i8,
    },
    /// The stored checksum does not match the bytes (CRC-32C for magic 2, CRC-32 before).
    #[error("checksum mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    CrcMismatch {
        /// The checksum in the batch.
        stored: u32,
        /// The checksum of the bytes.
        computed: u32,
    },
    /// Compression bits 5-7 (no such codec).
    #[error("unknown compression type id {0}")]
    UnknownCompression(u8),
    /// A codec that this build of the crate does not include (enable its cargo feature).
    #[error("{0} compression is not enabled in this build (cargo feature `{feature}`)", feature = .0.feature())]
    CompressionNotEnabled(Compression),
    /// zstd in a magic 0/1 message, which Kafka never allows.
    #[error("zstd compression is not allowed with magic {0}")]
    ZstdInLegacyMessage(i8),
    /// A negative record count in a magic-2 batch.
    #[error("invalid record count {0}")]
    NegativeRecordCount(i32),
    /// The records section ended before the declared number of records were read.
    #[error("incorrect declared batch size, premature EOF reached")]
    PrematureEof,
    /// Bytes are left in the records section after the declared number of records.
    #[error("incorrect declared batch size, records still remaining")]
    RecordsRemaining,
    /// A record whose length varint says more than the bytes that remain.
    #[error("invalid record size: expected {declared} bytes in record payload, but only {remaining} remain")]
    RecordSizeExceeds {
        /// The record's declared length.
        declared: i64,
        /// Bytes left.
        remaining: usize,
    },
    /// A record whose fields did not add up to its declared length.
    #[error("invalid record size: expected to read {declared} bytes in record payload, but instead read {read}")]
    RecordSizeMismatch {
        /// The record's declared length.
        declared: i64,
        /// What its fields took.
        read: usize,
    },
    /// A field that runs past the end of its record, or a varint that is too long.
    #[error("invalid record structure: {0}")]
    InvalidRecordStructure(&'static str),
    /// A header key length below zero (header keys are never null).
    #[error("invalid negative header key size {0}")]
    NegativeHeaderKeySize(i32),
    /// A header count below zero or larger than the bytes left in the record.
    #[error("invalid number of record headers {0}")]
    InvalidHeaderCount(i32),
    /// The codec rejected the compressed bytes.
    #[error("failed to decompress record stream ({codec}): {message}")]
    Decompress {
        /// The codec.
        codec: Compression,
        /// What the codec said.
        message: String,
    },
    /// Decompression would produce more than the configured maximum
    /// ([`Limit::DecompressedBatch`](crate::Limit::DecompressedBatch), see
    /// [`limit`](Self::limit)).
    #[error("decompressed records exceed the limit of {limit} bytes (max_decompressed_batch)")]
    DecompressedTooLarge {
        /// The limit ([`ReadOptions::max_decompressed_size`](super::ReadOptions::max_decompressed_size)).
        limit: usize,
    },
    /// A compressed legacy wrapper message whose value is null.
    #[error("compressed legacy message has a null value")]
    LegacyWrapperNullValue,
    /// A compressed legacy wrapper message with no inner message.
    #[error("compressed legacy message contains no inner message")]
    LegacyWrapperEmpty,
    /// An inner legacy message that is compressed itself.
    #[error("inner legacy messages must not be compressed")]
    LegacyInnerCompressed,
    /// An inner legacy message whose magic differs from its wrapper's.
    #[error("inner legacy message has magic {inner}, its wrapper {wrapper}")]
    LegacyInnerMagic {
        /// The inner magic.
        inner: i8,
        /// The wrapper's magic.
        wrapper: i8,
    },
    /// A magic-1 wrapper whose offset is below the last inner relative offset.
    #[error("wrapper offset {wrapper} is less than the last inner offset {last_inner}")]
    LegacyWrapperOffset {
        /// The wrapper's offset.
        wrapper: i64,
        /// The last inner (relative) offset.
        last_inner: i64,
    },
    /// A control record whose key or value cannot be read.
    #[error("invalid control record: {0}")]
    InvalidControlRecord(&'static str),
}

impl RecordsErrorKind {
    /// The [`DecodeLimits`](crate::DecodeLimits) limit this error is about, if it is a limit
    /// and not malformed input: [`Limit::DecompressedBatch`](crate::Limit::DecompressedBatch)
    /// for [`DecompressedTooLarge`](Self::DecompressedTooLarge).
    pub fn limit(&self) -> Option<crate::Limit> {
        match self {
            RecordsErrorKind::DecompressedTooLarge { .. } => Some(crate::Limit::DecompressedBatch),
            _ => None,
        }
    }
}

/// A record-set failure: the kind, the byte offset, the batch index and (inside a batch) the
/// record index.
///
/// `offset` counts from the start of the record set being read, except when
/// [`in_decompressed`](Self::in_decompressed) is true: then it counts from the start of the
/// batch's decompressed records.
#[derive(Clone, PartialEq, Eq)]
pub struct RecordsError(Box<Inner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: RecordsErrorKind,
    offset: usize,
    batch: usize,
    record: Option<usize>,
    decompressed: bool,
}

impl RecordsError {
    /// An error of `kind` at byte `offset` of batch `batch`.
    #[cold]
    pub fn new(kind: RecordsErrorKind, offset: usize, batch: usize) -> Self {
        RecordsError(Box::new(Inner {
            kind,
            offset,
            batch,
            record: None,
            decompressed: false,
        }))
    }

    #[cold]
    pub(crate) fn with_offset(mut self, offset: usize) -> Self {
        self.0.offset = offset;
        self
    }

    #[cold]
    pub(crate) fn at_record(mut self, record: usize) -> Self {
        self.0.record = Some(record);
        self
    }

    #[cold]
    pub(crate) fn in_decompressed_data(mut self) -> Self {
        self.0.decompressed = true;
        self
    }

    /// What was wrong.
    pub fn kind(&self) -> &RecordsErrorKind {
        &self.0.kind
    }

    /// The byte offset of the offending value.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// The index of the batch (0 = the first in the record set).
    pub fn batch(&self) -> usize {
        self.0.batch
    }

    /// The index of the record inside the batch, when the error is in a record.
    pub fn record(&self) -> Option<usize> {
        self.0.record
    }

    /// Whether [`offset`](Self::offset) counts in the batch's decompressed records.
    pub fn in_decompressed(&self) -> bool {
        self.0.decompressed
    }
}

impl fmt::Display for RecordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.0.kind, self.0.offset)?;
        if self.0.decompressed {
            f.write_str(" of the decompressed records")?;
        }
        write!(f, " in batch {}", self.0.batch)?;
        if let Some(r) = self.0.record {
            write!(f, " record {r}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for RecordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordsError")
            .field("kind", &self.0.kind)
            .field("offset", &self.0.offset)
            .field("batch", &self.0.batch)
            .field("record", &self.0.record)
            .field("decompressed", &self.0.decompressed)
            .finish()
    }
}

impl std::error::Error for RecordsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0.kind)
    }
}

#[cfg(test)]
mod tests {
    use crate::records::{BatchBuilder, Compression};
    use crate::{DecodeError, DecodeErrorKind, Records};

    /// A failure of the records reader carried out of a decoding function by `?`: the kind
    /// and offset kept, the batch (and record) in the path.
    #[test]
    fn a_records_error_converts_into_a_decode_error() {
        let mut b = BatchBuilder::new(0);
        b.compression(Compression::None);
        b.append(1, Some(b"k"), Some(b"v"), &[]);
        let mut one = b.build().unwrap().to_vec();
        // A second batch whose last byte (the record's header count) is changed: the CRC,
        // over the bytes after its field, no longer matches.
        let mut second = one.clone();
        *second.last_mut().unwrap() ^= 1;
        let first_len = one.len();
        one.extend_from_slice(&second);
        let set = Records(one.into());
        fn read_all(set: &Records) -> Result<usize, DecodeError> {
            let mut n = 0;
            for batch in set.batches() {
                n += batch?.records()?.iter().count();
            }
            Ok(n)
        }
        let e = read_all(&set).unwrap_err();
        let DecodeErrorKind::Records(inner) = e.kind() else {
            panic!("{e:?}")
        };
        assert!(
            matches!(inner.kind(), super::RecordsErrorKind::CrcMismatch { .. }),
            "{inner:?}"
        );
        // The CRC field of the second batch, from the start of the record set.
        assert_eq!(e.offset(), first_len + 17);
        assert_eq!(inner.batch(), 1);
        let text = e.to_string();
        assert!(text.starts_with("checksum mismatch"), "{text}");
        assert!(text.ends_with("in `records[1]`"), "{text}");
    }
}
