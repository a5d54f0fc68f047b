//! Setting a stored batch's header in place: what a broker does to every batch it appends
//! (base offset, partition leader epoch, and under LogAppendTime the max timestamp), without
//! decoding or re-encoding the records.

use super::error::{RecordsError, RecordsErrorKind as K};
use super::{crc32c, BatchHeader, TimestampType, LOG_OVERHEAD, RECORD_BATCH_OVERHEAD};

/// Where the magic-2 header fields are, and where the CRC starts covering.
const BASE_OFFSET: usize = 0;
const BATCH_LENGTH: usize = 8;
const LEADER_EPOCH: usize = 12;
const MAGIC: usize = 16;
const CRC: usize = 17;
const ATTRIBUTES: usize = 21;
const LAST_OFFSET_DELTA: usize = 23;
const MAX_TIMESTAMP: usize = 35;
const RECORD_COUNT: usize = 57;

/// A magic-2 record batch's header, over the batch's bytes in a mutable buffer.
///
/// The base offset and the partition leader epoch sit in front of the range the CRC covers
/// (bytes 21 on), so setting them is a write of 8 or 4 bytes and the CRC stays valid; the
/// max timestamp and timestamp type are inside it, so [`set_max_timestamp`](Self::set_max_timestamp)
/// recomputes the CRC over the batch (as Java's `DefaultRecordBatch.setMaxTimestamp`). The
/// records are never decoded or moved.
///
/// ```
/// use kafka_wire::records::{BatchBuilder, BatchHeaderMut, Batches, ReadOptions, TimestampType};
///
/// let mut b = BatchBuilder::new(0);
/// b.append(1_700_000_000_000, None, Some(b"a"), &[]);
/// b.append(1_700_000_000_001, None, Some(b"b"), &[]);
/// let mut stored = b.build().unwrap().to_vec();
///
/// let mut h = BatchHeaderMut::new(&mut stored).unwrap();
/// h.set_base_offset(42);
/// h.set_partition_leader_epoch(7);
/// h.set_max_timestamp(TimestampType::LogAppendTime, 1_800_000_000_000);
///
/// let batch = Batches::new(stored.into(), ReadOptions::default()).next().unwrap().unwrap();
/// assert!(batch.crc_is_valid());
/// let header = batch.header();
/// assert_eq!((header.base_offset, header.last_offset()), (42, 43));
/// assert_eq!(header.partition_leader_epoch, 7);
/// assert_eq!(header.timestamp_type(), TimestampType::LogAppendTime);
/// ```
#[derive(Debug)]
pub struct BatchHeaderMut<'a> {
    /// The batch's bytes, size fields included, exactly as long as the batch.
    batch: &'a mut [u8],
}

// Every offset below is inside the 61-byte header, which `BatchHeaderMut::at` checked is
// there; the checked forms keep that an invariant rather than a panic site.
fn get<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b.get(at..at + N)
        .and_then(|s| <[u8; N]>::try_from(s).ok())
        .unwrap_or([0; N])
}

fn put<const N: usize>(b: &mut [u8], at: usize, v: [u8; N]) {
    if let Some(d) = b.get_mut(at..at + N) {
        d.copy_from_slice(&v);
    }
}

impl<'a> BatchHeaderMut<'a> {
    /// The magic-2 batch at the start of `entries` (a stored record set: the batch, then
    /// possibly more). Fails, without touching a byte, if `entries` is shorter than a batch
    /// header or than the batch's size field says, or if the entry is not magic 2 (a legacy
    /// message has no leader epoch; a broker converts those first).
    pub fn new(entries: &'a mut [u8]) -> Result<Self, RecordsError> {
        Self::at(entries, 0, 0)
    }

    /// [`new`](Self::new), with errors reporting byte `offset` of the record set and batch
    /// `index`.
    fn at(entries: &'a mut [u8], offset: usize, index: usize) -> Result<Self, RecordsError> {
        let err = |kind, at: usize| RecordsError::new(kind, offset + at, index);
        if entries.len() < LOG_OVERHEAD {
            return Err(err(K::PrematureEof, entries.len()));
        }
        let size = i32::from_be_bytes(get(entries, BATCH_LENGTH));
        if entries.len() > MAGIC {
            let magic = get::<1>(entries, MAGIC)[0] as i8;
            if magic != 2 {
                return Err(err(K::InvalidMagic(magic), MAGIC));
            }
        }
        let total = usize::try_from(size)
            .ok()
            .filter(|&s| s >= RECORD_BATCH_OVERHEAD - LOG_OVERHEAD)
            .map(|s| s + LOG_OVERHEAD)
            .ok_or_else(|| err(K::BatchHeaderTooSmall(entries.len()), BATCH_LENGTH))?;
        if entries.len() < total {
            return Err(err(K::PrematureEof, entries.len()));
        }
        let (batch, _) = entries.split_at_mut(total);
        Ok(BatchHeaderMut { batch })
    }

    /// The batch's size in bytes, size fields included.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.batch.len()
    }

    /// The batch's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.batch
    }

    /// The header as it now is.
    pub fn header(&self) -> BatchHeader {
        let b = &*self.batch;
        BatchHeader {
            base_offset: i64::from_be_bytes(get(b, BASE_OFFSET)),
            batch_length: i32::from_be_bytes(get(b, BATCH_LENGTH)),
            partition_leader_epoch: i32::from_be_bytes(get(b, LEADER_EPOCH)),
            magic: get::<1>(b, MAGIC)[0] as i8,
            crc: u32::from_be_bytes(get(b, CRC)),
            attributes: i16::from_be_bytes(get(b, ATTRIBUTES)),
            last_offset_delta: i32::from_be_bytes(get(b, LAST_OFFSET_DELTA)),
            base_timestamp: i64::from_be_bytes(get(b, 27)),
            max_timestamp: i64::from_be_bytes(get(b, MAX_TIMESTAMP)),
            producer_id: i64::from_be_bytes(get(b, 43)),
            producer_epoch: i16::from_be_bytes(get(b, 51)),
            base_sequence: i32::from_be_bytes(get(b, 53)),
            record_count: i32::from_be_bytes(get(b, RECORD_COUNT)),
        }
    }

    /// Sets the base offset (outside the CRC). Record offsets are deltas from it, so every
    /// record moves with it.
    pub fn set_base_offset(&mut self, base_offset: i64) {
        put(self.batch, BASE_OFFSET, base_offset.to_be_bytes());
    }

    /// Sets the base offset so that the last record has `last_offset` (Java's
    /// `setLastOffset`): `last_offset - last_offset_delta`.
    pub fn set_last_offset(&mut self, last_offset: i64) {
        let delta = i32::from_be_bytes(get(self.batch, LAST_OFFSET_DELTA));
        self.set_base_offset(last_offset.wrapping_sub(i64::from(delta)));
    }

    /// Sets the partition leader epoch (outside the CRC).
    pub fn set_partition_leader_epoch(&mut self, epoch: i32) {
        put(self.batch, LEADER_EPOCH, epoch.to_be_bytes());
    }

    /// Sets the timestamp type (attribute bit 3) and the max timestamp, then the CRC over the
    /// batch, as Java's broker does for a topic with `LogAppendTime` (its append time as the
    /// max timestamp). Nothing is written if both are already so.
    pub fn set_max_timestamp(&mut self, timestamp_type: TimestampType, max_timestamp: i64) {
        let attributes = i16::from_be_bytes(get(self.batch, ATTRIBUTES));
        let attributes = match timestamp_type {
            TimestampType::LogAppendTime => attributes | 0x08,
            _ => attributes & !0x08,
        };
        let h = self.header();
        if h.attributes == attributes && h.max_timestamp == max_timestamp {
            return;
        }
        put(self.batch, ATTRIBUTES, attributes.to_be_bytes());
        put(self.batch, MAX_TIMESTAMP, max_timestamp.to_be_bytes());
        self.update_crc();
    }

    /// Recomputes the stored CRC-32C over bytes 21.. (after changing bytes the CRC covers).
    pub fn update_crc(&mut self) {
        let crc = crc32c(self.batch.get(ATTRIBUTES..).unwrap_or_default());
        put(self.batch, CRC, crc.to_be_bytes());
    }

    /// Whether the stored CRC matches the bytes.
    pub fn crc_is_valid(&self) -> bool {
        crc32c(self.batch.get(ATTRIBUTES..).unwrap_or_default())
            == u32::from_be_bytes(get(self.batch, CRC))
    }
}

/// Assigns offsets to every batch of a stored record set, as Kafka's broker does when it
/// appends a Produce request's records: the first batch's base offset becomes
/// `first_offset`, each next batch's the offset after the previous batch's last, and every
/// batch gets `leader_epoch`. Returns the offset after the last record (the new log end).
///
/// Only bytes outside the CRC change. Magic-2 batches only (legacy messages are
/// `InvalidMagic`); a batch whose record count is not its last offset delta + 1 (Java's
/// "inconsistent batch offset range") or a set ending in a partial batch is an error, and
/// then nothing has been changed.
///
/// ```
/// use kafka_wire::records::{assign_offsets, BatchBuilder, Batches, ReadOptions};
///
/// let mut set = Vec::new();
/// for n in [3, 2] {
///     let mut b = BatchBuilder::new(0);
///     for i in 0..n {
///         b.append(1_700_000_000_000 + i, None, Some(b"v"), &[]);
///     }
///     set.extend_from_slice(&b.build().unwrap());
/// }
/// assert_eq!(assign_offsets(&mut set, 100, 5).unwrap(), 105);
/// let offsets: Vec<i64> = Batches::new(set.into(), ReadOptions::default())
///     .map(|b| b.unwrap().header().base_offset)
///     .collect();
/// assert_eq!(offsets, [100, 103]);
/// ```
pub fn assign_offsets(
    records: &mut [u8],
    first_offset: i64,
    leader_epoch: i32,
) -> Result<i64, RecordsError> {
    // Checked in full first, so an error leaves the set unchanged.
    let mut spans = Vec::new();
    let mut at = 0;
    while at < records.len() {
        let rest = records.get_mut(at..).unwrap_or_default();
        let h = BatchHeaderMut::at(rest, at, spans.len())?;
        let header = h.header();
        if i64::from(header.record_count) != i64::from(header.last_offset_delta) + 1 {
            return Err(RecordsError::new(
                K::InvalidRecordStructure("record count is not the last offset delta + 1"),
                at + RECORD_COUNT,
                spans.len(),
            ));
        }
        let len = h.len();
        spans.push((at, header.last_offset_delta));
        at += len;
    }
    let mut next = first_offset;
    for (at, delta) in spans {
        let mut h = BatchHeaderMut {
            batch: records.get_mut(at..).unwrap_or_default(),
        };
        h.set_base_offset(next);
        h.set_partition_leader_epoch(leader_epoch);
        next = next.wrapping_add(i64::from(delta) + 1);
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{BatchBuilder, Batches, ReadOptions};

    fn batch(n: i64) -> Vec<u8> {
        let mut b = BatchBuilder::new(0);
        for i in 0..n {
            b.append(1_700_000_000_000 + i, None, Some(b"value"), &[]);
        }
        b.build().unwrap().to_vec()
    }

    #[test]
    fn setters_write_the_bytes_java_puts_there() {
        let mut stored = batch(2);
        let original = stored.clone();
        let mut h = BatchHeaderMut::new(&mut stored).unwrap();
        h.set_base_offset(0x0102_0304_0506_0708);
        h.set_partition_leader_epoch(0x0a0b_0c0d);
        assert!(h.crc_is_valid());
        // Bytes 0-7 and 12-15 changed; nothing else (KIP-98's layout).
        assert_eq!(&stored[0..8], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&stored[12..16], &[0x0a, 0x0b, 0x0c, 0x0d]);
        assert_eq!(&stored[8..12], &original[8..12]);
        assert_eq!(&stored[16..], &original[16..]);
        let mut h = BatchHeaderMut::new(&mut stored).unwrap();
        h.set_last_offset(10);
        assert_eq!(h.header().base_offset, 9);
    }

    #[test]
    fn log_append_time_rewrites_the_crc() {
        let mut stored = batch(3);
        let mut h = BatchHeaderMut::new(&mut stored).unwrap();
        h.set_max_timestamp(TimestampType::LogAppendTime, 99);
        assert!(h.crc_is_valid());
        let b = Batches::new(stored.clone().into(), ReadOptions::default())
            .next()
            .unwrap()
            .unwrap();
        assert!(b.crc_is_valid());
        assert_eq!(b.header().max_timestamp, 99);
        assert_eq!(b.header().timestamp_type(), TimestampType::LogAppendTime);
        // And every record still reads.
        assert_eq!(b.records().unwrap().into_iter().count(), 3);
    }

    #[test]
    fn bad_input_is_an_error_and_changes_nothing() {
        let mut short = batch(1);
        short.truncate(40);
        assert!(BatchHeaderMut::new(&mut short).is_err());
        let mut tiny = vec![0u8; 5];
        assert!(BatchHeaderMut::new(&mut tiny).is_err());
        // A legacy magic.
        let mut legacy = batch(1);
        legacy[16] = 1;
        let e = BatchHeaderMut::new(&mut legacy).unwrap_err();
        assert_eq!(e.kind(), &K::InvalidMagic(1));
        // A size field below the header, or negative.
        for size in [-1_i32, 0, 48] {
            let mut b = batch(1);
            b[8..12].copy_from_slice(&size.to_be_bytes());
            assert!(BatchHeaderMut::new(&mut b).is_err(), "{size}");
        }
        // Two batches, the second cut short: nothing assigned.
        let mut set = batch(2);
        set.extend_from_slice(&batch(1)[..30]);
        let before = set.clone();
        assert!(assign_offsets(&mut set, 5, 1).is_err());
        assert_eq!(set, before);
        // Arbitrary bytes never panic.
        for len in 0..80 {
            let mut junk: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
            let _ = assign_offsets(&mut junk, 0, 0);
            let _ = BatchHeaderMut::new(&mut junk);
        }
    }

    #[test]
    fn assigns_consecutive_offsets() {
        let mut set = batch(4);
        set.extend_from_slice(&batch(1));
        set.extend_from_slice(&batch(2));
        assert_eq!(assign_offsets(&mut set, 1000, 3).unwrap(), 1007);
        let headers: Vec<_> = Batches::new(set.into(), ReadOptions::default())
            .map(|b| {
                let b = b.unwrap();
                assert!(b.crc_is_valid());
                *b.header()
            })
            .collect();
        let got: Vec<_> = headers
            .iter()
            .map(|h| (h.base_offset, h.partition_leader_epoch))
            .collect();
        assert_eq!(got, [(1000, 3), (1004, 3), (1005, 3)]);
        assert_eq!(assign_offsets(&mut [], 7, 0).unwrap(), 7);
    }
}
