//! A whole transaction against librdkafka's mock cluster, shared by the mock-cluster test
//! (which checks every answer) and the Wireshark test (which replays the same frames).
#![allow(dead_code)]

use std::collections::BTreeMap;

use kafka_wire::{ApiMessage, Version};
use kafka_wire_interop::client::{negotiate, CallError, Connection, Exchange, LoggedFrame};
use kafka_wire_interop::client::{KEY_TYPE_GROUP, KEY_TYPE_TRANSACTION};
use kafka_wire_messages::*;
use rdkafka::mocking::{MockCluster, MockCoordinator};

pub const TXN_ID: &str = "interop-txn-1";
pub const GROUP_ID: &str = "interop-group";
pub const TOPIC: &str = "interop-topic";
pub const MISSING_TOPIC: &str = "no-such-topic";
pub const PARTITIONS: [i32; 3] = [0, 1, 2];
/// Broker ids the mock is told to use as coordinators (brokers are numbered from 1).
pub const TXN_COORDINATOR: i32 = 2;
pub const GROUP_COORDINATOR: i32 = 3;

/// Kafka error codes seen here.
pub const NONE: i16 = kafka_wire::ErrorCode::NONE.0;
pub const UNKNOWN_TOPIC_OR_PARTITION: i16 = kafka_wire::ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0;
pub const INVALID_PRODUCER_EPOCH: i16 = kafka_wire::ErrorCode::INVALID_PRODUCER_EPOCH.0;

/// What the transaction went through.
pub struct TxnRun {
    /// Every frame on every connection, in order.
    pub frames: Vec<LoggedFrame>,
    /// Version chosen for each API by negotiation.
    pub versions: BTreeMap<&'static str, Version>,
    pub producer_id: i64,
    pub producer_epoch: i16,
    /// Number of request/response exchanges.
    pub exchanges: usize,
}

pub fn mock_cluster() -> MockCluster<'static, rdkafka::producer::DefaultProducerContext> {
    let cluster = MockCluster::new(3).expect("librdkafka mock cluster");
    cluster
        .create_topic(TOPIC, 4, 1)
        .expect("create topic on the mock");
    cluster
        .coordinator(MockCoordinator::Transaction(TXN_ID.into()), TXN_COORDINATOR)
        .unwrap();
    cluster
        .coordinator(MockCoordinator::Group(GROUP_ID.into()), GROUP_COORDINATOR)
        .unwrap();
    cluster
}

/// `call`, failing the test with the call's own message (a closed connection reads "the broker
/// closed the connection instead of answering ...").
fn call<Req: ApiMessage, Resp: ApiMessage>(
    conn: &mut Connection,
    version: Version,
    body: &Req,
    exchanges: &mut usize,
) -> Exchange<Resp> {
    let expected_id = conn.next_correlation_id();
    let x = conn
        .call::<Req, Resp>(version, body)
        .unwrap_or_else(|e: CallError| panic!("{} v{version}: {e}", Req::META.name));
    *exchanges += 1;
    assert_eq!(x.correlation_id, expected_id);
    assert_eq!(x.header.correlation_id, expected_id, "{}", Resp::META.name);
    assert_eq!(x.version, version);
    x
}

fn version_of<M: ApiMessage + Default>(broker: &ApiVersionsResponse) -> Version {
    negotiate(broker, &M::default())
        .unwrap_or_else(|| panic!("no common version of {}", M::META.name))
}

/// Connects, negotiates versions, and opens a connection to the coordinator of `key`.
fn coordinator(
    conn: &mut Connection,
    version: Version,
    key: &str,
    key_type: i8,
    expected_node: i32,
    id: usize,
    exchanges: &mut usize,
) -> Connection {
    let req = FindCoordinatorRequest {
        key: key.to_owned().into(),
        key_type,
        coordinator_keys: if version >= 4 {
            vec![key.to_owned().into()]
        } else {
            vec![]
        },
        ..Default::default()
    };
    let x: Exchange<FindCoordinatorResponse> = call(conn, version, &req, exchanges);
    let (error, node, host, port) = if version >= 4 {
        let c = &x.body.coordinators[0];
        (c.error_code, c.node_id, c.host.clone(), c.port)
    } else {
        (
            x.body.error_code,
            x.body.node_id,
            x.body.host.clone(),
            x.body.port,
        )
    };
    assert_eq!(error, NONE, "FindCoordinator({key}): {:?}", x.body);
    assert_eq!(node, expected_node, "coordinator of {key}");
    assert!(
        host.as_str() == "127.0.0.1" || host.as_str() == "localhost",
        "coordinator host {host} is not loopback"
    );
    let port = u16::try_from(port).expect("port");
    Connection::connect((host.as_str(), port), id).expect("connect to coordinator")
}

/// Runs ApiVersions → FindCoordinator → InitProducerId → AddPartitionsToTxn →
/// AddOffsetsToTxn → FindCoordinator(group) → TxnOffsetCommit → EndTxn on the mock, with
/// the deliberate errors, asserting every answer.
pub fn run_transaction(
    cluster: &MockCluster<'static, rdkafka::producer::DefaultProducerContext>,
) -> TxnRun {
    let bootstrap = cluster.bootstrap_servers();
    let first = bootstrap.split(',').next().expect("a broker").to_owned();
    let mut exchanges = 0;
    let mut versions = BTreeMap::new();

    // ApiVersions: v3 (what current clients send first) is refused by the mock, which serves
    // 0-2; the client falls back to v0 to learn the range, then asks at the best version.
    let mut boot = Connection::connect(first.as_str(), 0).expect("connect to the mock");
    let outcome = boot
        .api_versions(3)
        .unwrap_or_else(|e| panic!("ApiVersions: {e}"));
    exchanges += outcome.rejected.len() + 1;
    assert_eq!(outcome.rejected[0].0, 3);
    assert_eq!(
        outcome.rejected[0].1,
        kafka_wire_interop::client::UNSUPPORTED_VERSION
    );
    let av = outcome.accepted.body;
    assert_eq!(av.error_code, NONE);
    versions.insert("ApiVersions", outcome.accepted.version);

    let v_find = version_of::<FindCoordinatorRequest>(&av);
    let v_init = version_of::<InitProducerIdRequest>(&av);
    let v_add_parts = version_of::<AddPartitionsToTxnRequest>(&av);
    let v_add_offsets = version_of::<AddOffsetsToTxnRequest>(&av);
    let v_commit = version_of::<TxnOffsetCommitRequest>(&av);
    let v_end = version_of::<EndTxnRequest>(&av);
    versions.insert("FindCoordinator", v_find);
    versions.insert("InitProducerId", v_init);
    versions.insert("AddPartitionsToTxn", v_add_parts);
    versions.insert("AddOffsetsToTxn", v_add_offsets);
    versions.insert("TxnOffsetCommit", v_commit);
    versions.insert("EndTxn", v_end);

    // Transaction coordinator (key type 1).
    let mut txn = coordinator(
        &mut boot,
        v_find,
        TXN_ID,
        KEY_TYPE_TRANSACTION,
        TXN_COORDINATOR,
        1,
        &mut exchanges,
    );
    let hello: Exchange<ApiVersionsResponse> = call(
        &mut txn,
        versions["ApiVersions"],
        &ApiVersionsRequest::default(),
        &mut exchanges,
    );
    assert_eq!(hello.body.error_code, NONE);

    let init: Exchange<InitProducerIdResponse> = call(
        &mut txn,
        v_init,
        &InitProducerIdRequest {
            transactional_id: Some(TXN_ID.into()),
            transaction_timeout_ms: 60_000,
            producer_id: -1,
            producer_epoch: -1,
            ..Default::default()
        },
        &mut exchanges,
    );
    assert_eq!(init.body.error_code, NONE, "{:?}", init.body);
    let (pid, epoch) = (init.body.producer_id, init.body.producer_epoch);
    assert!(pid >= 0 && epoch >= 0, "{:?}", init.body);

    // AddPartitionsToTxn: the topic created on the mock, then one that does not exist.
    let add = |topic: &str| AddPartitionsToTxnRequest {
        v3_and_below_transactional_id: TXN_ID.into(),
        v3_and_below_producer_id: pid,
        v3_and_below_producer_epoch: epoch,
        v3_and_below_topics: vec![AddPartitionsToTxnTopic {
            name: topic.to_owned().into(),
            partitions: PARTITIONS.into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    for (topic, expected) in [(TOPIC, NONE), (MISSING_TOPIC, UNKNOWN_TOPIC_OR_PARTITION)] {
        let x: Exchange<AddPartitionsToTxnResponse> =
            call(&mut txn, v_add_parts, &add(topic), &mut exchanges);
        let results = &x.body.results_by_topic_v3_and_below;
        assert_eq!(results.len(), 1, "{:?}", x.body);
        assert_eq!(results[0].name.as_str(), topic);
        let got: Vec<(i32, i16)> = results[0]
            .results_by_partition
            .iter()
            .map(|p| (p.partition_index, p.partition_error_code))
            .collect();
        let want: Vec<(i32, i16)> = PARTITIONS.iter().map(|&p| (p, expected)).collect();
        assert_eq!(got, want, "AddPartitionsToTxn({topic})");
    }

    let offsets: Exchange<AddOffsetsToTxnResponse> = call(
        &mut txn,
        v_add_offsets,
        &AddOffsetsToTxnRequest {
            transactional_id: TXN_ID.into(),
            producer_id: pid,
            producer_epoch: epoch,
            group_id: GROUP_ID.into(),
            ..Default::default()
        },
        &mut exchanges,
    );
    assert_eq!(offsets.body.error_code, NONE, "{:?}", offsets.body);

    // TxnOffsetCommit goes to the group coordinator (key type 0).
    let mut group = coordinator(
        &mut boot,
        v_find,
        GROUP_ID,
        KEY_TYPE_GROUP,
        GROUP_COORDINATOR,
        2,
        &mut exchanges,
    );
    let hello: Exchange<ApiVersionsResponse> = call(
        &mut group,
        versions["ApiVersions"],
        &ApiVersionsRequest::default(),
        &mut exchanges,
    );
    assert_eq!(hello.body.error_code, NONE);
    let commit = TxnOffsetCommitRequest {
        transactional_id: TXN_ID.into(),
        group_id: GROUP_ID.into(),
        producer_id: pid,
        producer_epoch: epoch,
        generation_id_or_member_epoch: -1,
        member_id: "".into(),
        group_instance_id: None,
        topics: vec![TxnOffsetCommitRequestTopic {
            name: TOPIC.into(),
            partitions: vec![
                TxnOffsetCommitRequestPartition {
                    partition_index: 0,
                    committed_offset: 42,
                    committed_leader_epoch: -1,
                    committed_metadata: Some("meta-0".into()),
                    ..Default::default()
                },
                TxnOffsetCommitRequestPartition {
                    partition_index: 1,
                    committed_offset: 4_000_000_000,
                    committed_leader_epoch: -1,
                    committed_metadata: None,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    };
    let x: Exchange<TxnOffsetCommitResponse> = call(&mut group, v_commit, &commit, &mut exchanges);
    let got: Vec<(String, i32, i16)> = x
        .body
        .topics
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(|p| (t.name.to_string(), p.partition_index, p.error_code))
        })
        .collect();
    assert_eq!(
        got,
        vec![(TOPIC.to_owned(), 0, NONE), (TOPIC.to_owned(), 1, NONE)],
        "TxnOffsetCommit"
    );

    // EndTxn with a wrong producer epoch is refused; the right one commits.
    let end = |e: i16| EndTxnRequest {
        transactional_id: TXN_ID.into(),
        producer_id: pid,
        producer_epoch: e,
        committed: true,
        ..Default::default()
    };
    let bad: Exchange<EndTxnResponse> = call(&mut txn, v_end, &end(epoch + 1), &mut exchanges);
    assert_eq!(
        bad.body.error_code, INVALID_PRODUCER_EPOCH,
        "{:?}",
        bad.body
    );
    let ok: Exchange<EndTxnResponse> = call(&mut txn, v_end, &end(epoch), &mut exchanges);
    assert_eq!(ok.body.error_code, NONE, "{:?}", ok.body);

    let mut frames = boot.log;
    frames.extend(txn.log);
    frames.extend(group.log);
    TxnRun {
        frames,
        versions,
        producer_id: pid,
        producer_epoch: epoch,
        exchanges,
    }
}
