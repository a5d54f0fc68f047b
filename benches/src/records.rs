//! Record-batch workloads, identical for kafka-wire's `records` module and kafka-protocol's
//! `RecordBatchEncoder`/`RecordBatchDecoder`: a 1 MB batch of 1 KB records and a batch of
//! 10,000 tiny records.

use bytes::{Bytes, BytesMut};
use kafka_protocol::indexmap::IndexMap;
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::records as kp;
use kafka_wire::records::{BatchBuilder, Batches, Compression, NewRecord, ReadOptions};

/// One workload: the records to write, in both libraries' shapes.
pub struct RecordsWorkload {
    /// Short name for benchmark ids.
    pub name: &'static str,
    /// (timestamp, key, value) per record, offsets 0.. in order.
    pub records: Vec<(i64, Option<Bytes>, Option<Bytes>)>,
    /// The same records as kafka-protocol's owned records.
    pub theirs: Vec<kp::Record>,
}

const TS: i64 = 1_700_000_000_000;

fn workload(name: &'static str, n: usize, key_len: usize, value_len: usize) -> RecordsWorkload {
    let mut records = Vec::with_capacity(n);
    for i in 0..n {
        let key = (key_len > 0).then(|| Bytes::from(format!("{i:0key_len$}").into_bytes()));
        // Text-like values so the codecs have something to compress.
        let text = format!("record {i} of the {name} workload; ");
        let value: Vec<u8> = text.bytes().cycle().take(value_len).collect();
        records.push((TS + (i as i64 % 100), key, Some(Bytes::from(value))));
    }
    let theirs = records
        .iter()
        .enumerate()
        .map(|(i, (ts, k, v))| kp_record(0, i, *ts, k.clone(), v.clone(), IndexMap::new()))
        .collect();
    RecordsWorkload {
        name,
        records,
        theirs,
    }
}

/// kafka-protocol's record `i` of a plain batch (not transactional, no producer) whose first
/// offset is `base`: offset `base + i`, and sequence `i - 1` (kafka-protocol starts a new
/// batch whenever offset - sequence changes; -1 for the first record keeps one batch with base
/// sequence -1, as a non-idempotent producer writes it).
pub fn kp_record(
    base: i64,
    i: usize,
    timestamp: i64,
    key: Option<Bytes>,
    value: Option<Bytes>,
    headers: IndexMap<StrBytes, Option<Bytes>>,
) -> kp::Record {
    kp::Record {
        transactional: false,
        control: false,
        delete_horizon: false,
        partition_leader_epoch: -1,
        producer_id: -1,
        producer_epoch: -1,
        timestamp_type: kp::TimestampType::Creation,
        offset: base + i as i64,
        sequence: i as i32 - 1,
        timestamp,
        key,
        value,
        headers,
    }
}

/// 1,000 records of a 16-byte key and a 1,000-byte value: a 1 MB batch.
pub fn large_records() -> RecordsWorkload {
    kb_shaped("1kb_x1000", 1000)
}

/// `n` records shaped as [`large_records`]' (a 16-byte key, a 1,000-byte value): with 50 the
/// batch, its values and the output stay in L2, with 1,000 or more they stream through L3.
pub fn kb_records(n: usize) -> RecordsWorkload {
    kb_shaped("1kb_xN", n)
}

/// The shape [`large_records`] and [`kb_records`] share.
fn kb_shaped(name: &'static str, n: usize) -> RecordsWorkload {
    workload(name, n, 16, 1000)
}

/// 10,000 records of a 10-byte value, no key.
pub fn tiny_records() -> RecordsWorkload {
    workload("tiny_x10000", 10_000, 0, 10)
}

fn their_codec(c: Compression) -> kp::Compression {
    match c {
        Compression::None => kp::Compression::None,
        Compression::Gzip => kp::Compression::Gzip,
        Compression::Snappy => kp::Compression::Snappy,
        Compression::Lz4 => kp::Compression::Lz4,
        Compression::Zstd => kp::Compression::Zstd,
    }
}

/// Builds the batch with kafka-wire into `out` (cleared first).
pub fn build_ours(w: &RecordsWorkload, codec: Compression, out: &mut Vec<u8>) {
    let mut b = BatchBuilder::with_buffer(0, std::mem::take(out));
    b.compression(codec);
    b.partition_leader_epoch(-1);
    for (ts, k, v) in &w.records {
        b.append(*ts, k.as_deref(), v.as_deref(), &[]);
    }
    *out = b.build_vec().expect("build");
}

/// Builds the batch with kafka-wire into `out` (cleared first), all records in one
/// `BatchBuilder::append_all`: the like-for-like call of kafka-protocol's encoder, which takes
/// all records at once.
pub fn build_ours_all(w: &RecordsWorkload, codec: Compression, out: &mut Vec<u8>) {
    let mut b = BatchBuilder::with_buffer(0, std::mem::take(out));
    b.compression(codec);
    b.partition_leader_epoch(-1);
    b.append_all(
        w.records
            .iter()
            .map(|(ts, k, v)| NewRecord::new(*ts, k.as_deref(), v.as_deref())),
    );
    *out = b.build_vec().expect("build");
}

/// Builds the batch with kafka-protocol into `out` (cleared first).
pub fn build_theirs(w: &RecordsWorkload, codec: Compression, out: &mut BytesMut) {
    out.clear();
    let opts = kp::RecordEncodeOptions {
        version: 2,
        compression: their_codec(codec),
    };
    kp::RecordBatchEncoder::encode(out, &w.theirs, &opts).expect("encode");
}

/// Reads every record with kafka-wire; returns a checksum of what was read so nothing is
/// optimised away.
pub fn read_ours(bytes: &Bytes) -> usize {
    read_ours_with(bytes, true)
}

/// [`read_ours`] with the CRC check on or off, to separate the CRC's share of the cost.
pub fn read_ours_with(bytes: &Bytes, verify_crc: bool) -> usize {
    let opts = ReadOptions {
        verify_crc,
        ..ReadOptions::default()
    };
    let mut sum = 0usize;
    for batch in Batches::new(bytes.clone(), opts) {
        let batch = batch.expect("batch");
        let recs = batch.records().expect("records");
        for r in &recs {
            let r = r.expect("record");
            sum = sum
                .wrapping_add(r.offset as usize)
                .wrapping_add(r.timestamp as usize)
                .wrapping_add(r.key.map_or(0, <[u8]>::len))
                .wrapping_add(r.value.map_or(0, <[u8]>::len))
                .wrapping_add(r.headers.len());
        }
    }
    sum
}

/// Reads every record with kafka-protocol (which verifies the CRC too); same checksum.
pub fn read_theirs(bytes: &Bytes) -> usize {
    let mut buf = bytes.clone();
    let set = kp::RecordBatchDecoder::decode(&mut buf).expect("decode");
    let mut sum = 0usize;
    for r in &set.records {
        sum = sum
            .wrapping_add(r.offset as usize)
            .wrapping_add(r.timestamp as usize)
            .wrapping_add(r.key.as_ref().map_or(0, Bytes::len))
            .wrapping_add(r.value.as_ref().map_or(0, Bytes::len))
            .wrapping_add(r.headers.len());
    }
    sum
}

/// Builds the workload with both libraries and checks each reads the other's batch to the
/// same records, and that the uncompressed batches are byte-identical. Returns (ours, theirs).
pub fn check_records(w: &RecordsWorkload, codec: Compression) -> (Bytes, Bytes) {
    let mut a = Vec::new();
    build_ours(w, codec, &mut a);
    let mut b = BytesMut::new();
    build_theirs(w, codec, &mut b);
    let mut all = Vec::new();
    build_ours_all(w, codec, &mut all);
    let (a, b) = (Bytes::from(a), b.freeze());
    assert!(
        all == a,
        "{} {codec}: append_all differs from append",
        w.name
    );
    if codec == Compression::None {
        let first_diff = a.iter().zip(b.iter()).position(|(x, y)| x != y);
        assert!(
            a == b,
            "{}: uncompressed batches differ ({} vs {} bytes, first at {first_diff:?})",
            w.name,
            a.len(),
            b.len()
        );
    }
    let want = read_ours(&a);
    assert_eq!(
        read_theirs(&a),
        want,
        "{} {codec}: theirs reading ours",
        w.name
    );
    assert_eq!(
        read_ours(&b),
        want,
        "{} {codec}: ours reading theirs",
        w.name
    );
    (a, b)
}

/// A Produce v8 request frame (size, header, one topic of one partition) carrying the
/// workload's batch, uncompressed, written by kafka-wire into `out` (reused): the request
/// encoded with an empty records field, then the batch built in place after it
/// (`BatchBuilder::ending_frame`), so the batch is never copied.
pub fn produce_ours(w: &RecordsWorkload, out: &mut Vec<u8>) {
    use kafka_wire_messages::{PartitionProduceData, ProduceRequest, TopicProduceData};
    let request = ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: vec![TopicProduceData {
            name: "records-bench".into(),
            partition_data: vec![PartitionProduceData {
                index: 0,
                records: Some(kafka_wire::Records::default()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let header = kafka_wire::RequestHeader::new(0, 8, 1, Some("bench".into()));
    let mut buf = std::mem::take(out);
    buf.clear();
    kafka_wire::frame::encode_request(&mut buf, &header, &request).expect("encode");
    let mut b = BatchBuilder::ending_frame(0, buf).expect("a frame ending in its records");
    b.partition_leader_epoch(-1);
    for (ts, k, v) in &w.records {
        b.append(*ts, k.as_deref(), v.as_deref(), &[]);
    }
    *out = b.build_vec().expect("build");
}

/// The same frame by kafka-protocol: the batch encoded into `batch` (reused), then the
/// request, which copies it, into `out` (cleared first).
pub fn produce_theirs(w: &RecordsWorkload, batch: &mut BytesMut, out: &mut BytesMut) {
    use bytes::BufMut;
    use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kafka_protocol::messages::{ProduceRequest, RequestHeader, TopicName};
    use kafka_protocol::protocol::Encodable;
    batch.clear();
    let opts = kp::RecordEncodeOptions {
        version: 2,
        compression: kp::Compression::None,
    };
    kp::RecordBatchEncoder::encode(batch, &w.theirs, &opts).expect("encode");
    let records = batch.split().freeze();
    let request = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(TopicName(StrBytes::from_static_str("records-bench")))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(0)
                .with_records(Some(records))])]);
    let header = RequestHeader::default()
        .with_request_api_key(0)
        .with_request_api_version(8)
        .with_correlation_id(1)
        .with_client_id(Some(StrBytes::from_static_str("bench")));
    out.clear();
    out.put_i32(0);
    header.encode(out, 1).expect("header");
    request.encode(out, 8).expect("request");
    let size = (out.len() - 4) as i32;
    out[..4].copy_from_slice(&size.to_be_bytes());
}

/// Both libraries' Produce frames of `w`, asserted byte for byte identical.
pub fn check_produce(w: &RecordsWorkload) {
    let mut ours = Vec::new();
    produce_ours(w, &mut ours);
    let (mut batch, mut theirs) = (BytesMut::new(), BytesMut::new());
    produce_theirs(w, &mut batch, &mut theirs);
    assert!(ours == theirs[..], "the Produce frames differ");
}
