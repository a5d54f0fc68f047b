//! Shared inputs for the benchmarks and the allocation tests: the same messages built with
//! the same values in kafka-wire (`ours`) and in the `kafka-protocol` crate (`theirs`), and a
//! cross-check that both encode them to identical bytes.
//!
//! Every builder takes the values from one place (the `*_spec` helpers), so the two trees
//! cannot drift apart; [`check_identical`] asserts it on the bytes.

use bytes::Bytes;
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::{Encodable as _, StrBytes};
use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields, Uuid};
use kafka_wire_messages as kw;

/// A message built in both libraries, with the version it is benchmarked at.
pub struct Pair<O, T> {
    /// kafka-wire's value.
    pub ours: O,
    /// kafka-protocol's value.
    pub theirs: T,
    /// The version both encode at.
    pub version: i16,
}

fn s(v: &str) -> Str {
    Str::from(v.to_owned())
}

fn sb(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_owned())
}

// ---- TxnOffsetCommit v5 ----------------------------------------------------------------------

/// (partition index, committed offset, leader epoch, metadata)
type TocPartition = (i32, i64, i32, Option<String>);

/// The values of one TxnOffsetCommit request: `topics` topics of `partitions` partitions.
struct TocSpec {
    transactional_id: String,
    group_id: String,
    producer_id: i64,
    producer_epoch: i16,
    generation: i32,
    member_id: String,
    group_instance_id: Option<String>,
    topics: Vec<(String, Vec<TocPartition>)>,
}

fn toc_spec(topics: usize, partitions: usize) -> TocSpec {
    // Most clients send "" as metadata; one partition in ten carries some.
    toc_spec_with(
        topics,
        partitions,
        |t| format!("payments.events.v1.topic-{t:03}"),
        |p| if p % 10 == 0 { "checkpoint" } else { "" }.to_owned(),
    )
}

/// A TxnOffsetCommit v3+ request of `topics` × `partitions`, with the topic names and the
/// partitions' metadata given by `name` and `meta`.
fn toc_spec_with(
    topics: usize,
    partitions: usize,
    name: impl Fn(usize) -> String,
    meta: impl Fn(usize) -> String,
) -> TocSpec {
    TocSpec {
        transactional_id: "payments-processor-txn-0".into(),
        group_id: "payments-consumer-group".into(),
        producer_id: 4_000_123_456,
        producer_epoch: 17,
        generation: 42,
        member_id: "consumer-payments-1-4f7c3a2e-9d1b-4c6e-8a5f-2b3c4d5e6f70".into(),
        group_instance_id: Some("payments-instance-1".into()),
        topics: (0..topics)
            .map(|t| {
                let parts = (0..partitions)
                    .map(|p| {
                        (
                            p as i32,
                            1_000_000_000 + (t as i64) * 100_000 + p as i64,
                            7,
                            Some(meta(p)),
                        )
                    })
                    .collect();
                (name(t), parts)
            })
            .collect(),
    }
}

/// The same request at a version before 3, which has no generation, member or instance id:
/// those take the values that version implies (-1, "", null).
fn pre_v3(spec: TocSpec) -> TocSpec {
    TocSpec {
        generation: -1,
        member_id: String::new(),
        group_instance_id: None,
        ..spec
    }
}

fn toc_pair(
    spec: TocSpec,
    version: i16,
) -> Pair<kw::TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest> {
    let ours = kw::TxnOffsetCommitRequest {
        transactional_id: s(&spec.transactional_id),
        group_id: s(&spec.group_id),
        producer_id: spec.producer_id,
        producer_epoch: spec.producer_epoch,
        generation_id_or_member_epoch: spec.generation,
        member_id: s(&spec.member_id),
        group_instance_id: spec.group_instance_id.as_deref().map(s),
        topics: spec
            .topics
            .iter()
            .map(|(name, parts)| kw::TxnOffsetCommitRequestTopic {
                name: s(name),
                partitions: parts
                    .iter()
                    .map(|(i, o, e, m)| kw::TxnOffsetCommitRequestPartition {
                        partition_index: *i,
                        committed_offset: *o,
                        committed_leader_epoch: *e,
                        committed_metadata: m.as_deref().map(s),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let theirs = kp::TxnOffsetCommitRequest::default()
        .with_transactional_id(sb(&spec.transactional_id).into())
        .with_group_id(sb(&spec.group_id).into())
        .with_producer_id(spec.producer_id.into())
        .with_producer_epoch(spec.producer_epoch)
        .with_generation_id(spec.generation)
        .with_member_id(sb(&spec.member_id))
        .with_group_instance_id(spec.group_instance_id.as_deref().map(sb))
        .with_topics(
            spec.topics
                .iter()
                .map(|(name, parts)| {
                    kp::txn_offset_commit_request::TxnOffsetCommitRequestTopic::default()
                        .with_name(sb(name).into())
                        .with_partitions(
                            parts
                                .iter()
                                .map(|(i, o, e, m)| {
                                    kp::txn_offset_commit_request::TxnOffsetCommitRequestPartition::default()
                                        .with_partition_index(*i)
                                        .with_committed_offset(*o)
                                        .with_committed_leader_epoch(*e)
                                        .with_committed_metadata(m.as_deref().map(sb))
                                })
                                .collect(),
                        )
                })
                .collect(),
        );
    Pair {
        ours,
        theirs,
        version,
    }
}

/// TxnOffsetCommit v5 request, 100 topics × 100 partitions (about 190 KB).
pub fn txn_offset_commit_large() -> Pair<kw::TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest> {
    toc_pair(toc_spec(100, 100), 5)
}

/// TxnOffsetCommit v5 request, 100 topics × 100 partitions, metadata `"m"` on every partition.
pub fn txn_offset_commit_meta() -> Pair<kw::TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest> {
    toc_pair(
        toc_spec_with(
            100,
            100,
            |t| format!("payments.events.v1.topic-{t:03}"),
            |_| "m".into(),
        ),
        5,
    )
}

/// TxnOffsetCommit v2 request (classic encoding: int16 string lengths, int32 counts), 1000
/// topics × 1 partition, 60-character topic names, non-empty metadata.
pub fn txn_offset_commit_v2_long_names(
) -> Pair<kw::TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest> {
    let spec = toc_spec_with(
        1000,
        1,
        // "payments.events.v1.region-eu-west-1.customer-ledger-" (52) + 8 digits = 60.
        |t| format!("payments.events.v1.region-eu-west-1.customer-ledger-{t:08}"),
        |p| format!("checkpoint-{p}"),
    );
    debug_assert!(spec.topics.iter().all(|(n, _)| n.len() == 60));
    toc_pair(pre_v3(spec), 2)
}

/// TxnOffsetCommit v5 request, 1 topic × 5000 partitions, 200 bytes of metadata on each.
pub fn txn_offset_commit_wide() -> Pair<kw::TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest> {
    toc_pair(
        toc_spec_with(
            1,
            5000,
            |_| "clickstream.raw-events.v3".into(),
            |p| {
                // 200 bytes: a JSON-ish checkpoint as consumers write, padded to length.
                let mut m = format!("{{\"source\":\"ingest-{p:05}\",\"checkpoint\":{}}}", p * 17);
                m.extend(core::iter::repeat_n('.', 200 - m.len()));
                m
            },
        ),
        5,
    )
}

/// A TxnOffsetCommit v0 request: empty ids, producer id and epoch zero, and `topics` topics
/// of one partition with empty names and metadata (v0 has no leader epoch: -1).
fn toc_v0(topics: usize) -> Pair<kw::TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest> {
    toc_pair(
        TocSpec {
            transactional_id: String::new(),
            group_id: String::new(),
            producer_id: 0,
            producer_epoch: 0,
            generation: -1,
            member_id: String::new(),
            group_instance_id: None,
            topics: (0..topics)
                .map(|_| (String::new(), vec![(0, 0, -1, Some(String::new()))]))
                .collect(),
        },
        0,
    )
}

/// TxnOffsetCommit v0 request with empty ids and no topics (18 bytes).
pub fn txn_offset_commit_v0_empty() -> Pair<kw::TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest>
{
    toc_v0(0)
}

/// TxnOffsetCommit v0 request with one topic of one partition, every string empty (38
/// bytes).
pub fn txn_offset_commit_v0_one() -> Pair<kw::TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest> {
    toc_v0(1)
}

/// TxnOffsetCommit v5 request, the seed page's smallest instance (every value zero or empty,
/// every array one element).
pub fn txn_offset_commit_small() -> Pair<kw::TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest> {
    toc_pair(
        TocSpec {
            transactional_id: String::new(),
            group_id: String::new(),
            producer_id: 0,
            producer_epoch: 0,
            generation: 0,
            member_id: String::new(),
            group_instance_id: Some(String::new()),
            topics: vec![(String::new(), vec![(0, 0, 0, Some(String::new()))])],
        },
        5,
    )
}

// ---- AddPartitionsToTxn v5 -------------------------------------------------------------------

/// (transactional id, producer id, epoch, verify only, [(topic, [partition])])
type AptSpec = Vec<(String, i64, i16, bool, Vec<(String, Vec<i32>)>)>;

fn apt_spec(txns: usize, topics: usize, partitions: usize) -> AptSpec {
    (0..txns)
        .map(|x| {
            (
                format!("order-service-txn-{x}"),
                9_000_000 + x as i64,
                (x % 5) as i16,
                x % 4 == 3,
                (0..topics)
                    .map(|t| {
                        (
                            format!("orders.v2.shard-{t:02}"),
                            (0..partitions as i32).map(|p| p * 3 + x as i32).collect(),
                        )
                    })
                    .collect(),
            )
        })
        .collect()
}

fn apt_req_pair(
    spec: &AptSpec,
) -> Pair<kw::AddPartitionsToTxnRequest, kp::AddPartitionsToTxnRequest> {
    use kp::add_partitions_to_txn_request as k;
    let ours = kw::AddPartitionsToTxnRequest {
        transactions: spec
            .iter()
            .map(
                |(id, pid, ep, vo, topics)| kw::AddPartitionsToTxnTransaction {
                    transactional_id: s(id),
                    producer_id: *pid,
                    producer_epoch: *ep,
                    verify_only: *vo,
                    topics: topics
                        .iter()
                        .map(|(n, ps)| kw::AddPartitionsToTxnTopic {
                            name: s(n),
                            partitions: ps.as_slice().into(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                },
            )
            .collect(),
        ..Default::default()
    };
    let theirs = kp::AddPartitionsToTxnRequest::default().with_transactions(
        spec.iter()
            .map(|(id, pid, ep, vo, topics)| {
                k::AddPartitionsToTxnTransaction::default()
                    .with_transactional_id(sb(id).into())
                    .with_producer_id((*pid).into())
                    .with_producer_epoch(*ep)
                    .with_verify_only(*vo)
                    .with_topics(
                        topics
                            .iter()
                            .map(|(n, ps)| {
                                k::AddPartitionsToTxnTopic::default()
                                    .with_name(sb(n).into())
                                    .with_partitions(ps.clone())
                            })
                            .collect(),
                    )
            })
            .collect(),
    );
    Pair {
        ours,
        theirs,
        version: 5,
    }
}

fn apt_resp_pair(
    spec: &AptSpec,
) -> Pair<kw::AddPartitionsToTxnResponse, kp::AddPartitionsToTxnResponse> {
    use kp::add_partitions_to_txn_response as k;
    let code = |p: i32| if p % 7 == 0 { 51 } else { 0 };
    let ours = kw::AddPartitionsToTxnResponse {
        throttle_time_ms: 0,
        error_code: 0,
        results_by_transaction: spec
            .iter()
            .map(|(id, _, _, _, topics)| kw::AddPartitionsToTxnResult {
                transactional_id: s(id),
                topic_results: topics
                    .iter()
                    .map(|(n, ps)| kw::AddPartitionsToTxnTopicResult {
                        name: s(n),
                        results_by_partition: ps
                            .iter()
                            .map(|&p| kw::AddPartitionsToTxnPartitionResult {
                                partition_index: p,
                                partition_error_code: code(p),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let theirs = kp::AddPartitionsToTxnResponse::default()
        .with_throttle_time_ms(0)
        .with_error_code(0)
        .with_results_by_transaction(
            spec.iter()
                .map(|(id, _, _, _, topics)| {
                    k::AddPartitionsToTxnResult::default()
                        .with_transactional_id(sb(id).into())
                        .with_topic_results(
                            topics
                                .iter()
                                .map(|(n, ps)| {
                                    k::AddPartitionsToTxnTopicResult::default()
                                        .with_name(sb(n).into())
                                        .with_results_by_partition(
                                            ps.iter()
                                                .map(|&p| {
                                                    k::AddPartitionsToTxnPartitionResult::default()
                                                        .with_partition_index(p)
                                                        .with_partition_error_code(code(p))
                                                })
                                                .collect(),
                                        )
                                })
                                .collect(),
                        )
                })
                .collect(),
        );
    Pair {
        ours,
        theirs,
        version: 5,
    }
}

/// AddPartitionsToTxn v5 request as a broker batches it: 8 transactions × 10 topics × 16
/// partitions.
pub fn add_partitions_request() -> Pair<kw::AddPartitionsToTxnRequest, kp::AddPartitionsToTxnRequest>
{
    apt_req_pair(&apt_spec(8, 10, 16))
}

/// The AddPartitionsToTxn v5 response to [`add_partitions_request`].
pub fn add_partitions_response(
) -> Pair<kw::AddPartitionsToTxnResponse, kp::AddPartitionsToTxnResponse> {
    apt_resp_pair(&apt_spec(8, 10, 16))
}

/// AddPartitionsToTxn v5 request, 50 transactions × 20 topics × 10 partitions.
pub fn add_partitions_request_big(
) -> Pair<kw::AddPartitionsToTxnRequest, kp::AddPartitionsToTxnRequest> {
    apt_req_pair(&apt_spec(50, 20, 10))
}

/// AddPartitionsToTxn v3 response (the client-facing shape: results by topic, no
/// transactions level), 200 topics × 50 partitions, one error code in seven non-zero.
pub fn add_partitions_response_v3(
) -> Pair<kw::AddPartitionsToTxnResponse, kp::AddPartitionsToTxnResponse> {
    use kp::add_partitions_to_txn_response as k;
    let code = |p: i32| if p % 7 == 0 { 51 } else { 0 };
    let topics: Vec<(String, Vec<i32>)> = (0..200)
        .map(|t| (format!("orders.v2.shard-{t:03}"), (0..50).collect()))
        .collect();
    let ours = kw::AddPartitionsToTxnResponse {
        throttle_time_ms: 12,
        results_by_topic_v3_and_below: topics
            .iter()
            .map(|(n, ps)| kw::AddPartitionsToTxnTopicResult {
                name: s(n),
                results_by_partition: ps
                    .iter()
                    .map(|&p| kw::AddPartitionsToTxnPartitionResult {
                        partition_index: p,
                        partition_error_code: code(p),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let theirs = kp::AddPartitionsToTxnResponse::default()
        .with_throttle_time_ms(12)
        .with_results_by_topic_v3_and_below(
            topics
                .iter()
                .map(|(n, ps)| {
                    k::AddPartitionsToTxnTopicResult::default()
                        .with_name(sb(n).into())
                        .with_results_by_partition(
                            ps.iter()
                                .map(|&p| {
                                    k::AddPartitionsToTxnPartitionResult::default()
                                        .with_partition_index(p)
                                        .with_partition_error_code(code(p))
                                })
                                .collect(),
                        )
                })
                .collect(),
        );
    Pair {
        ours,
        theirs,
        version: 3,
    }
}

/// AddPartitionsToTxn v5 request, the seed page's smallest instance.
pub fn add_partitions_small() -> Pair<kw::AddPartitionsToTxnRequest, kp::AddPartitionsToTxnRequest>
{
    apt_req_pair(&vec![(
        String::new(),
        0,
        0,
        false,
        vec![(String::new(), vec![0])],
    )])
}

// ---- InitializeShareGroupState v0 ------------------------------------------------------------

/// (group id, [(topic id, [(partition, state epoch, start offset)])])
type IsgsSpec = (String, Vec<(u128, Vec<(i32, i32, i64)>)>);

fn isgs_pair(
    spec: &IsgsSpec,
) -> Pair<kw::InitializeShareGroupStateRequest, kp::InitializeShareGroupStateRequest> {
    use kp::initialize_share_group_state_request as k;
    let ours = kw::InitializeShareGroupStateRequest {
        group_id: s(&spec.0),
        topics: spec
            .1
            .iter()
            .map(|(id, ps)| kw::InitializeStateData {
                topic_id: Uuid::from_u128(*id),
                partitions: ps
                    .iter()
                    .map(|&(p, e, o)| kw::PartitionData {
                        partition: p,
                        state_epoch: e,
                        start_offset: o,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let theirs = kp::InitializeShareGroupStateRequest::default()
        .with_group_id(sb(&spec.0))
        .with_topics(
            spec.1
                .iter()
                .map(|(id, ps)| {
                    k::InitializeStateData::default()
                        .with_topic_id(uuid::Uuid::from_u128(*id))
                        .with_partitions(
                            ps.iter()
                                .map(|&(p, e, o)| {
                                    k::PartitionData::default()
                                        .with_partition(p)
                                        .with_state_epoch(e)
                                        .with_start_offset(o)
                                })
                                .collect(),
                        )
                })
                .collect(),
        );
    Pair {
        ours,
        theirs,
        version: 0,
    }
}

/// InitializeShareGroupState v0 request: 20 topics × 50 partitions.
pub fn share_group_request(
) -> Pair<kw::InitializeShareGroupStateRequest, kp::InitializeShareGroupStateRequest> {
    isgs_pair(&isgs_spec(20, 50))
}

fn isgs_spec(topics: u128, partitions: i32) -> IsgsSpec {
    (
        "share-group-analytics".into(),
        (0..topics)
            .map(|t| {
                (
                    0x0f1e_2d3c_4b5a_6978_8796_a5b4_c3d2_e1f0 ^ (t << 3),
                    (0..partitions)
                        .map(|p| (p, 3, if p % 3 == 0 { -1 } else { 5_000 + p as i64 }))
                        .collect(),
                )
            })
            .collect(),
    )
}

/// InitializeShareGroupState v0 request: 100 topics × 100 partitions.
pub fn share_group_large(
) -> Pair<kw::InitializeShareGroupStateRequest, kp::InitializeShareGroupStateRequest> {
    isgs_pair(&isgs_spec(100, 100))
}

/// InitializeShareGroupState v0 request, the seed page's smallest instance.
pub fn share_group_small(
) -> Pair<kw::InitializeShareGroupStateRequest, kp::InitializeShareGroupStateRequest> {
    isgs_pair(&(String::new(), vec![(0, vec![(0, 0, 0)])]))
}

// ---- Produce v12 (records opaque) -----------------------------------------------------------

/// A record batch as a producer sends it: `n` records of a 12-byte key and a `value_len`-byte
/// JSON-like value, uncompressed, built by kafka-wire's batch builder. Both libraries carry it
/// as opaque bytes: neither decodes records inside a Produce request here.
fn produce_batch(seed: usize, n: usize, value_len: usize) -> Bytes {
    let mut b = kafka_wire::records::BatchBuilder::with_buffer(0, Vec::new());
    b.partition_leader_epoch(-1);
    for i in 0..n {
        let key = format!("user-{:07}", seed * 1000 + i);
        let mut value = format!(
            "{{\"order\":{},\"user\":\"{key}\",\"items\":[",
            seed * 31 + i
        );
        while value.len() < value_len {
            value.push_str("{\"sku\":\"A-1\",\"qty\":2},");
        }
        value.truncate(value_len);
        b.append(
            1_700_000_000_000 + i as i64,
            Some(key.as_bytes()),
            Some(value.as_bytes()),
            &[],
        );
    }
    Bytes::from(b.build_vec().expect("the batch builds"))
}

/// Produce v12 request (flexible, topics by name; v13 names them by id): `topics` topics ×
/// `partitions` partitions, each partition one uncompressed batch of 16 records of about 250
/// bytes (about 4.3 KB a batch), acks -1, transactional.
fn produce_pair(topics: usize, partitions: usize) -> Pair<kw::ProduceRequest, kp::ProduceRequest> {
    use kp::produce_request as k;
    let spec: Vec<(String, Vec<(i32, Bytes)>)> = (0..topics)
        .map(|t| {
            (
                format!("orders.events.v3.region-{t:02}"),
                (0..partitions)
                    .map(|p| (p as i32, produce_batch(t * partitions + p, 16, 220)))
                    .collect(),
            )
        })
        .collect();
    let txn = "order-service-producer-7";
    let ours = kw::ProduceRequest {
        transactional_id: Some(s(txn)),
        acks: -1,
        timeout_ms: 30_000,
        topic_data: spec
            .iter()
            .map(|(name, parts)| kw::TopicProduceData {
                name: s(name),
                partition_data: parts
                    .iter()
                    .map(|(i, b)| kw::PartitionProduceData {
                        index: *i,
                        records: Some(kafka_wire::Records(b.clone())),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let theirs = kp::ProduceRequest::default()
        .with_transactional_id(Some(sb(txn).into()))
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(
            spec.iter()
                .map(|(name, parts)| {
                    k::TopicProduceData::default()
                        .with_name(sb(name).into())
                        .with_partition_data(
                            parts
                                .iter()
                                .map(|(i, b)| {
                                    k::PartitionProduceData::default()
                                        .with_index(*i)
                                        .with_records(Some(b.clone()))
                                })
                                .collect(),
                        )
                })
                .collect(),
        );
    Pair {
        ours,
        theirs,
        version: 12,
    }
}

/// Produce v12 request, 4 topics × 8 partitions of one 16-record batch each (about 140 KB).
pub fn produce_request() -> Pair<kw::ProduceRequest, kp::ProduceRequest> {
    produce_pair(4, 8)
}

// ---- Metadata v12 response ------------------------------------------------------------------

/// Metadata v12 response of a large cluster: `brokers` brokers (hosts and racks), `topics`
/// topics × `partitions` partitions, each with 3 replicas, an ISR of 3 (2 on every fifth
/// partition) and no offline replicas; topic ids and names, one topic in fifty internal.
fn metadata_pair(
    brokers: i32,
    topics: usize,
    partitions: i32,
) -> Pair<kw::MetadataResponse, kp::MetadataResponse> {
    use kp::metadata_response as k;
    let host = |b: i32| format!("broker-{b:03}.kafka.eu-west-1.internal.example.com");
    let rack = |b: i32| format!("eu-west-1{}", ["a", "b", "c"][(b % 3) as usize]);
    let topic = |t: usize| format!("inventory.stock-levels.v2.warehouse-{t:04}");
    let id = |t: usize| 0x5e1f_0000_0000_0000_8000_0000_0000_0000u128 | (t as u128) << 20;
    let replicas = |t: usize, p: i32| -> Vec<i32> {
        (0..3)
            .map(|r| (t as i32 * 7 + p + r * 11) % brokers)
            .collect()
    };
    let isr = |t: usize, p: i32| -> Vec<i32> {
        let mut v = replicas(t, p);
        if p % 5 == 0 {
            v.pop();
        }
        v
    };
    let cluster = "kafka-prod-eu-west-1-Yq3xUw8BQ0ezXv4F";
    let ours = kw::MetadataResponse {
        throttle_time_ms: 0,
        brokers: (0..brokers)
            .map(|b| kw::MetadataResponseBroker {
                node_id: b,
                host: s(&host(b)),
                port: 9092,
                rack: Some(s(&rack(b))),
                ..Default::default()
            })
            .collect(),
        cluster_id: Some(s(cluster)),
        controller_id: 3,
        topics: (0..topics)
            .map(|t| kw::MetadataResponseTopic {
                error_code: 0,
                name: Some(s(&topic(t))),
                topic_id: Uuid::from_u128(id(t)),
                is_internal: t % 50 == 49,
                partitions: (0..partitions)
                    .map(|p| kw::MetadataResponsePartition {
                        error_code: 0,
                        partition_index: p,
                        leader_id: replicas(t, p)[0],
                        leader_epoch: 12 + p % 4,
                        replica_nodes: replicas(t, p).into(),
                        isr_nodes: isr(t, p).into(),
                        offline_replicas: Default::default(),
                        ..Default::default()
                    })
                    .collect(),
                topic_authorized_operations: -2147483648,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let ids = |v: Vec<i32>| v.into_iter().map(kp::BrokerId).collect::<Vec<_>>();
    let theirs = kp::MetadataResponse::default()
        .with_throttle_time_ms(0)
        .with_brokers(
            (0..brokers)
                .map(|b| {
                    k::MetadataResponseBroker::default()
                        .with_node_id(kp::BrokerId(b))
                        .with_host(sb(&host(b)))
                        .with_port(9092)
                        .with_rack(Some(sb(&rack(b))))
                })
                .collect(),
        )
        .with_cluster_id(Some(sb(cluster)))
        .with_controller_id(kp::BrokerId(3))
        .with_topics(
            (0..topics)
                .map(|t| {
                    k::MetadataResponseTopic::default()
                        .with_error_code(0)
                        .with_name(Some(sb(&topic(t)).into()))
                        .with_topic_id(uuid::Uuid::from_u128(id(t)))
                        .with_is_internal(t % 50 == 49)
                        .with_partitions(
                            (0..partitions)
                                .map(|p| {
                                    k::MetadataResponsePartition::default()
                                        .with_error_code(0)
                                        .with_partition_index(p)
                                        .with_leader_id(kp::BrokerId(replicas(t, p)[0]))
                                        .with_leader_epoch(12 + p % 4)
                                        .with_replica_nodes(ids(replicas(t, p)))
                                        .with_isr_nodes(ids(isr(t, p)))
                                        .with_offline_replicas(Vec::new())
                                })
                                .collect(),
                        )
                        .with_topic_authorized_operations(-2147483648)
                })
                .collect(),
        );
    Pair {
        ours,
        theirs,
        version: 12,
    }
}

/// Metadata v12 response: 50 brokers, 500 topics × 10 partitions (about 240 KB).
pub fn metadata_response() -> Pair<kw::MetadataResponse, kp::MetadataResponse> {
    metadata_pair(50, 500, 10)
}

// ---- the list -------------------------------------------------------------------------------

/// Calls `$m!(name, builder)` for every benchmarked message body, in the order of
/// BENCHMARKS.md: the benchmark binary, the instruction-count driver and the cross-check test
/// all walk this one list, so none of them can miss an input.
#[macro_export]
macro_rules! for_each_input {
    ($m:ident) => {
        $m!("txn_offset_commit_v5_100x100", txn_offset_commit_large);
        $m!(
            "txn_offset_commit_v5_100x100_meta_m",
            txn_offset_commit_meta
        );
        $m!(
            "txn_offset_commit_v2_1000x1_long_names",
            txn_offset_commit_v2_long_names
        );
        $m!(
            "txn_offset_commit_v5_1x5000_meta_200",
            txn_offset_commit_wide
        );
        $m!("add_partitions_to_txn_v5_request", add_partitions_request);
        $m!(
            "add_partitions_to_txn_v5_request_50x20x10",
            add_partitions_request_big
        );
        $m!("add_partitions_to_txn_v5_response", add_partitions_response);
        $m!(
            "add_partitions_to_txn_v3_response_200x50",
            add_partitions_response_v3
        );
        $m!(
            "initialize_share_group_state_v0_request",
            share_group_request
        );
        $m!("initialize_share_group_state_v0_100x100", share_group_large);
        $m!("produce_v12_request_4x8", produce_request);
        $m!("metadata_v12_response_50_500x10", metadata_response);
        $m!("txn_offset_commit_v0_empty", txn_offset_commit_v0_empty);
        $m!("txn_offset_commit_v0_one", txn_offset_commit_v0_one);
        $m!("seed_add_partitions_to_txn_v5", add_partitions_small);
        $m!("seed_txn_offset_commit_v5", txn_offset_commit_small);
        $m!("seed_initialize_share_group_state_v0", share_group_small);
    };
}

// ---- the copy floor ------------------------------------------------------------------------------

/// A TxnOffsetCommit request at a flexible version (3 to 5) written by hand with the plainest
/// code that produces the same bytes: each field appended to `out` in wire order, a string as
/// its one-byte compact prefix (or the general varint) and one `extend_from_slice`. No
/// version checks, no error paths, no context: the floor any encoder of this message pays in
/// stores and copies, for comparing both libraries against (see BENCHMARKS.md). Checked
/// against the real encode before it is timed.
pub fn txn_offset_commit_flexible_floor(m: &kw::TxnOffsetCommitRequest, out: &mut Vec<u8>) {
    fn uvarint(out: &mut Vec<u8>, mut v: u32) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    fn string(out: &mut Vec<u8>, s: Option<&[u8]>) {
        match s {
            None => out.push(0),
            Some(b) => {
                if b.len() < 0x7f {
                    out.push(b.len() as u8 + 1);
                } else {
                    uvarint(out, b.len() as u32 + 1);
                }
                out.extend_from_slice(b);
            }
        }
    }
    string(out, Some(m.transactional_id.as_bytes()));
    string(out, Some(m.group_id.as_bytes()));
    out.extend_from_slice(&m.producer_id.to_be_bytes());
    out.extend_from_slice(&m.producer_epoch.to_be_bytes());
    out.extend_from_slice(&m.generation_id_or_member_epoch.to_be_bytes());
    string(out, Some(m.member_id.as_bytes()));
    string(out, m.group_instance_id.as_ref().map(|s| s.as_bytes()));
    uvarint(out, m.topics.len() as u32 + 1);
    for t in &m.topics {
        string(out, Some(t.name.as_bytes()));
        uvarint(out, t.partitions.len() as u32 + 1);
        for p in &t.partitions {
            out.extend_from_slice(&p.partition_index.to_be_bytes());
            out.extend_from_slice(&p.committed_offset.to_be_bytes());
            out.extend_from_slice(&p.committed_leader_epoch.to_be_bytes());
            string(out, p.committed_metadata.as_ref().map(|s| s.as_bytes()));
            out.push(0);
        }
        out.push(0);
    }
    out.push(0);
}

/// A TxnOffsetCommit request at a classic version (0 to 2: int16 string lengths, int32
/// array counts, no tagged sections) written by hand the same way as
/// [`txn_offset_commit_flexible_floor`]: each field appended to `out` in wire order, a string
/// as its int16 length and one `extend_from_slice`, null as length -1. No version checks, no
/// error paths: the floor for the v2 1000×1 input (see BENCHMARKS.md). The leader epoch is
/// written at version 2 only (`version` says which). Checked against the real encode before
/// it is timed.
pub fn txn_offset_commit_classic_floor(
    m: &kw::TxnOffsetCommitRequest,
    version: i16,
    out: &mut Vec<u8>,
) {
    fn string(out: &mut Vec<u8>, s: Option<&[u8]>) {
        match s {
            None => out.extend_from_slice(&(-1i16).to_be_bytes()),
            Some(b) => {
                out.extend_from_slice(&(b.len() as i16).to_be_bytes());
                out.extend_from_slice(b);
            }
        }
    }
    string(out, Some(m.transactional_id.as_bytes()));
    string(out, Some(m.group_id.as_bytes()));
    out.extend_from_slice(&m.producer_id.to_be_bytes());
    out.extend_from_slice(&m.producer_epoch.to_be_bytes());
    out.extend_from_slice(&(m.topics.len() as i32).to_be_bytes());
    for t in &m.topics {
        string(out, Some(t.name.as_bytes()));
        out.extend_from_slice(&(t.partitions.len() as i32).to_be_bytes());
        for p in &t.partitions {
            out.extend_from_slice(&p.partition_index.to_be_bytes());
            out.extend_from_slice(&p.committed_offset.to_be_bytes());
            if version >= 2 {
                out.extend_from_slice(&p.committed_leader_epoch.to_be_bytes());
            }
            string(out, p.committed_metadata.as_ref().map(|s| s.as_bytes()));
        }
    }
}

// ---- the decode floors ---------------------------------------------------------------------------

/// A position in the input of the hand-written decode floors: every read checks that the
/// input holds it and gives `None` past the end; nothing else is checked.
struct FloorCur<'a> {
    input: &'a Bytes,
    pos: usize,
}

impl FloorCur<'_> {
    #[inline(always)]
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let b = *self.input.get(self.pos..)?.first_chunk::<N>()?;
        self.pos += N;
        Some(b)
    }

    #[inline(always)]
    fn i16(&mut self) -> Option<i16> {
        self.take().map(i16::from_be_bytes)
    }

    #[inline(always)]
    fn i32(&mut self) -> Option<i32> {
        self.take().map(i32::from_be_bytes)
    }

    #[inline(always)]
    fn i64(&mut self) -> Option<i64> {
        self.take().map(i64::from_be_bytes)
    }

    /// An unsigned LEB128 varint of at most five bytes, the one-byte form first.
    #[inline(always)]
    fn uvarint(&mut self) -> Option<u32> {
        let [b] = self.take::<1>()?;
        if b < 0x80 {
            return Some(u32::from(b));
        }
        let mut v = u32::from(b & 0x7f);
        for shift in [7, 14, 21, 28] {
            let [b] = self.take::<1>()?;
            v |= u32::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    /// The next `len` bytes' range, if the input holds them.
    #[inline(always)]
    fn range(&mut self, len: usize) -> Option<core::ops::Range<usize>> {
        let start = self.pos;
        let end = start.checked_add(len).filter(|&e| e <= self.input.len())?;
        self.pos = end;
        Some(start..end)
    }

    /// A classic string (int16 length; negative: null).
    #[inline(always)]
    fn classic_str(&mut self) -> Option<Option<Str>> {
        let n = self.i16()?;
        if n < 0 {
            return Some(None);
        }
        let r = self.range(n as usize)?;
        Some(Some(Str::from_input(self.input, r)))
    }

    /// A classic array count (int32, not negative).
    #[inline(always)]
    fn classic_count(&mut self) -> Option<usize> {
        usize::try_from(self.i32()?).ok()
    }

    /// A compact length (uvarint of length + 1; 0: null).
    #[inline(always)]
    fn compact_len(&mut self) -> Option<Option<usize>> {
        Some((self.uvarint()? as usize).checked_sub(1))
    }

    /// A compact string.
    #[inline(always)]
    fn compact_str(&mut self) -> Option<Option<Str>> {
        match self.compact_len()? {
            None => Some(None),
            Some(n) => {
                let r = self.range(n)?;
                Some(Some(Str::from_input(self.input, r)))
            }
        }
    }

    /// Compact bytes, shared with the input.
    #[inline(always)]
    fn compact_bytes(&mut self) -> Option<Option<Bytes>> {
        match self.compact_len()? {
            None => Some(None),
            Some(n) => {
                let r = self.range(n)?;
                Some(Some(self.input.slice(r)))
            }
        }
    }

    /// An empty tagged section (a single 0; anything else is not read by the floors).
    #[inline(always)]
    fn no_tags(&mut self) -> Option<()> {
        (self.take::<1>()? == [0]).then_some(())
    }

    /// Room for `n` elements, at most one per input byte left (so that a lying count
    /// reserves no more than the input's size).
    #[inline(always)]
    fn vec<T>(&self, n: usize) -> Vec<T> {
        Vec::with_capacity(n.min(self.input.len() - self.pos))
    }

    /// The value, if the input ended exactly here.
    #[inline(always)]
    fn end<T>(&self, v: T) -> Option<T> {
        (self.pos == self.input.len()).then_some(v)
    }
}

/// `out.push(x)` with the growing out of line (never taken: the floors reserve the count),
/// so that the element is stored from registers, as kafka-wire's decode does.
#[inline(always)]
fn floor_push<T>(out: &mut Vec<T>, x: T) {
    if out.len() < out.capacity() {
        out.push(x);
    } else {
        floor_push_grow(out, x);
    }
}

#[cold]
#[inline(never)]
fn floor_push_grow<T>(out: &mut Vec<T>, x: T) {
    out.push(x);
}

/// The partitions of a TxnOffsetCommit topic, classic (v0-v2; v2's leader epoch). Out of
/// line, as each array's loop in the floors: in one function with the rest of the message,
/// LLVM left `Bytes::slice` and `Vec::push` out of line (1x5000: 1.08M instructions against
/// 0.82M for kafka-wire's decode).
#[inline(never)]
fn toc_partitions_classic(
    f: &mut FloorCur<'_>,
    n: usize,
) -> Option<Vec<kw::TxnOffsetCommitRequestPartition>> {
    let mut out = f.vec(n);
    for _ in 0..n {
        let fixed: [u8; 16] = f.take()?;
        let p = kw::TxnOffsetCommitRequestPartition {
            partition_index: i32::from_be_bytes(fixed[..4].try_into().ok()?),
            committed_offset: i64::from_be_bytes(fixed[4..12].try_into().ok()?),
            committed_leader_epoch: i32::from_be_bytes(fixed[12..].try_into().ok()?),
            committed_metadata: f.classic_str()?,
            unknown_tagged_fields: UnknownTaggedFields::new(),
        };
        floor_push(&mut out, p);
    }
    Some(out)
}

/// The partitions of a TxnOffsetCommit topic, flexible (v3-v5).
#[inline(never)]
fn toc_partitions_flexible(
    f: &mut FloorCur<'_>,
    n: usize,
) -> Option<Vec<kw::TxnOffsetCommitRequestPartition>> {
    let mut out = f.vec(n);
    for _ in 0..n {
        let fixed: [u8; 16] = f.take()?;
        let p = kw::TxnOffsetCommitRequestPartition {
            partition_index: i32::from_be_bytes(fixed[..4].try_into().ok()?),
            committed_offset: i64::from_be_bytes(fixed[4..12].try_into().ok()?),
            committed_leader_epoch: i32::from_be_bytes(fixed[12..].try_into().ok()?),
            committed_metadata: f.compact_str()?,
            unknown_tagged_fields: UnknownTaggedFields::new(),
        };
        f.no_tags()?;
        floor_push(&mut out, p);
    }
    Some(out)
}

/// The partitions of a Produce topic, flexible (v9-v12).
#[inline(never)]
fn produce_partitions_flexible(
    f: &mut FloorCur<'_>,
    n: usize,
) -> Option<Vec<kw::PartitionProduceData>> {
    let mut out = f.vec(n);
    for _ in 0..n {
        let p = kw::PartitionProduceData {
            index: f.i32()?,
            records: f.compact_bytes()?.map(kafka_wire::Records),
            unknown_tagged_fields: UnknownTaggedFields::new(),
        };
        f.no_tags()?;
        floor_push(&mut out, p);
    }
    Some(out)
}

/// A TxnOffsetCommit request v2 (classic: int16 string lengths, int32 counts) decoded by the
/// plainest hand-written code that builds the same value as kafka-wire's decode: the same
/// allocations (one vector per array, reserved from its count), strings as decoding keeps
/// them ([`Str::from_input`]: inline up to 23 bytes, else shared with the input), and nothing
/// else: no versions, no limits, no error beyond the input's end (`None`), no tagged fields.
/// The floor any decoder of this value pays; see BENCHMARKS.md.
pub fn txn_offset_commit_v2_decode_floor(input: &Bytes) -> Option<kw::TxnOffsetCommitRequest> {
    let mut f = FloorCur { input, pos: 0 };
    let transactional_id = f.classic_str()??;
    let group_id = f.classic_str()??;
    let producer_id = f.i64()?;
    let producer_epoch = f.i16()?;
    let n = f.classic_count()?;
    let mut topics = f.vec(n);
    for _ in 0..n {
        let name = f.classic_str()??;
        let n = f.classic_count()?;
        let partitions = toc_partitions_classic(&mut f, n)?;
        floor_push(
            &mut topics,
            kw::TxnOffsetCommitRequestTopic {
                name,
                topic_id: Uuid::default(),
                partitions,
                unknown_tagged_fields: UnknownTaggedFields::new(),
            },
        );
    }
    f.end(kw::TxnOffsetCommitRequest {
        transactional_id,
        group_id,
        producer_id,
        producer_epoch,
        generation_id_or_member_epoch: -1,
        member_id: Str::new(),
        group_instance_id: None,
        topics,
        unknown_tagged_fields: UnknownTaggedFields::new(),
    })
}

/// [`txn_offset_commit_v2_decode_floor`] into an existing value, keeping its vectors: the
/// topics' vector and each topic's partitions' vector are cleared and refilled, so a decode
/// of the same shape allocates nothing. Not a like-for-like floor (kafka-wire and
/// kafka-protocol both build a new value): the measure of what a `decode_into` (prost's
/// `merge`) could reach on this input. `None` past the input's end (`m` then holds part of
/// the input).
pub fn txn_offset_commit_v2_decode_floor_into(
    input: &Bytes,
    m: &mut kw::TxnOffsetCommitRequest,
) -> Option<()> {
    let mut f = FloorCur { input, pos: 0 };
    m.transactional_id = f.classic_str()??;
    m.group_id = f.classic_str()??;
    m.producer_id = f.i64()?;
    m.producer_epoch = f.i16()?;
    m.generation_id_or_member_epoch = -1;
    m.member_id = Str::new();
    m.group_instance_id = None;
    let n = f.classic_count()?;
    m.topics.truncate(n);
    for i in 0..n {
        let name = f.classic_str()??;
        let count = f.classic_count()?;
        if i == m.topics.len() {
            m.topics.push(kw::TxnOffsetCommitRequestTopic {
                name: Str::new(),
                topic_id: Uuid::default(),
                partitions: f.vec(count),
                unknown_tagged_fields: UnknownTaggedFields::new(),
            });
        }
        let t = m.topics.get_mut(i)?;
        t.name = name;
        t.partitions.clear();
        for _ in 0..count {
            let p = kw::TxnOffsetCommitRequestPartition {
                partition_index: f.i32()?,
                committed_offset: f.i64()?,
                committed_leader_epoch: f.i32()?,
                committed_metadata: f.classic_str()?,
                unknown_tagged_fields: UnknownTaggedFields::new(),
            };
            floor_push(&mut t.partitions, p);
        }
    }
    f.end(())
}

/// A TxnOffsetCommit request v3 to v5 (flexible: compact strings and counts, an empty tagged
/// section per struct), decoded as [`txn_offset_commit_v2_decode_floor`] decodes v2.
pub fn txn_offset_commit_flexible_decode_floor(
    input: &Bytes,
) -> Option<kw::TxnOffsetCommitRequest> {
    let mut f = FloorCur { input, pos: 0 };
    let transactional_id = f.compact_str()??;
    let group_id = f.compact_str()??;
    let producer_id = f.i64()?;
    let producer_epoch = f.i16()?;
    let generation_id_or_member_epoch = f.i32()?;
    let member_id = f.compact_str()??;
    let group_instance_id = f.compact_str()?;
    let n = f.compact_len()??;
    let mut topics = f.vec(n);
    for _ in 0..n {
        let name = f.compact_str()??;
        let n = f.compact_len()??;
        let partitions = toc_partitions_flexible(&mut f, n)?;
        f.no_tags()?;
        floor_push(
            &mut topics,
            kw::TxnOffsetCommitRequestTopic {
                name,
                topic_id: Uuid::default(),
                partitions,
                unknown_tagged_fields: UnknownTaggedFields::new(),
            },
        );
    }
    f.no_tags()?;
    f.end(kw::TxnOffsetCommitRequest {
        transactional_id,
        group_id,
        producer_id,
        producer_epoch,
        generation_id_or_member_epoch,
        member_id,
        group_instance_id,
        topics,
        unknown_tagged_fields: UnknownTaggedFields::new(),
    })
}

/// A Produce request v9 to v12 (flexible, topics by name), decoded as
/// [`txn_offset_commit_v2_decode_floor`] decodes TxnOffsetCommit: each partition's records
/// a shared slice of the input, as both libraries keep them (not parsed).
pub fn produce_flexible_decode_floor(input: &Bytes) -> Option<kw::ProduceRequest> {
    let mut f = FloorCur { input, pos: 0 };
    let transactional_id = f.compact_str()?;
    let acks = f.i16()?;
    let timeout_ms = f.i32()?;
    let n = f.compact_len()??;
    let mut topic_data = f.vec(n);
    for _ in 0..n {
        let name = f.compact_str()??;
        let n = f.compact_len()??;
        let partition_data = produce_partitions_flexible(&mut f, n)?;
        f.no_tags()?;
        floor_push(
            &mut topic_data,
            kw::TopicProduceData {
                name,
                topic_id: Uuid::default(),
                partition_data,
                unknown_tagged_fields: UnknownTaggedFields::new(),
            },
        );
    }
    f.no_tags()?;
    f.end(kw::ProduceRequest {
        transactional_id,
        acks,
        timeout_ms,
        topic_data,
        unknown_tagged_fields: UnknownTaggedFields::new(),
    })
}

// ---- frames ------------------------------------------------------------------------------------

/// A whole request frame (size prefix, header v2 with client id "" and correlation id 0, body)
/// encoded by kafka-wire's dispatch API.
pub fn request_frame_ours(body: impl Into<kw::RequestBody>, version: i16) -> Bytes {
    let frame = kw::RequestFrame::new(0, Some(Str::new()), version, body);
    Bytes::from(frame.to_vec().expect("kafka-wire frame encodes"))
}

/// The same frame encoded by kafka-protocol.
pub fn request_frame_theirs<T: kafka_protocol::protocol::Request>(body: &T, version: i16) -> Bytes {
    let header = kp::RequestHeader::default()
        .with_request_api_key(T::KEY)
        .with_request_api_version(version)
        .with_correlation_id(0)
        .with_client_id(Some(StrBytes::from_static_str("")));
    let hv = T::header_version(version);
    let mut out = Vec::new();
    let size = header.compute_size(hv).unwrap() + body.compute_size(version).unwrap();
    out.extend_from_slice(&(size as i32).to_be_bytes());
    header.encode(&mut out, hv).unwrap();
    body.encode(&mut out, version).unwrap();
    Bytes::from(out)
}

/// kafka-protocol's decode of a whole request frame, as a client or broker using it writes
/// one: the size prefix, `decode_request_header_from_buffer`, then `RequestKind::decode` for
/// the header's API (the benchmarks' `frame_decode` rows time this against
/// `RequestFrame::decode`).
pub fn request_frame_decode_theirs(frame: &Bytes) -> (kp::RequestHeader, kp::RequestKind) {
    use kafka_protocol::protocol::decode_request_header_from_buffer;
    let mut input = frame.clone();
    let size = bytes::Buf::get_i32(&mut input) as usize;
    assert_eq!(size, input.len());
    let header = decode_request_header_from_buffer(&mut input).unwrap();
    let key = kp::ApiKey::try_from(header.request_api_key).unwrap();
    let body = kp::RequestKind::decode(key, &mut input, header.request_api_version).unwrap();
    assert!(input.is_empty());
    (header, body)
}

// ---- the cross-check -------------------------------------------------------------------------

/// Encodes with both libraries, asserts identical bytes and equal sizes, checks that both
/// decode those bytes back to the value they started from, and returns the bytes.
pub fn check_identical<O, T>(name: &str, pair: &Pair<O, T>) -> Bytes
where
    O: KafkaMessage + PartialEq + core::fmt::Debug,
    T: kafka_protocol::protocol::Encodable
        + kafka_protocol::protocol::Decodable
        + PartialEq
        + core::fmt::Debug,
{
    let v = pair.version;
    let ours = pair.ours.encode_to_vec(v).expect("kafka-wire encodes");
    let mut theirs = Vec::new();
    pair.theirs
        .encode(&mut theirs, v)
        .expect("kafka-protocol encodes");
    assert!(
        ours == theirs,
        "{name}: kafka-wire and kafka-protocol encode differently ({} vs {} bytes)",
        ours.len(),
        theirs.len()
    );
    assert_eq!(pair.ours.encoded_size(v), ours.len(), "{name}: our size");
    assert_eq!(
        pair.theirs.compute_size(v).unwrap(),
        ours.len(),
        "{name}: their size"
    );
    let bytes = Bytes::from(ours);
    assert_eq!(
        O::decode_exact(&bytes, v).expect("kafka-wire decodes"),
        pair.ours,
        "{name}: our round trip"
    );
    let mut b = bytes.clone();
    assert_eq!(
        T::decode(&mut b, v).expect("kafka-protocol decodes"),
        pair.theirs,
        "{name}: their round trip"
    );
    assert!(b.is_empty(), "{name}: kafka-protocol left bytes");
    bytes
}

pub mod records;
