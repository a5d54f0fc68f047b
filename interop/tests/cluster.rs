//! A real Apache Kafka 4.4.0 cluster (a KRaft controller and a broker, separate JVMs, see
//! `kafka_wire_interop::cluster`), started once for this test binary.
//!
//! 1. Our client (`interop/src/client.rs`, typed bodies through our codec) drives every API
//!    the broker or the controller answers, at the highest version both sides have, and
//!    checks each answer's error codes against what a real broker gives.
//! 2. Kafka's own Java clients (producer, classic and KIP-848 consumers, share consumer,
//!    Admin) run their flows through `kwire proxy`, forwarding original and then re-encoded
//!    bytes; every frame must decode and re-encode byte for byte.
//! 3. The broker reaches the controller through another `kwire proxy` (re-encoding) the whole
//!    time: registration, heartbeats, KRaft fetches.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kafka_wire::frame::DecodeOptions;
use kafka_wire::Version;
use kafka_wire_interop::client::{negotiate_key, request_from_json, response_to_json, Connection};
use kafka_wire_interop::cluster::{self, Cluster, Prepared};
use kafka_wire_messages::{ApiKey, ApiVersionsResponse};
use kwire::proxy::{Config, Direction, Proxy, Summary};
use serde_json::{json, Value as Json};

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

fn proxy(rt: &tokio::runtime::Runtime, upstream: &str, reencode: bool) -> Proxy {
    let mut cfg = Config::new("127.0.0.1:0".parse().expect("addr"), upstream);
    cfg.verify = true;
    cfg.reencode = reencode;
    // Every record of every batch read (decompressed, CRCs checked), not only counted.
    cfg.check_records = true;
    rt.block_on(Proxy::start(cfg, Box::new(std::io::sink())))
        .expect("start proxy")
}

#[test]
fn real_cluster() {
    if let Err(why) = cluster::available() {
        assert!(!ci(), "CI must run interop/setup.sh: {why}");
        eprintln!("note: skipping the real-cluster test: {why}");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let t0 = Instant::now();
    let prepared = Prepared::new("cluster").expect("format and start the controller");
    let ctrl_proxy = proxy(&rt, &prepared.controller.to_string(), true);
    let cluster = prepared
        .start(ctrl_proxy.local_addr())
        .expect("start the broker");
    let startup = cluster.startup;
    println!("cluster up in {startup:?} ({})", cluster.dir.display());

    let (table, failures) = drive_apis(&cluster);
    // Kafka's Java consumer reads back what our client produced (every codec, the
    // idempotent batch, the committed transaction; the record DeleteRecords removed is gone):
    // it checks CRCs, decompresses, and compares each record's value with its key.
    let read = cluster
        .java_flow(&cluster.broker.to_string(), "read", APIS_TOPIC)
        .unwrap_or_else(|e| panic!("Java reading our batches: {e}"));
    println!("Java consumer read our batches: {read}");
    let read: Json = serde_json::from_str(&read).expect("flow result");
    assert_eq!(
        read["records"],
        json!(OUR_RECORDS),
        "records Java read: {read}"
    );
    let apis_done = t0.elapsed();

    // Kafka's Java clients through kwire proxy, forwarding the original bytes and then the
    // proxy's own re-encoding.
    for reencode in [false, true] {
        let mode = if reencode { "reencode" } else { "verify" };
        let topic = format!("java-{mode}");
        for flow in FLOWS {
            let p = proxy(&rt, &cluster.broker.to_string(), reencode);
            let started = Instant::now();
            let result = cluster.java_flow(&p.local_addr().to_string(), flow, &topic);
            std::thread::sleep(Duration::from_millis(200));
            let summary = p.stop();
            let result =
                result.unwrap_or_else(|e| panic!("{flow} ({mode}) through the proxy: {e}"));
            println!(
                "\n--- Java {flow} through kwire proxy ({mode}), {:?}: {result}\n{}",
                started.elapsed(),
                summary.table()
            );
            check_summary(&summary, &format!("{flow} ({mode})"));
            check_flow(&summary, flow, mode);
        }
    }
    let java_done = t0.elapsed();

    // The broker's own traffic to the controller crossed the first proxy the whole time.
    drop(cluster);
    let s = ctrl_proxy.stop();
    println!(
        "\n--- broker -> controller through kwire proxy (reencode) ---\n{}",
        s.table()
    );
    check_summary(&s, "broker -> controller");
    for api in [
        ApiKey::BrokerRegistration,
        ApiKey::BrokerHeartbeat,
        ApiKey::Fetch,
        ApiKey::ApiVersions,
    ] {
        assert!(
            s.rows.iter().any(|((k, _, d), c)| *k == api.key()
                && *d == Direction::Response
                && c.byte_exact > 0),
            "no {} answer from the controller crossed the proxy",
            api.name()
        );
    }
    let answered = table.values().filter(|r| r.answered).count();
    println!(
        "\n{answered} of {} APIs answered by the real cluster:",
        ApiKey::ALL.len()
    );
    for api in ApiKey::ALL {
        let row = table.get(&api.key()).cloned().unwrap_or_default();
        println!(
            "{:>3} {:<38} {}",
            api.key(),
            api.name(),
            if row.answered {
                row.note
            } else {
                "NOT ANSWERED".into()
            }
        );
    }
    println!(
        "\ntimes: cluster up {:?}, APIs driven by {apis_done:?}, Java flows by {java_done:?}, total {:?}",
        startup, t0.elapsed()
    );
    assert!(
        failures.is_empty(),
        "API failures:\n{}",
        failures.join("\n")
    );
    assert_eq!(answered, ApiKey::ALL.len(), "every API answered our client");
}

/// Which node a request goes to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Node {
    /// The broker, as the super user over SASL/PLAIN.
    Broker,
    /// The controller's PLAINTEXT listener.
    Controller,
    /// The broker, as `alice` over SASL/SCRAM-SHA-256 (no ACLs of her own).
    Alice,
}

/// One API's line of the table.
#[derive(Debug, Default, Clone)]
struct Row {
    answered: bool,
    note: String,
}

struct Driver {
    broker: Connection,
    controller: Connection,
    alice: Connection,
    broker_versions: ApiVersionsResponse,
    controller_versions: ApiVersionsResponse,
    rows: BTreeMap<i16, Row>,
    failures: Vec<String>,
}

/// Every `errorCode`-like field (`errorCode`, `topLevelErrorCode`, …) in a response, with its
/// JSON path.
fn error_codes(j: &Json, path: &str, out: &mut Vec<(String, i64)>) {
    match j {
        Json::Object(o) => {
            for (k, v) in o {
                let p = format!("{path}.{k}");
                if k == "errorCode" || k.ends_with("ErrorCode") {
                    if let Some(c) = v.as_i64() {
                        out.push((p.clone(), c));
                    }
                }
                error_codes(v, &p, out);
            }
        }
        Json::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                error_codes(v, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Codes a coordinator or a new partition gives while it is still loading: retried.
const RETRIABLE: [i64; 7] = [
    3,  // UNKNOWN_TOPIC_OR_PARTITION (metadata not yet propagated)
    5,  // LEADER_NOT_AVAILABLE
    6,  // NOT_LEADER_OR_FOLLOWER
    14, // COORDINATOR_LOAD_IN_PROGRESS
    15, // COORDINATOR_NOT_AVAILABLE
    16, // NOT_COORDINATOR
    62, // DELEGATION_TOKEN_NOT_FOUND (a new token not yet in the broker's cache)
];

impl Driver {
    fn conn(&mut self, node: Node) -> (&mut Connection, &ApiVersionsResponse) {
        match node {
            Node::Broker => (&mut self.broker, &self.broker_versions),
            Node::Alice => (&mut self.alice, &self.broker_versions),
            Node::Controller => (&mut self.controller, &self.controller_versions),
        }
    }

    /// Sends `body` (Kafka-style JSON) to `node` at the highest version both sides have and
    /// checks that every error code in the answer is one of `ok` (retrying while one is a
    /// loading code not in `ok`). Returns the answer as JSON (`Null` after a failure, which is
    /// recorded).
    fn drive(&mut self, node: Node, api: ApiKey, body: Json, ok: &[i64]) -> Json {
        self.drive_at(node, api, None, body, ok)
    }

    fn drive_at(
        &mut self,
        node: Node,
        api: ApiKey,
        at: Option<Version>,
        body: Json,
        ok: &[i64],
    ) -> Json {
        let (conn, versions) = self.conn(node);
        let Some(theirs) = versions
            .api_keys
            .iter()
            .find(|k| k.api_key == api.key())
            .cloned()
        else {
            self.failures
                .push(format!("{}: {node:?} does not offer it", api.name()));
            return Json::Null;
        };
        let top =
            negotiate_key(versions, api.key(), api.request_versions()).expect("common version");
        let version = at.unwrap_or(top);
        let started = Instant::now();
        let result = loop {
            let req = match request_from_json(api, version, &body) {
                Ok(r) => r,
                Err(e) => break Err(e),
            };
            let x = match conn.call_any(version, &req) {
                Ok(x) => x,
                Err(e) => break Err(e.to_string()),
            };
            // The broker's answer re-encodes to the bytes it sent.
            let again = kafka_wire_messages::ResponseFrame {
                header: x.header.clone(),
                api_key: api,
                version,
                body: x.body.clone(),
            }
            .to_bytes();
            if again.as_ref().ok() != Some(&x.response) {
                break Err(format!(
                    "the answer does not re-encode byte for byte: got {}, ours {:?}",
                    kafka_wire_interop::client::hex(&x.response),
                    again.map(|b| kafka_wire_interop::client::hex(&b))
                ));
            }
            let j = match response_to_json(&x.body, version) {
                Ok(j) => j,
                Err(e) => break Err(e),
            };
            let mut codes = Vec::new();
            error_codes(&j, "$", &mut codes);
            let bad: Vec<_> = codes.iter().filter(|(_, c)| !ok.contains(c)).collect();
            if bad.is_empty() {
                break Ok((j, codes));
            }
            if bad.iter().all(|(_, c)| RETRIABLE.contains(c))
                && started.elapsed() < Duration::from_secs(30)
            {
                std::thread::sleep(Duration::from_millis(250));
                continue;
            }
            break Err(format!("unexpected error codes {bad:?} in {j}"));
        };
        let row = self.rows.entry(api.key()).or_default();
        match result {
            Ok((j, codes)) => {
                let mut seen: Vec<i64> = codes.iter().map(|(_, c)| *c).collect();
                seen.sort_unstable();
                seen.dedup();
                if !row.answered {
                    row.answered = true;
                    row.note =
                        format!(
                        "v{version} ({node:?}{}; ours max {}, theirs {}-{}), error codes {seen:?}",
                        if version == top { ", top" } else { ", below top" },
                        api.max_version(),
                        theirs.min_version,
                        theirs.max_version
                    );
                }
                j
            }
            Err(e) => {
                self.failures
                    .push(format!("{} v{version} to {node:?}: {e}", api.name()));
                Json::Null
            }
        }
    }

    /// Marks an API answered by frames seen elsewhere (the proxy between broker and
    /// controller, or the connection set-up).
    fn seen(&mut self, api: ApiKey, note: String) {
        let row = self.rows.entry(api.key()).or_default();
        row.answered = true;
        row.note = note;
    }
}

/// Records a failure unless the code at `pointer` of an answer is `code`.
fn want(d: &mut Driver, api: ApiKey, j: &Json, pointer: &str, code: i64) {
    if j.pointer(pointer).and_then(Json::as_i64) != Some(code) {
        d.failures.push(format!(
            "{}: expected error {code} at {pointer}, got {j}",
            api.name()
        ));
    }
}

fn uuid_of(j: &Json, pointer: &str) -> String {
    j.pointer(pointer)
        .and_then(Json::as_str)
        .unwrap_or_else(|| panic!("no {pointer} in {j}"))
        .to_owned()
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A v2 record batch of `n` records built by our `BatchBuilder`.
fn batch(
    n: usize,
    codec: kafka_wire::records::Compression,
    producer: Option<(i64, i16, i32, bool)>,
) -> Vec<u8> {
    let mut b = kafka_wire::records::BatchBuilder::new(0);
    b.compression(codec);
    if let Some((id, epoch, seq, txn)) = producer {
        b.producer(id, epoch, seq);
        if txn {
            b.transactional(true);
        }
    }
    for i in 0..n {
        let v = format!("value {i}");
        b.append(
            1_700_000_000_000 + i as i64,
            Some(format!("k{i}").as_bytes()),
            Some(v.as_bytes()),
            &[],
        );
    }
    b.build_vec().expect("build batch")
}

fn drive_apis(cluster: &Cluster) -> (BTreeMap<i16, Row>, Vec<String>) {
    use kafka_wire::records::Compression;
    let (broker, broker_versions) = cluster.admin_connection(10).expect("admin connection");
    let mut controller = Connection::connect(cluster.controller, 11).expect("controller");
    let controller_versions = controller
        .api_versions(ApiKey::ApiVersions.max_version())
        .expect("controller ApiVersions")
        .accepted
        .body;
    let mut alice = Connection::connect(cluster.broker, 12).expect("alice");
    alice
        .api_versions(ApiKey::ApiVersions.max_version())
        .expect("ApiVersions");
    let auth = alice
        .authenticate(
            &broker_versions,
            "SCRAM-SHA-256",
            cluster::ALICE.0,
            cluster::ALICE.1,
        )
        .expect("SCRAM-SHA-256 as alice");
    // A wrong SCRAM password is refused by the broker.
    let mut mallory = Connection::connect(cluster.broker, 13).expect("connect");
    mallory
        .api_versions(ApiKey::ApiVersions.max_version())
        .expect("ApiVersions");
    let refused =
        mallory.authenticate(&broker_versions, "SCRAM-SHA-256", cluster::ALICE.0, "wrong");
    assert!(refused.is_err(), "a wrong SCRAM password was accepted");
    drop(mallory);
    let mut d = Driver {
        broker,
        controller,
        alice,
        broker_versions,
        controller_versions,
        rows: BTreeMap::new(),
        failures: Vec::new(),
    };
    let av = ApiKey::ApiVersions.max_version();
    d.seen(
        ApiKey::ApiVersions,
        format!("v{av} (Broker and Controller, top), error codes [0]"),
    );
    d.seen(
        ApiKey::SaslHandshake,
        format!(
            "v{} (Broker, top): PLAIN and SCRAM-SHA-256 accepted",
            auth.handshake_version
        ),
    );
    d.seen(
        ApiKey::SaslAuthenticate,
        format!("v{} (Broker, top): PLAIN admin, SCRAM-SHA-256 alice (server signature verified), wrong password refused", auth.authenticate_version),
    );

    use ApiKey as K;
    use Node::{Alice, Broker, Controller};
    const T: &str = APIS_TOPIC;
    const SCRATCH: &str = "apis-scratch";
    // Topics.
    let created = d.drive(
        Broker,
        K::CreateTopics,
        json!({"topics": [
        {"name": T, "numPartitions": 3, "replicationFactor": 1},
        {"name": SCRATCH, "numPartitions": 1, "replicationFactor": 1}], "timeoutMs": 30000}),
        &[0],
    );
    let topic_id = uuid_of(&created, "/topics/0/topicId");
    let scratch_id = uuid_of(&created, "/topics/1/topicId");
    // TOPIC_AUTHORIZATION_FAILED (29): alice has no CREATE right.
    let denied = d.drive(Alice, K::CreateTopics, json!({"topics": [{"name": "alice-topic", "numPartitions": 1, "replicationFactor": 1}], "timeoutMs": 30000}), &[0, 29]);
    assert_eq!(
        denied.pointer("/topics/0/errorCode"),
        Some(&json!(29)),
        "{denied}"
    );
    d.drive(
        Broker,
        K::Metadata,
        json!({"topics": [{"name": T}], "allowAutoTopicCreation": false}),
        &[0],
    );
    d.drive(
        Broker,
        K::DescribeTopicPartitions,
        json!({"topics": [{"name": T}], "responsePartitionLimit": 100}),
        &[0],
    );
    d.drive(
        Broker,
        K::CreatePartitions,
        json!({"topics": [{"name": SCRATCH, "count": 2, "assignments": null}], "timeoutMs": 30000}),
        &[0],
    );
    // Produce (every codec) and fetch.
    for (i, codec) in [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ]
    .into_iter()
    .enumerate()
    {
        d.drive(Broker, K::Produce, json!({"acks": -1, "timeoutMs": 10000, "topicData": [
            {"topicId": topic_id, "partitionData": [{"index": (i % 3) as i32, "records": b64(&batch(5, codec, None))}]}]}), &[0]);
    }
    let fetched = d.drive(
        Broker,
        K::Fetch,
        json!({"maxWaitMs": 0, "minBytes": 0, "topics": [{"topicId": topic_id,
        "partitions": [{"partition": 0, "fetchOffset": 0, "partitionMaxBytes": 1048576}]}]}),
        &[0],
    );
    let records = fetched
        .pointer("/responses/0/partitions/0/records")
        .and_then(Json::as_str)
        .unwrap_or("");
    assert!(!records.is_empty(), "Fetch returned no records: {fetched}");
    d.drive(Broker, K::ListOffsets, json!({"replicaId": -1, "topics": [{"name": T, "partitions": [{"partitionIndex": 0, "timestamp": -1}]}]}), &[0]);
    d.drive(Broker, K::OffsetForLeaderEpoch, json!({"replicaId": -1, "topics": [{"topic": T, "partitions": [{"partition": 0, "currentLeaderEpoch": -1, "leaderEpoch": 0}]}]}), &[0]);
    d.drive(Broker, K::DeleteRecords, json!({"topics": [{"name": T, "partitions": [{"partitionIndex": 0, "offset": 1}]}], "timeoutMs": 10000}), &[0]);
    // Idempotent producer.
    let pid = d.drive(Broker, K::InitProducerId, json!({"transactionalId": null, "transactionTimeoutMs": -1, "producerId": -1, "producerEpoch": -1}), &[0]);
    let (producer_id, epoch) = (
        pid["producerId"].as_i64().unwrap_or(-1),
        pid["producerEpoch"].as_i64().unwrap_or(-1) as i16,
    );
    d.drive(Broker, K::Produce, json!({"acks": -1, "timeoutMs": 10000, "topicData": [
        {"topicId": topic_id, "partitionData": [{"index": 1, "records": b64(&batch(3, Compression::Zstd, Some((producer_id, epoch, 0, false))))}]}]}), &[0]);
    d.drive(
        Broker,
        K::DescribeProducers,
        json!({"topics": [{"name": T, "partitionIndexes": [1]}]}),
        &[0],
    );

    // A classic group.
    const CG: &str = "apis-classic";
    d.drive(
        Broker,
        K::FindCoordinator,
        json!({"keyType": 0, "coordinatorKeys": [CG]}),
        &[0],
    );
    // The consumer protocol's subscription (version-prefixed), as a classic consumer sends it.
    let meta = b64(&kafka_wire_messages::encode_version_prefixed(
        &kafka_wire_messages::ConsumerProtocolSubscription {
            topics: vec![T.into()],
            ..Default::default()
        },
        0,
    )
    .expect("subscription"));
    let join = json!({"groupId": CG, "sessionTimeoutMs": 30000, "rebalanceTimeoutMs": 30000, "memberId": "",
        "protocolType": "consumer", "protocols": [{"name": "range", "metadata": meta}]});
    let first = d.drive(Broker, K::JoinGroup, join.clone(), &[79]);
    let member = first["memberId"].as_str().unwrap_or("").to_owned();
    let mut join2 = join;
    join2["memberId"] = json!(member);
    let joined = d.drive(Broker, K::JoinGroup, join2, &[0]);
    let generation = joined["generationId"].as_i64().unwrap_or(-1);
    d.drive(Broker, K::SyncGroup, json!({"groupId": CG, "generationId": generation, "memberId": member,
        "protocolType": "consumer", "protocolName": "range", "assignments": [{"memberId": member, "assignment": ""}]}), &[0]);
    d.drive(
        Broker,
        K::Heartbeat,
        json!({"groupId": CG, "generationId": generation, "memberId": member}),
        &[0],
    );
    d.drive(Broker, K::OffsetCommit, json!({"groupId": CG, "generationIdOrMemberEpoch": generation, "memberId": member,
        "topics": [{"topicId": topic_id, "partitions": [{"partitionIndex": 0, "committedOffset": 3, "committedMetadata": "m"}]}]}), &[0]);
    let fetched = d.drive(Broker, K::OffsetFetch, json!({"groups": [{"groupId": CG, "topics": [{"topicId": topic_id, "partitionIndexes": [0]}]}], "requireStable": true}), &[0]);
    assert_eq!(
        fetched
            .pointer("/groups/0/topics/0/partitions/0/committedOffset")
            .and_then(Json::as_i64),
        Some(3),
        "{fetched}"
    );
    d.drive(
        Broker,
        K::DescribeGroups,
        json!({"groups": [CG], "includeAuthorizedOperations": true}),
        &[0],
    );
    d.drive(Broker, K::ListGroups, json!({}), &[0]);
    d.drive(
        Broker,
        K::LeaveGroup,
        json!({"groupId": CG, "members": [{"memberId": member, "groupInstanceId": null}]}),
        &[0],
    );
    d.drive(
        Broker,
        K::OffsetDelete,
        json!({"groupId": CG, "topics": [{"name": T, "partitions": [{"partitionIndex": 0}]}]}),
        &[0],
    );
    d.drive(Broker, K::DeleteGroups, json!({"groupsNames": [CG]}), &[0]);

    // A KIP-848 consumer group.
    const G848: &str = "apis-consumer";
    let m848 = "kwire-member-848-0000000";
    let hb = d.drive(
        Broker,
        K::ConsumerGroupHeartbeat,
        json!({"groupId": G848, "memberId": m848, "memberEpoch": 0,
        "rebalanceTimeoutMs": 30000, "subscribedTopicNames": [T], "topicPartitions": []}),
        &[0],
    );
    let e848 = hb["memberEpoch"].as_i64().unwrap_or(0);
    d.drive(
        Broker,
        K::ConsumerGroupDescribe,
        json!({"groupIds": [G848], "includeAuthorizedOperations": true}),
        &[0],
    );
    d.drive(
        Broker,
        K::ConsumerGroupHeartbeat,
        json!({"groupId": G848, "memberId": m848, "memberEpoch": -1}),
        &[0],
    );
    if e848 < 1 {
        d.failures.push(format!(
            "ConsumerGroupHeartbeat: joining gave member epoch {e848}: {hb}"
        ));
    }

    // Transactions.
    const TXN: &str = "apis-txn";
    d.drive(
        Broker,
        K::FindCoordinator,
        json!({"keyType": 1, "coordinatorKeys": [TXN]}),
        &[0],
    );
    // At v6 (KIP-939, unstable in 4.4.0: the broker offers it with
    // unstable.api.versions.enable) without two-phase commit: no prepared transaction is kept.
    let tp = d.drive(Broker, K::InitProducerId, json!({"transactionalId": TXN, "transactionTimeoutMs": 60000, "producerId": -1, "producerEpoch": -1,
        "enable2Pc": false, "keepPreparedTxn": false}), &[0]);
    assert_eq!(tp["ongoingTxnProducerId"], json!(-1), "{tp}");
    let (tpid, tepoch) = (
        tp["producerId"].as_i64().unwrap_or(-1),
        tp["producerEpoch"].as_i64().unwrap_or(-1),
    );
    d.drive(Broker, K::AddPartitionsToTxn, json!({"transactions": [{"transactionalId": TXN, "producerId": tpid, "producerEpoch": tepoch,
        "verifyOnly": false, "topics": [{"name": T, "partitions": [2]}]}]}), &[0]);
    d.drive(Broker, K::Produce, json!({"transactionalId": TXN, "acks": -1, "timeoutMs": 10000, "topicData": [
        {"topicId": topic_id, "partitionData": [{"index": 2, "records": b64(&batch(2, Compression::Lz4, Some((tpid, tepoch as i16, 0, true))))}]}]}), &[0]);
    d.drive(
        Broker,
        K::AddOffsetsToTxn,
        json!({"transactionalId": TXN, "producerId": tpid, "producerEpoch": tepoch, "groupId": CG}),
        &[0],
    );
    d.drive(Broker, K::TxnOffsetCommit, json!({"transactionalId": TXN, "groupId": CG, "producerId": tpid, "producerEpoch": tepoch,
        "topics": [{"topicId": topic_id, "partitions": [{"partitionIndex": 2, "committedOffset": 1, "committedMetadata": null}]}]}), &[0]);
    d.drive(
        Broker,
        K::DescribeTransactions,
        json!({"transactionalIds": [TXN]}),
        &[0],
    );
    d.drive(
        Broker,
        K::ListTransactions,
        json!({"stateFilters": [], "producerIdFilters": [], "durationFilter": -1}),
        &[0],
    );
    d.drive(Broker, K::EndTxn, json!({"transactionalId": TXN, "producerId": tpid, "producerEpoch": tepoch, "committed": true}), &[0]);
    d.drive(Broker, K::WriteTxnMarkers, json!({"markers": [{"producerId": producer_id, "producerEpoch": epoch, "transactionResult": false,
        "topics": [{"name": SCRATCH, "partitionIndexes": [0]}], "coordinatorEpoch": 0}]}), &[0]);

    // Configs.
    d.drive(Broker, K::DescribeConfigs, json!({"resources": [{"resourceType": 2, "resourceName": T, "configurationKeys": null}], "includeSynonyms": true, "includeDocumentation": true}), &[0]);
    d.drive(Broker, K::AlterConfigs, json!({"resources": [{"resourceType": 2, "resourceName": T, "configs": [{"name": "retention.ms", "value": "86400000"}]}], "validateOnly": false}), &[0]);
    d.drive(Broker, K::IncrementalAlterConfigs, json!({"resources": [{"resourceType": 2, "resourceName": T, "configs": [{"name": "cleanup.policy", "configOperation": 0, "value": "delete"}]}], "validateOnly": false}), &[0]);
    d.drive(
        Broker,
        K::ListConfigResources,
        json!({"resourceTypes": []}),
        &[0],
    );
    // ACLs (TOPIC = 2, LITERAL = 3, READ = 3, ALLOW = 3, ANY = 1).
    d.drive(
        Broker,
        K::CreateAcls,
        json!({"creations": [{"resourceType": 2, "resourceName": T, "resourcePatternType": 3,
        "principal": "User:alice", "host": "*", "operation": 3, "permissionType": 3}]}),
        &[0],
    );
    let filter = json!({"resourceTypeFilter": 2, "resourceNameFilter": T, "patternTypeFilter": 3, "principalFilter": null, "hostFilter": null, "operation": 1, "permissionType": 1});
    let mut described = Json::Null;
    for _ in 0..40 {
        described = d.drive(Broker, K::DescribeAcls, filter.clone(), &[0]);
        if described["resources"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        described["resources"].as_array().map(Vec::len),
        Some(1),
        "{described}"
    );
    d.drive(Broker, K::DeleteAcls, json!({"filters": [{"resourceTypeFilter": 2, "resourceNameFilter": T, "patternTypeFilter": 3,
        "principalFilter": null, "hostFilter": null, "operation": 1, "permissionType": 1}]}), &[0]);
    // Quotas and SCRAM credentials.
    d.drive(Broker, K::AlterClientQuotas, json!({"entries": [{"entity": [{"entityType": "user", "entityName": "alice"}],
        "ops": [{"key": "producer_byte_rate", "value": 1048576.0, "remove": false}]}], "validateOnly": false}), &[0]);
    d.drive(
        Broker,
        K::DescribeClientQuotas,
        json!({"components": [], "strict": false}),
        &[0],
    );
    let salt = b"kwire-salt-of-bob";
    let mut salted = [0u8; 32];
    pbkdf2::pbkdf2_hmac::<sha2::Sha256>(b"bob-secret", salt, 4096, &mut salted);
    d.drive(
        Broker,
        K::AlterUserScramCredentials,
        json!({"deletions": [], "upsertions": [{"name": "bob", "mechanism": 1,
        "iterations": 4096, "salt": b64(salt), "saltedPassword": b64(&salted)}]}),
        &[0],
    );
    d.drive(
        Broker,
        K::DescribeUserScramCredentials,
        json!({"users": null}),
        &[0],
    );
    // The credential we derived (PBKDF2-HMAC-SHA-256) logs bob in, once it reaches the broker.
    let started = Instant::now();
    loop {
        let mut bob = Connection::connect(cluster.broker, 14).expect("connect");
        bob.api_versions(ApiKey::ApiVersions.max_version())
            .expect("ApiVersions");
        match bob.authenticate(&d.broker_versions, "SCRAM-SHA-256", "bob", "bob-secret") {
            Ok(_) => break,
            Err(_) if started.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => {
                d.failures.push(format!(
                    "bob's SCRAM-SHA-256 login with the credential we set: {e}"
                ));
                break;
            }
        }
    }

    // Log dirs, reassignments, leader election.
    let logdir = cluster
        .dir
        .join("broker-data")
        .to_string_lossy()
        .into_owned();
    d.drive(Broker, K::DescribeLogDirs, json!({"topics": null}), &[0]);
    d.drive(
        Broker,
        K::AlterReplicaLogDirs,
        json!({"dirs": [{"path": logdir, "topics": [{"name": T, "partitions": [0]}]}]}),
        &[0],
    );
    d.drive(Broker, K::AlterPartitionReassignments, json!({"timeoutMs": 30000, "topics": [{"name": SCRATCH, "partitions": [{"partitionIndex": 0, "replicas": [cluster::BROKER_ID]}]}]}), &[0]);
    d.drive(
        Broker,
        K::ListPartitionReassignments,
        json!({"timeoutMs": 30000, "topics": null}),
        &[0],
    );
    // ELECTION_NOT_NEEDED (84): the only replica already leads.
    d.drive(Broker, K::ElectLeaders, json!({"electionType": 0, "topicPartitions": [{"topic": T, "partitions": [0]}], "timeoutMs": 30000}), &[0, 84]);

    // Cluster.
    d.drive(
        Broker,
        K::DescribeCluster,
        json!({"includeClusterAuthorizedOperations": true, "endpointType": 1}),
        &[0],
    );
    d.drive(
        Controller,
        K::DescribeCluster,
        json!({"includeClusterAuthorizedOperations": true, "endpointType": 2}),
        &[0],
    );
    d.drive(Broker, K::DescribeQuorum, json!({"topics": [{"topicName": "__cluster_metadata", "partitions": [{"partitionIndex": 0}]}]}), &[0]);
    d.drive(Broker, K::UpdateFeatures, json!({"timeoutMs": 30000, "featureUpdates": [{"feature": "group.version", "maxVersionLevel": 1, "upgradeType": 1}], "validateOnly": true}), &[0]);

    // Delegation tokens (enabled by delegation.token.secret.key).
    let token = d.drive(Broker, K::CreateDelegationToken, json!({"ownerPrincipalType": null, "ownerPrincipalName": null,
        "renewers": [{"principalType": "User", "principalName": "admin"}], "maxLifetimeMs": 3600000}), &[0]);
    let hmac = token["hmac"].as_str().unwrap_or("").to_owned();
    d.drive(
        Broker,
        K::RenewDelegationToken,
        json!({"hmac": hmac, "renewPeriodMs": 600000}),
        &[0],
    );
    d.drive(
        Broker,
        K::DescribeDelegationToken,
        json!({"owners": null}),
        &[0],
    );
    d.drive(
        Broker,
        K::ExpireDelegationToken,
        json!({"hmac": hmac, "expiryTimePeriodMs": -1}),
        &[0],
    );

    // Client telemetry (the broker runs interop/cluster's KwireTelemetry receiver).
    let sub = d.drive(
        Broker,
        K::GetTelemetrySubscriptions,
        json!({"clientInstanceId": "AAAAAAAAAAAAAAAAAAAAAA"}),
        &[0],
    );
    let instance = sub["clientInstanceId"].as_str().unwrap_or("").to_owned();
    d.drive(Broker, K::PushTelemetry, json!({"clientInstanceId": instance, "subscriptionId": sub["subscriptionId"], "terminating": true,
        "compressionType": 0, "metrics": ""}), &[0]);

    // A share group.
    const SG: &str = "apis-share";
    let msg = "kwire-share-member-00000";
    let shb = d.drive(
        Broker,
        K::ShareGroupHeartbeat,
        json!({"groupId": SG, "memberId": msg, "memberEpoch": 0, "subscribedTopicNames": [T]}),
        &[0],
    );
    let sepoch = shb["memberEpoch"].as_i64().unwrap_or(0);
    d.drive(
        Broker,
        K::ShareGroupDescribe,
        json!({"groupIds": [SG], "includeAuthorizedOperations": true}),
        &[0],
    );
    d.drive(Broker, K::ShareFetch, json!({"groupId": SG, "memberId": msg, "shareSessionEpoch": 0, "maxWaitMs": 0, "minBytes": 0,
        "maxRecords": 100, "batchSize": 100, "topics": [{"topicId": topic_id, "partitions": [{"partitionIndex": 0, "acknowledgementBatches": []}]}]}), &[0]);
    d.drive(
        Broker,
        K::ShareAcknowledge,
        json!({"groupId": SG, "memberId": msg, "shareSessionEpoch": 1, "topics": []}),
        &[0],
    );
    d.drive(
        Broker,
        K::DescribeShareGroupOffsets,
        json!({"groups": [{"groupId": SG, "topics": null}]}),
        &[0],
    );
    d.drive(
        Broker,
        K::ShareGroupHeartbeat,
        json!({"groupId": SG, "memberId": msg, "memberEpoch": -1}),
        &[0],
    );
    if sepoch < 1 {
        d.failures.push(format!(
            "ShareGroupHeartbeat: joining gave member epoch {sepoch}: {shb}"
        ));
    }
    d.drive(Broker, K::AlterShareGroupOffsets, json!({"groupId": SG, "topics": [{"topicName": T, "partitions": [{"partitionIndex": 0, "startOffset": 0}]}]}), &[0]);
    d.drive(
        Broker,
        K::DeleteShareGroupOffsets,
        json!({"groupId": SG, "topics": [{"topicName": T}]}),
        &[0],
    );
    // The share coordinator's state APIs (inter-broker; the super user may call them).
    const SGS: &str = "apis-share-state";
    d.drive(
        Broker,
        K::FindCoordinator,
        json!({"keyType": 2, "coordinatorKeys": [format!("{SGS}:{scratch_id}:0")]}),
        &[0],
    );
    let parts = json!([{"topicId": scratch_id, "partitions": [{"partition": 0, "stateEpoch": 0, "startOffset": 0}]}]);
    d.drive(
        Broker,
        K::InitializeShareGroupState,
        json!({"groupId": SGS, "topics": parts}),
        &[0],
    );
    d.drive(Broker, K::WriteShareGroupState, json!({"groupId": SGS, "topics": [{"topicId": scratch_id, "partitions": [{"partition": 0,
        "stateEpoch": 0, "leaderEpoch": 0, "startOffset": 0, "deliveryCompleteCount": 0, "stateBatches": []}]}]}), &[0]);
    d.drive(Broker, K::ReadShareGroupState, json!({"groupId": SGS, "topics": [{"topicId": scratch_id, "partitions": [{"partition": 0, "leaderEpoch": 0}]}]}), &[0]);
    d.drive(Broker, K::ReadShareGroupStateSummary, json!({"groupId": SGS, "topics": [{"topicId": scratch_id, "partitions": [{"partition": 0, "leaderEpoch": 0}]}]}), &[0]);
    d.drive(Broker, K::DeleteShareGroupState, json!({"groupId": SGS, "topics": [{"topicId": scratch_id, "partitions": [{"partition": 0}]}]}), &[0]);

    // A streams group (KIP-1071).
    const STG: &str = "apis-streams";
    let smember = "kwire-streams-member-000";
    d.drive(Broker, K::StreamsGroupHeartbeat, json!({"groupId": STG, "memberId": smember, "memberEpoch": 0, "endpointInformationEpoch": 0,
        "rebalanceTimeoutMs": 30000, "processId": "kwire-process", "topology": {"epoch": 0, "subtopologies": [{"subtopologyId": "0",
        "sourceTopics": [T], "stateChangelogTopics": [], "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]},
        "activeTasks": [], "standbyTasks": [], "warmupTasks": []}), &[0]);
    d.drive(
        Broker,
        K::StreamsGroupDescribe,
        json!({"groupIds": [STG], "includeAuthorizedOperations": true}),
        &[0],
    );

    // Scratch topic last.
    // UNSUPPORTED_VERSION (35): "The broker has no streams group topology description plugin
    // configured."
    d.drive(Broker, K::StreamsGroupTopologyDescriptionUpdate, json!({"groupId": STG, "memberId": smember, "topologyEpoch": 0,
        "topologyDescription": {"subtopologies": [{"subtopologyId": "0", "nodes": [{"name": "KSTREAM-SOURCE-0000000000", "nodeType": 0,
        "sourceTopics": [T], "sinkTopic": null, "stores": [], "successors": []}]}], "globalStores": []}}), &[35]);

    // KRaft and controller-only APIs, sent so that nothing changes: stale epochs, a node id
    // that is not in the cluster (99), a quorum whose voter set is static.
    // FENCED_LEADER_EPOCH (74) for a stale epoch, STALE_BROKER_EPOCH (77) for a broker epoch
    // of -1, BROKER_ID_NOT_REGISTERED (102) once broker 99 is gone, INVALID_REQUEST (42) for a voter change that
    // names no directory.
    let cid = cluster::CLUSTER_ID;
    let meta_topic = "__cluster_metadata";
    let zero = "AAAAAAAAAAAAAAAAAAAAAA";
    let j = d.drive(Controller, K::Vote, json!({"clusterId": cid, "voterId": cluster::CONTROLLER_ID, "topics": [{"topicName": meta_topic, "partitions": [{"partitionIndex": 0,
        "replicaEpoch": 0, "replicaId": 99, "replicaDirectoryId": zero, "voterDirectoryId": zero, "lastOffsetEpoch": 0, "lastOffset": 0, "preVote": true}]}]}), &[0, 74]);
    want(&mut d, K::Vote, &j, "/topics/0/partitions/0/errorCode", 74);
    let j = d.drive(Controller, K::BeginQuorumEpoch, json!({"clusterId": cid, "voterId": cluster::CONTROLLER_ID, "topics": [{"topicName": meta_topic, "partitions": [{"partitionIndex": 0,
        "voterDirectoryId": zero, "leaderId": 99, "leaderEpoch": 0}]}], "leaderEndpoints": []}), &[0, 74]);
    want(
        &mut d,
        K::BeginQuorumEpoch,
        &j,
        "/topics/0/partitions/0/errorCode",
        74,
    );
    let j = d.drive(Controller, K::EndQuorumEpoch, json!({"clusterId": cid, "topics": [{"topicName": meta_topic, "partitions": [{"partitionIndex": 0,
        "leaderId": 99, "leaderEpoch": 0, "preferredCandidates": []}]}], "leaderEndpoints": []}), &[0, 74]);
    want(
        &mut d,
        K::EndQuorumEpoch,
        &j,
        "/topics/0/partitions/0/errorCode",
        74,
    );
    // Kafka 4.4.0 answers UNKNOWN_SERVER_ERROR (-1): its partition-level error answer has no
    // snapshot records, and FetchSnapshotResponseData's size computation then fails with a
    // NullPointerException (`unalignedRecords` is null; in the controller's log).
    d.drive(Controller, K::FetchSnapshot, json!({"clusterId": cid, "replicaId": 99, "maxBytes": 1048576, "topics": [{"name": meta_topic, "partitions": [{"partition": 0,
        "currentLeaderEpoch": 0, "snapshotId": {"endOffset": 0, "epoch": 0}, "position": 0}]}]}), &[-1]);
    d.drive(Controller, K::AlterPartition, json!({"brokerId": cluster::BROKER_ID, "brokerEpoch": -1, "topics": [{"topicId": topic_id, "partitions": [{"partitionIndex": 0,
        "leaderEpoch": 0, "newIsrWithEpochs": [{"brokerId": cluster::BROKER_ID, "brokerEpoch": -1}], "leaderRecoveryState": 0, "partitionEpoch": 0}]}]}), &[77]);
    // A broker 99 registers (it supports exactly the finalized feature levels the controller
    // reports), heartbeats fenced, and is unregistered again; it never serves anything.
    let features: Vec<Json> = d
        .controller_versions
        .finalized_features
        .iter()
        .map(|f| json!({"name": f.name.to_string(), "minSupportedVersion": f.max_version_level, "maxSupportedVersion": f.max_version_level}))
        .collect();
    let reg = d.drive(Controller, K::BrokerRegistration, json!({"brokerId": 99, "clusterId": cid, "incarnationId": "AgICAgICAgICAgICAgICAg",
        "listeners": [{"name": "SASL_PLAINTEXT", "host": "127.0.0.1", "port": 9, "securityProtocol": 2}], "features": features,
        "rack": null, "isMigratingZkBroker": false, "logDirs": ["AQEBAQEBAQEBAQEBAQEBAQ"], "previousBrokerEpoch": -1}), &[0]);
    let epoch99 = reg["brokerEpoch"].as_i64().unwrap_or(-1);
    d.drive(Controller, K::BrokerHeartbeat, json!({"brokerId": 99, "brokerEpoch": epoch99, "currentMetadataOffset": 0, "wantFence": true, "wantShutDown": false}), &[0]);
    d.drive(Controller, K::BrokerHeartbeat, json!({"brokerId": 99, "brokerEpoch": -1, "currentMetadataOffset": 0, "wantFence": true, "wantShutDown": false}), &[77]);
    d.drive(Broker, K::UnregisterBroker, json!({"brokerId": 99}), &[0]);
    d.drive(
        Controller,
        K::AllocateProducerIds,
        json!({"brokerId": 99, "brokerEpoch": -1}),
        &[77],
    );
    d.drive(
        Controller,
        K::AssignReplicasToDirs,
        json!({"brokerId": 99, "brokerEpoch": -1, "directories": []}),
        &[77],
    );
    // Registers a controller 99 (accepted), unregistered again below.
    d.drive(Controller, K::ControllerRegistration, json!({"controllerId": 99, "incarnationId": zero, "zkMigrationReady": false, "listeners": [], "features": []}), &[0]);
    d.drive(Controller, K::UpdateRaftVoter, json!({"clusterId": cid, "currentLeaderEpoch": 0, "voterId": 99, "voterDirectoryId": zero, "listeners": [],
        "kRaftVersionFeature": {"minSupportedVersion": 0, "maxSupportedVersion": 1}}), &[74]);
    d.drive(Broker, K::UnregisterBroker, json!({"brokerId": 99}), &[102]);
    // Envelope (KIP-590), as a broker forwards an admin request: alice's CreateTopics, with
    // her principal serialized as DefaultPrincipalData. The controller authorizes her and
    // answers TOPIC_AUTHORIZATION_FAILED inside the envelope.
    let inner_version = negotiate_key(
        &d.controller_versions,
        K::CreateTopics.key(),
        K::CreateTopics.request_versions(),
    )
    .expect("CreateTopics");
    let inner = request_from_json(K::CreateTopics, inner_version, &json!({"topics": [{"name": "enveloped", "numPartitions": 1, "replicationFactor": 1}], "timeoutMs": 30000}))
        .expect("CreateTopics body");
    let inner_frame = kafka_wire_messages::RequestFrame::new(
        77,
        Some("kwire-envelope".into()),
        inner_version,
        inner,
    )
    .to_bytes()
    .expect("inner frame");
    let principal = kafka_wire_messages::encode_version_prefixed(
        &kafka_wire_messages::DefaultPrincipalData {
            r#type: "User".into(),
            name: cluster::ALICE.0.into(),
            ..Default::default()
        },
        0,
    )
    .expect("principal");
    let env = d.drive(
        Controller,
        K::Envelope,
        json!({"requestData": b64(&inner_frame[4..]), "requestPrincipal": b64(&principal),
        "clientHostAddress": b64(&[127, 0, 0, 1])}),
        &[0],
    );
    let data = env["responseData"].as_str().map(|s| {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .expect("base64")
    });
    match data {
        Some(data) => {
            let mut framed = (data.len() as i32).to_be_bytes().to_vec();
            framed.extend_from_slice(&data);
            let inner = kafka_wire_messages::ResponseFrame::decode(
                &framed.into(),
                K::CreateTopics,
                inner_version,
                &DecodeOptions::DEFAULT,
            )
            .expect("the enveloped CreateTopics answer decodes")
            .frame;
            assert_eq!(inner.header.correlation_id, 77);
            let j = response_to_json(&inner.body, inner_version).expect("JSON");
            want(&mut d, K::Envelope, &j, "/topics/0/errorCode", 29);
        }
        None => d
            .failures
            .push(format!("Envelope: no response data in {env}")),
    }
    d.drive(
        Broker,
        K::UnregisterController,
        json!({"controllerId": 99}),
        &[0],
    );
    d.drive(Broker, K::AddRaftVoter, json!({"clusterId": cid, "timeoutMs": 10000, "voterId": 99, "voterDirectoryId": zero, "listeners": [], "ackWhenCommitted": true}), &[42]);
    d.drive(
        Broker,
        K::RemoveRaftVoter,
        json!({"clusterId": cid, "voterId": 99, "voterDirectoryId": zero}),
        &[42],
    );

    d.drive(Broker, K::DeleteTopics, json!({"topics": [{"name": SCRATCH, "topicId": "AAAAAAAAAAAAAAAAAAAAAA"}], "timeoutMs": 30000}), &[0]);

    (d.rows, d.failures)
}

/// The topic our client creates and produces to.
const APIS_TOPIC: &str = "apis";
/// The committed records left in it: 5 codecs × 5 records, less the one DeleteRecords
/// removes, plus 3 of the idempotent producer and 2 of the committed transaction.
const OUR_RECORDS: i64 = 5 * 5 - 1 + 3 + 2;

/// The Java client flows of `interop/cluster/src/main/java/KwireFlows.java`, in order (the
/// consumers read what `produce` wrote).
const FLOWS: [&str; 5] = [
    "admin",
    "produce",
    "consume-classic",
    "consume-consumer",
    "share",
];

/// Every frame decoded and re-encoded byte for byte; nothing passed through undecoded.
fn check_summary(s: &Summary, what: &str) {
    for m in &s.mismatches {
        println!(
            "re-encoding differs: api {} v{} {:?}",
            m.api_key, m.version, m.direction
        );
    }
    for e in &s.errors {
        println!(
            "error: api {} v{} {:?}: {}",
            e.api_key, e.version, e.direction, e.message
        );
    }
    let t = s.totals();
    assert!(t.frames > 0, "{what}: no frames");
    assert!(
        s.mismatches.is_empty() && t.mismatched == 0,
        "{what}: frames re-encoded differently"
    );
    assert!(
        s.errors.is_empty() && t.errors == 0,
        "{what}: frames failed to decode"
    );
    assert_eq!(t.opaque, 0, "{what}: frames passed through undecoded");
    assert_eq!(t.decoded, t.frames, "{what}: every frame decoded");
    assert_eq!(
        t.byte_exact, t.decoded,
        "{what}: every frame re-encoded byte for byte"
    );
}

/// (frames, batches, records) of `key` in direction `dir`.
fn crossed(s: &Summary, key: ApiKey, dir: Direction) -> (u64, u64, u64) {
    s.rows
        .iter()
        .filter(|((k, _, d), _)| *k == key.key() && *d == dir)
        .fold((0, 0, 0), |(f, b, r), (_, c)| {
            (f + c.frames, b + c.batches, r + c.records)
        })
}

/// What each flow must have sent through the proxy.
fn check_flow(s: &Summary, flow: &str, mode: &str) {
    let need: &[(ApiKey, Direction)] = match flow {
        "admin" => &[
            (ApiKey::CreateTopics, Direction::Response),
            (ApiKey::CreateAcls, Direction::Response),
            (ApiKey::AlterUserScramCredentials, Direction::Response),
            (ApiKey::ElectLeaders, Direction::Response),
        ],
        "produce" => &[
            (ApiKey::Produce, Direction::Request),
            (ApiKey::InitProducerId, Direction::Response),
            (ApiKey::EndTxn, Direction::Response),
        ],
        "consume-classic" => &[
            (ApiKey::JoinGroup, Direction::Response),
            (ApiKey::SyncGroup, Direction::Response),
            (ApiKey::Fetch, Direction::Response),
            (ApiKey::OffsetCommit, Direction::Response),
        ],
        "consume-consumer" => &[
            (ApiKey::ConsumerGroupHeartbeat, Direction::Response),
            (ApiKey::Fetch, Direction::Response),
            (ApiKey::OffsetCommit, Direction::Response),
        ],
        "share" => &[
            (ApiKey::ShareGroupHeartbeat, Direction::Response),
            (ApiKey::ShareFetch, Direction::Response),
            (ApiKey::ShareAcknowledge, Direction::Request),
        ],
        _ => unreachable!(),
    };
    for (api, dir) in need {
        assert!(
            crossed(s, *api, *dir).0 > 0,
            "{flow} ({mode}): no {} {dir:?} crossed the proxy",
            api.name()
        );
    }
    assert!(
        crossed(s, ApiKey::SaslAuthenticate, Direction::Response).0 > 0,
        "{flow}: no SASL through the proxy"
    );
    match flow {
        "produce" => {
            let (_, batches, records) = crossed(s, ApiKey::Produce, Direction::Request);
            assert!(
                batches > 0 && records > 0,
                "{flow}: no batch parsed in Produce"
            );
        }
        "consume-classic" | "consume-consumer" => {
            let (_, _, records) = crossed(s, ApiKey::Fetch, Direction::Response);
            assert!(records > 0, "{flow}: no records parsed in Fetch");
        }
        _ => {}
    }
    let t = s.totals();
    assert!(t.rewritten > 0, "{flow}: no broker address rewritten");
}
