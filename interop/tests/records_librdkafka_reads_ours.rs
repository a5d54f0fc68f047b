//! librdkafka (2.12, through the `rdkafka` crate) reads the record batches we build: each
//! batch, built with `BatchBuilder` (uncompressed and with every codec), is sent in a Produce
//! request of ours to librdkafka's mock cluster, which stores a produced batch's bytes as they
//! are (it only rewrites the base offset and partition leader epoch, which the CRC does not
//! cover) and serves them on Fetch. A `BaseConsumer` with `check.crcs=true` then reads the
//! topic, and every record must come back with the key, value, headers, timestamp and offset
//! we built. A batch whose CRC we corrupt is refused by librdkafka (`BadMessage`) and skipped,
//! while the batches around it still read.

use std::time::{Duration, Instant};

use kafka_wire::records::{BatchBuilder, Compression, NewHeader};
use kafka_wire::Version;
use kafka_wire_interop::client::{negotiate, Connection};
use kafka_wire_messages::{
    PartitionProduceData, ProduceRequest, ProduceResponse, TopicProduceData,
};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::message::{Headers, Message, Timestamp};
use rdkafka::mocking::MockCluster;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{Offset, TopicPartitionList};

const TOPIC: &str = "ours-topic";

/// A record as built and as read back.
#[derive(Debug, Clone, PartialEq)]
struct Rec {
    offset: i64,
    timestamp: Timestamp,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(String, Option<Vec<u8>>)>,
}

/// One batch: its codec, whether it uses log-append time, and `n` records.
struct Spec {
    codec: Compression,
    n: usize,
    log_append_time: Option<i64>,
    producer: bool,
}

/// Builds the batch of `spec` (base offset 0: the mock assigns the real one) and the records
/// librdkafka should read from it once stored at `first_offset`.
fn build(spec: &Spec, tag: usize, first_offset: i64) -> (Vec<u8>, Vec<Rec>) {
    let mut b = BatchBuilder::new(0);
    b.compression(spec.codec);
    if let Some(t) = spec.log_append_time {
        b.log_append_time(t);
    }
    if spec.producer {
        // An idempotent (not transactional) producer's batch: the mock checks sequences only
        // for transactional ids, and the consumer reads it like any other.
        b.producer(4242, 3, 17);
    }
    let mut want = Vec::new();
    for i in 0..spec.n {
        let timestamp = 1_700_000_000_000 + (tag * 1000 + i * 7) as i64;
        let key = (i % 4 != 1).then(|| format!("key-{tag}-{i}").into_bytes());
        let value =
            (i % 5 != 2).then(|| format!("value {tag}/{i} ").repeat(1 + i % 30).into_bytes());
        let h_vals: [Option<Vec<u8>>; 3] = [
            Some(format!("trace-{i}").into_bytes()),
            None,
            Some(vec![0xff, 0, i as u8]),
        ];
        let names = ["trace", "null-header", "bin"];
        let count = i % 4;
        let headers: Vec<NewHeader<'_>> = (0..count.min(3))
            .map(|h| NewHeader::new(names[h], h_vals[h].as_deref()))
            .collect();
        let delta = b.append(timestamp, key.as_deref(), value.as_deref(), &headers);
        want.push(Rec {
            offset: first_offset + delta,
            timestamp: Timestamp::CreateTime(timestamp),
            key,
            value,
            headers: (0..count.min(3))
                .map(|h| (names[h].to_owned(), h_vals[h].clone()))
                .collect(),
        });
    }
    if let Some(t) = spec.log_append_time {
        for r in &mut want {
            r.timestamp = Timestamp::LogAppendTime(t);
        }
    }
    (b.build_vec().expect("build the batch"), want)
}

/// Sends `batch` alone in a Produce request at `version` and returns the base offset the mock
/// gave it. One batch per request: the mock counts a partition's records from the first
/// batch's header only.
fn produce(conn: &mut Connection, version: Version, batch: Vec<u8>) -> i64 {
    let req = ProduceRequest {
        transactional_id: None,
        acks: -1,
        timeout_ms: 10_000,
        topic_data: vec![TopicProduceData {
            name: TOPIC.into(),
            partition_data: vec![PartitionProduceData {
                index: 0,
                records: Some(batch.into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let x = conn
        .call::<ProduceRequest, ProduceResponse>(version, &req)
        .unwrap_or_else(|e| panic!("Produce v{version}: {e}"));
    let p = &x.body.responses[0].partition_responses[0];
    assert_eq!(p.error_code, 0, "Produce: {:?}", x.body);
    p.base_offset
}

/// What the consumer read: the records, and the errors it reported.
fn consume(bootstrap: &str, expected: usize) -> (Vec<Rec>, Vec<KafkaError>) {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", "ours-reader")
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "true")
        .set("check.crcs", "true")
        .create()
        .expect("consumer");
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(TOPIC, 0, Offset::Beginning)
        .expect("partition");
    consumer.assign(&tpl).expect("assign");
    let (mut got, mut errors) = (Vec::new(), Vec::new());
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        match consumer.poll(Duration::from_millis(200)) {
            None => {}
            Some(Ok(m)) => got.push(Rec {
                offset: m.offset(),
                timestamp: m.timestamp(),
                key: m.key().map(<[u8]>::to_vec),
                value: m.payload().map(<[u8]>::to_vec),
                headers: m
                    .headers()
                    .map(|hs| {
                        hs.iter()
                            .map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec)))
                            .collect()
                    })
                    .unwrap_or_default(),
            }),
            Some(Err(KafkaError::PartitionEOF(_))) if got.len() >= expected => break,
            Some(Err(KafkaError::PartitionEOF(_))) => {}
            Some(Err(e)) => errors.push(e),
        }
    }
    (got, errors)
}

/// Connects to the single broker and learns the Produce version both sides speak.
fn connect(
    cluster: &MockCluster<'static, rdkafka::producer::DefaultProducerContext>,
) -> (Connection, Version) {
    let bootstrap = cluster.bootstrap_servers();
    let mut conn = Connection::connect(bootstrap.as_str(), 0).expect("connect to the mock");
    let av = conn
        .api_versions(3)
        .unwrap_or_else(|e| panic!("ApiVersions: {e}"))
        .accepted
        .body;
    let version = negotiate(&av, &ProduceRequest::default()).expect("a common Produce version");
    (conn, version)
}

fn cluster() -> MockCluster<'static, rdkafka::producer::DefaultProducerContext> {
    let cluster = MockCluster::new(1).expect("librdkafka mock cluster");
    cluster
        .create_topic(TOPIC, 1, 1)
        .expect("create topic on the mock");
    cluster
}

fn specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for codec in Compression::ALL {
        for n in [1, 60] {
            specs.push(Spec {
                codec,
                n,
                log_append_time: None,
                producer: n == 1,
            });
        }
    }
    specs.push(Spec {
        codec: Compression::None,
        n: 5,
        log_append_time: Some(1_700_000_123_456),
        producer: false,
    });
    specs
}

#[test]
fn librdkafka_reads_what_we_build() {
    let cluster = cluster();
    let (mut conn, version) = connect(&cluster);
    let mut want = Vec::new();
    for (tag, spec) in specs().iter().enumerate() {
        let next = want.len() as i64;
        let (batch, recs) = build(spec, tag, next);
        assert_eq!(produce(&mut conn, version, batch), next, "batch {tag}");
        want.extend(recs);
    }
    let (got, errors) = consume(&cluster.bootstrap_servers(), want.len());
    assert!(errors.is_empty(), "consumer errors: {errors:?}");
    assert_eq!(got.len(), want.len(), "record count");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "offset {}", w.offset);
    }
    println!(
        "Produce v{version}: {} batches, {} records read back by librdkafka",
        specs().len(),
        want.len()
    );
}

#[test]
fn librdkafka_refuses_our_batch_with_a_corrupt_crc() {
    let cluster = cluster();
    let (mut conn, version) = connect(&cluster);
    let spec = Spec {
        codec: Compression::None,
        n: 3,
        log_append_time: None,
        producer: false,
    };
    // Two good batches, then the corrupt one last: librdkafka 2.12 reports the CRC failure
    // and then skips by the CRC'd length from the wrong place (`rd_kafka_buf_skip_to` is
    // given a length, not a position), so what follows a corrupt batch in the same Fetch
    // answer does not read reliably.
    let mut want = Vec::new();
    for tag in 0..3 {
        let next = 3 * tag as i64;
        let (mut batch, recs) = build(&spec, tag, next);
        if tag == 2 {
            // The CRC (bytes 17..21 of the batch) no longer matches the bytes it covers.
            batch[20] ^= 0x01;
        } else {
            want.extend(recs);
        }
        assert_eq!(produce(&mut conn, version, batch), next, "batch {tag}");
    }
    let (got, errors) = consume(&cluster.bootstrap_servers(), want.len());
    assert_eq!(
        got, want,
        "the good batches, and nothing of the corrupt one"
    );
    assert!(
        matches!(
            errors.first(),
            Some(KafkaError::MessageConsumption(RDKafkaErrorCode::BadMessage))
        ),
        "a BadMessage error expected first, got {errors:?}"
    );
}
