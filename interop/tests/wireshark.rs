//! Wireshark's Kafka dissector (C, written by others) reads the frames we encode: the whole
//! mock-cluster transaction, and every version of AddPartitionsToTxn and TxnOffsetCommit the
//! dissector knows, replayed as TCP traffic to port 9092 in a pcap file.

mod common;

use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use std::path::PathBuf;
use std::process::Command;

use kafka_wire::frame::{encode_request, encode_response};
use kafka_wire::{ApiMessage, RequestHeader, ResponseHeader, Version};
use kafka_wire_interop::pcap::PcapWriter;
use kafka_wire_messages::*;

/// Versions of the two APIs that Wireshark 4.0's dissector knows (Debian 12's tshark
/// 4.0.17); a higher one is flagged `kafka.unsupported_api_version` (checked below).
const ADD_PARTITIONS_VERSIONS: std::ops::RangeInclusive<Version> = 0..=1;
const TXN_OFFSET_COMMIT_VERSIONS: std::ops::RangeInclusive<Version> = 0..=3;
/// Highest InitProducerId version Wireshark 4.0 knows.
const INIT_PRODUCER_ID_MAX: Version = 3;

fn tshark() -> Option<PathBuf> {
    let ok = Command::new("tshark")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if ok {
        return Some(PathBuf::from("tshark"));
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("tshark is not installed; CI must install it (apt-get install -y tshark)");
    }
    eprintln!(
        "note: tshark not found, skipping the Wireshark interop test (apt-get install tshark)"
    );
    None
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wireshark");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One dissected packet's fields, by field name, each a list of values.
type Row = BTreeMap<String, Vec<String>>;

const FIELDS: &[&str] = &[
    "frame.number",
    "tcp.stream",
    "tcp.srcport",
    "tcp.dstport",
    "kafka.api_key",
    "kafka.request_key",
    "kafka.response_key",
    "kafka.api_version",
    "kafka.request.version",
    "kafka.response.version",
    "kafka.correlation_id",
    "kafka.client_id",
    "kafka.transactional_id",
    "kafka.topic_name",
    "kafka.partition_id",
    "kafka.producer_id",
    "kafka.producer_epoch",
    "kafka.consumer_group",
    "kafka.consumer_group_instance",
    "kafka.member_id",
    "kafka.generation_id",
    "kafka.offset",
    "kafka.metadata",
    "kafka.leader_epoch",
    "kafka.error",
    "kafka.coordinator_key",
    "kafka.coordinator_type",
    "kafka.node_id",
    "kafka.host",
    "kafka.port",
    "kafka.transaction_timeout",
    "kafka.transaction_result",
    "kafka.throttle_time",
    "_ws.expert.message",
    "_ws.malformed",
];

fn dissect(tshark: &PathBuf, pcap: &PathBuf) -> Vec<Row> {
    let mut cmd = Command::new(tshark);
    cmd.arg("-r")
        .arg(pcap)
        .args([
            "-n",
            "-o",
            "tcp.check_checksum:TRUE",
            "-d",
            "tcp.port==9092,kafka",
        ])
        .args([
            "-Y",
            "kafka",
            "-T",
            "fields",
            "-E",
            "separator=\t",
            "-E",
            "occurrence=a",
        ])
        .args(["-E", "aggregator=|"]);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            FIELDS
                .iter()
                .zip(line.split('\t'))
                .map(|(f, v)| {
                    let vals = if v.is_empty() {
                        vec![]
                    } else {
                        v.split('|').map(str::to_owned).collect()
                    };
                    (f.to_string(), vals)
                })
                .collect()
        })
        .collect()
}

fn frame_of<Req: ApiMessage, Resp: ApiMessage>(
    version: Version,
    correlation_id: i32,
    req: &Req,
    resp: &Resp,
) -> (Vec<u8>, Vec<u8>) {
    let mut a = Vec::new();
    encode_request(
        &mut a,
        &RequestHeader::new(
            Req::API_KEY,
            version,
            correlation_id,
            Some("wireshark".into()),
        ),
        req,
    )
    .unwrap();
    let mut b = Vec::new();
    encode_response(&mut b, &ResponseHeader::new(correlation_id), version, resp).unwrap();
    (a, b)
}

/// Checks that `row` has exactly `want` for `field`.
fn expect(row: &Row, what: &str, field: &str, want: &[String]) {
    let got = row.get(field).cloned().unwrap_or_default();
    assert_eq!(
        got, want,
        "{what}: field {field} of frame {:?}",
        row["frame.number"]
    );
}

fn s<T: ToString>(xs: &[T]) -> Vec<String> {
    xs.iter().map(T::to_string).collect()
}

/// No malformed packet, no expert info.
fn assert_clean(row: &Row, what: &str) {
    assert_clean_except(row, what, |_| false);
}

/// No malformed packet, and no expert info but what `allowed` accepts.
fn assert_clean_except(row: &Row, what: &str, allowed: impl Fn(&str) -> bool) {
    expect(row, what, "_ws.malformed", &[]);
    let unexpected: Vec<&String> = row["_ws.expert.message"]
        .iter()
        .filter(|m| !allowed(m))
        .collect();
    assert!(
        unexpected.is_empty(),
        "{what}: expert info {unexpected:?} in {row:?}"
    );
}

/// The notes the dissector attaches to an ApiVersions answer's list: an API or version the
/// broker offers that Wireshark 4.0 does not know. They describe the broker's list, not a
/// fault in the frame.
fn is_api_list_note(m: &str) -> bool {
    (m.starts_with("Unsupported ") && m.contains(" version. Supports v"))
        || (m.starts_with("Unknown ") && m.ends_with(" API key"))
}

fn port(row: &Row, field: &str) -> u16 {
    row[field][0].parse().unwrap()
}

/// The transaction run against librdkafka's mock, frame for frame, as Wireshark reads it.
#[cfg_attr(kw_no_tshark, ignore = "tshark not found (apt-get install tshark)")]
#[test]
fn mock_transaction_dissects_to_the_values_we_encoded() {
    let Some(tshark) = tshark() else { return };
    let cluster = common::mock_cluster();
    let run = common::run_transaction(&cluster);

    let mut pcap = PcapWriter::new();
    let server: SocketAddrV4 = "127.0.0.1:9092".parse().unwrap();
    let mut convs = BTreeMap::new();
    for f in &run.frames {
        let conv = *convs.entry(f.conn).or_insert_with(|| {
            let client = SocketAddrV4::new([127, 0, 0, 1].into(), 50_000 + f.conn as u16);
            pcap.open(client, server)
        });
        assert!(f.bytes.len() <= 1460, "one segment per frame");
        pcap.send(conv, f.to_broker, &f.bytes);
    }
    let path = out_dir().join("mock-transaction.pcap");
    std::fs::write(&path, pcap.into_bytes()).unwrap();
    let rows = dissect(&tshark, &path);
    assert_eq!(rows.len(), run.frames.len(), "one Kafka PDU per frame");

    // What we sent, by connection, in order: (api key, version, request fields, response fields).
    let (pid, epoch) = (run.producer_id, run.producer_epoch);
    let v = |api: &str| run.versions[api];
    let txn = || s(&[common::TXN_ID]);
    let pids = || s(&[pid]);
    let parts = || s(&common::PARTITIONS);
    type Fields = Vec<(&'static str, Vec<String>)>;
    let boot: Vec<(i16, Version, Fields, Fields)> = vec![
        (18, 3, vec![], vec![]),
        (18, 0, vec![], vec![("kafka.error", s(&[0]))]),
        (18, v("ApiVersions"), vec![], vec![("kafka.error", s(&[0]))]),
        (
            10,
            v("FindCoordinator"),
            vec![
                ("kafka.coordinator_key", txn()),
                ("kafka.coordinator_type", s(&[1])),
            ],
            vec![
                ("kafka.error", s(&[0])),
                ("kafka.node_id", s(&[2])),
                ("kafka.host", s(&["127.0.0.1"])),
            ],
        ),
        (
            10,
            v("FindCoordinator"),
            vec![
                ("kafka.coordinator_key", s(&[common::GROUP_ID])),
                ("kafka.coordinator_type", s(&[0])),
            ],
            vec![("kafka.error", s(&[0])), ("kafka.node_id", s(&[3]))],
        ),
    ];
    let add = |topic: &str, err: i16| {
        (
            24,
            v("AddPartitionsToTxn"),
            vec![
                ("kafka.transactional_id", txn()),
                ("kafka.producer_id", pids()),
                ("kafka.producer_epoch", s(&[epoch])),
                ("kafka.topic_name", s(&[topic])),
                ("kafka.partition_id", parts()),
            ],
            vec![
                ("kafka.topic_name", s(&[topic])),
                ("kafka.partition_id", parts()),
                ("kafka.error", s(&[err, err, err])),
            ],
        )
    };
    let end = |e: i16, err: i16| {
        (
            26,
            v("EndTxn"),
            vec![
                ("kafka.transactional_id", txn()),
                ("kafka.producer_id", pids()),
                ("kafka.producer_epoch", s(&[e])),
            ],
            vec![("kafka.error", s(&[err]))],
        )
    };
    let coord: Vec<(i16, Version, Fields, Fields)> = vec![
        (18, v("ApiVersions"), vec![], vec![("kafka.error", s(&[0]))]),
        (
            22,
            v("InitProducerId"),
            vec![
                ("kafka.transactional_id", txn()),
                ("kafka.transaction_timeout", s(&[60_000])),
            ],
            vec![
                ("kafka.error", s(&[0])),
                ("kafka.producer_id", pids()),
                ("kafka.producer_epoch", s(&[epoch])),
            ],
        ),
        add(common::TOPIC, 0),
        add(common::MISSING_TOPIC, 3),
        (
            25,
            v("AddOffsetsToTxn"),
            vec![
                ("kafka.transactional_id", txn()),
                ("kafka.producer_id", pids()),
                ("kafka.producer_epoch", s(&[epoch])),
                ("kafka.consumer_group", s(&[common::GROUP_ID])),
            ],
            vec![("kafka.error", s(&[0]))],
        ),
        end(epoch + 1, 47),
        end(epoch, 0),
    ];
    let group: Vec<(i16, Version, Fields, Fields)> = vec![
        (18, v("ApiVersions"), vec![], vec![("kafka.error", s(&[0]))]),
        (
            28,
            v("TxnOffsetCommit"),
            vec![
                ("kafka.transactional_id", txn()),
                ("kafka.consumer_group", s(&[common::GROUP_ID])),
                ("kafka.producer_id", pids()),
                ("kafka.producer_epoch", s(&[epoch])),
                ("kafka.topic_name", s(&[common::TOPIC])),
                ("kafka.partition_id", s(&[0, 1])),
                ("kafka.offset", s(&[42i64, 4_000_000_000])),
                ("kafka.metadata", s(&["meta-0", "[ Null ]"])),
            ],
            vec![
                ("kafka.topic_name", s(&[common::TOPIC])),
                ("kafka.partition_id", s(&[0, 1])),
                ("kafka.error", s(&[0, 0])),
            ],
        ),
    ];
    let plan = [boot, coord, group];

    let mut checked = 0;
    for row in &rows {
        let (src, dst) = (port(row, "tcp.srcport"), port(row, "tcp.dstport"));
        let to_broker = dst == 9092;
        let conn = usize::from(if to_broker { src } else { dst } - 50_000);
        let corr: usize = row["kafka.correlation_id"][0].parse().unwrap();
        let (key, version, req, resp) = &plan[conn][corr - 1];
        let what = format!("conn {conn} correlation id {corr} API {key} v{version}");
        if *key == 18 && *version == 3 && !to_broker {
            // The mock's UNSUPPORTED_VERSION answer to ApiVersions v3 is its own (a compact
            // array count of 0 followed by one entry); Wireshark is right to flag it.
            assert!(!row["_ws.expert.message"].is_empty(), "{what}: {row:?}");
            checked += 1;
            continue;
        }
        if *key == 18 && !to_broker {
            assert_clean_except(row, &what, is_api_list_note);
        } else if *key == 22 && *version > INIT_PRODUCER_ID_MAX {
            // Negotiated InitProducerId v4 is beyond the dissector (v0-3), which says so and
            // still dissects it: v4 only adds an error code to v3.
            let note =
                format!("Unsupported InitProducerId version. Supports v0-{INIT_PRODUCER_ID_MAX}.");
            expect(row, &what, "_ws.expert.message", &[note]);
            expect(row, &what, "_ws.malformed", &[]);
        } else {
            assert_clean(row, &what);
        }
        if to_broker {
            expect(row, &what, "kafka.request_key", &s(&[*key]));
            expect(row, &what, "kafka.request.version", &s(&[*version]));
            expect(row, &what, "kafka.client_id", &s(&["kafka-wire-interop"]));
            for (f, want) in req {
                expect(row, &what, f, want);
            }
        } else {
            expect(row, &what, "kafka.response_key", &s(&[*key]));
            expect(row, &what, "kafka.response.version", &s(&[*version]));
            for (f, want) in resp {
                expect(row, &what, f, want);
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 2 * plan.iter().map(Vec::len).sum::<usize>());
    println!("wireshark: {checked} frames of the mock transaction dissected and checked");
}

/// Every version of AddPartitionsToTxn and TxnOffsetCommit that the dissector knows, request
/// and response, with values chosen to be recognisable; the version above each range is
/// flagged by the dissector, which shows the ranges are exactly what it knows.
#[cfg_attr(kw_no_tshark, ignore = "tshark not found (apt-get install tshark)")]
#[test]
fn every_version_the_dissector_knows() {
    let Some(tshark) = tshark() else { return };
    let mut pcap = PcapWriter::new();
    let conv = pcap.open(
        SocketAddrV4::new([127, 0, 0, 1].into(), 50_100),
        "127.0.0.1:9092".parse().unwrap(),
    );
    let mut sent = Vec::new();
    for v in ADD_PARTITIONS_VERSIONS.chain([ADD_PARTITIONS_VERSIONS.end() + 1]) {
        let corr = 100 + i32::from(v);
        let (a, b) = frame_of(
            v,
            corr,
            &add_partitions_request(v),
            &add_partitions_response(v),
        );
        pcap.send(conv, true, &a);
        pcap.send(conv, false, &b);
        sent.push((24i16, v, corr));
    }
    for v in TXN_OFFSET_COMMIT_VERSIONS.chain([TXN_OFFSET_COMMIT_VERSIONS.end() + 1]) {
        let corr = 200 + i32::from(v);
        let (a, b) = frame_of(v, corr, &commit_request(v), &commit_response(v));
        pcap.send(conv, true, &a);
        pcap.send(conv, false, &b);
        sent.push((28, v, corr));
    }
    let path = out_dir().join("txn-api-versions.pcap");
    std::fs::write(&path, pcap.into_bytes()).unwrap();
    let rows = dissect(&tshark, &path);
    assert_eq!(rows.len(), 2 * sent.len());

    let mut checked = 0;
    for (pair, &(key, v, corr)) in rows.chunks(2).zip(&sent) {
        let (req, resp) = (&pair[0], &pair[1]);
        let what = format!("API {key} v{v}");
        let known = if key == 24 {
            ADD_PARTITIONS_VERSIONS.contains(&v)
        } else {
            TXN_OFFSET_COMMIT_VERSIONS.contains(&v)
        };
        if !known {
            let msgs = req["_ws.expert.message"].join(" ");
            assert!(
                msgs.contains("Unsupported"),
                "{what} should be beyond the dissector: {msgs}"
            );
            continue;
        }
        for row in [req, resp] {
            assert_clean(row, &what);
            expect(row, &what, "kafka.correlation_id", &s(&[corr]));
        }
        expect(req, &what, "kafka.request_key", &s(&[key]));
        expect(req, &what, "kafka.request.version", &s(&[v]));
        expect(req, &what, "kafka.api_version", &s(&[v]));
        expect(req, &what, "kafka.client_id", &s(&["wireshark"]));
        expect(req, &what, "kafka.transactional_id", &s(&[TXN]));
        expect(req, &what, "kafka.producer_id", &s(&[PID]));
        expect(req, &what, "kafka.producer_epoch", &s(&[EPOCH]));
        expect(resp, &what, "kafka.response_key", &s(&[key]));
        expect(resp, &what, "kafka.response.version", &s(&[v]));
        if key == 24 {
            expect(req, &what, "kafka.topic_name", &s(&["alpha", "beta"]));
            expect(req, &what, "kafka.partition_id", &s(&[0, 5, 2147483647]));
            expect(resp, &what, "kafka.throttle_time", &s(&[11]));
            expect(resp, &what, "kafka.topic_name", &s(&["alpha"]));
            expect(resp, &what, "kafka.partition_id", &s(&[0, 5]));
            expect(resp, &what, "kafka.error", &s(&[0, 3]));
        } else {
            expect(req, &what, "kafka.consumer_group", &s(&["ws-group"]));
            expect(req, &what, "kafka.topic_name", &s(&["alpha"]));
            expect(req, &what, "kafka.partition_id", &s(&[5, 6]));
            expect(req, &what, "kafka.offset", &s(&[1234567890123i64, 0]));
            expect(req, &what, "kafka.metadata", &s(&["md", "[ Null ]"]));
            if v >= 2 {
                expect(req, &what, "kafka.leader_epoch", &s(&[4, -1]));
            }
            if v >= 3 {
                expect(req, &what, "kafka.generation_id", &s(&[9]));
                expect(req, &what, "kafka.member_id", &s(&["member-1"]));
                expect(
                    req,
                    &what,
                    "kafka.consumer_group_instance",
                    &s(&["instance-1"]),
                );
            }
            expect(resp, &what, "kafka.throttle_time", &s(&[13]));
            expect(resp, &what, "kafka.topic_name", &s(&["alpha"]));
            expect(resp, &what, "kafka.partition_id", &s(&[5, 6]));
            expect(resp, &what, "kafka.error", &s(&[0, 47]));
        }
        checked += 2;
    }
    println!(
        "wireshark: {checked} frames of AddPartitionsToTxn v0-1 and TxnOffsetCommit v0-3 checked"
    );
    assert_eq!(checked, 2 * (2 + 4));
}

const TXN: &str = "wireshark-txn";
const PID: i64 = 0x0123_4567_89ab;
const EPOCH: i16 = 7;

fn add_partitions_request(v: Version) -> AddPartitionsToTxnRequest {
    let topics = vec![
        AddPartitionsToTxnTopic {
            name: "alpha".into(),
            partitions: [0, 5].into(),
            ..Default::default()
        },
        AddPartitionsToTxnTopic {
            name: "beta".into(),
            partitions: [2147483647].into(),
            ..Default::default()
        },
    ];
    if v >= 4 {
        AddPartitionsToTxnRequest {
            transactions: vec![AddPartitionsToTxnTransaction {
                transactional_id: TXN.into(),
                producer_id: PID,
                producer_epoch: EPOCH,
                verify_only: true,
                topics,
                ..Default::default()
            }],
            ..Default::default()
        }
    } else {
        AddPartitionsToTxnRequest {
            v3_and_below_transactional_id: TXN.into(),
            v3_and_below_producer_id: PID,
            v3_and_below_producer_epoch: EPOCH,
            v3_and_below_topics: topics,
            ..Default::default()
        }
    }
}

fn add_partitions_response(v: Version) -> AddPartitionsToTxnResponse {
    let results = vec![AddPartitionsToTxnTopicResult {
        name: "alpha".into(),
        results_by_partition: vec![
            AddPartitionsToTxnPartitionResult {
                partition_index: 0,
                partition_error_code: 0,
                ..Default::default()
            },
            AddPartitionsToTxnPartitionResult {
                partition_index: 5,
                partition_error_code: 3,
                ..Default::default()
            },
        ],
        ..Default::default()
    }];
    if v >= 4 {
        AddPartitionsToTxnResponse {
            throttle_time_ms: 11,
            results_by_transaction: vec![AddPartitionsToTxnResult {
                transactional_id: TXN.into(),
                topic_results: results,
                ..Default::default()
            }],
            ..Default::default()
        }
    } else {
        AddPartitionsToTxnResponse {
            throttle_time_ms: 11,
            results_by_topic_v3_and_below: results,
            ..Default::default()
        }
    }
}

fn commit_request(v: Version) -> TxnOffsetCommitRequest {
    TxnOffsetCommitRequest {
        transactional_id: TXN.into(),
        group_id: "ws-group".into(),
        producer_id: PID,
        producer_epoch: EPOCH,
        generation_id_or_member_epoch: if v >= 3 { 9 } else { -1 },
        member_id: if v >= 3 { "member-1".into() } else { "".into() },
        group_instance_id: if v >= 3 {
            Some("instance-1".into())
        } else {
            None
        },
        topics: vec![TxnOffsetCommitRequestTopic {
            name: if v <= 5 { "alpha".into() } else { "".into() },
            topic_id: if v >= 6 {
                kafka_wire::Uuid::from_bytes([7; 16])
            } else {
                kafka_wire::Uuid::ZERO
            },
            partitions: vec![
                TxnOffsetCommitRequestPartition {
                    partition_index: 5,
                    committed_offset: 1234567890123,
                    committed_leader_epoch: if v >= 2 { 4 } else { -1 },
                    committed_metadata: Some("md".into()),
                    ..Default::default()
                },
                TxnOffsetCommitRequestPartition {
                    partition_index: 6,
                    committed_offset: 0,
                    committed_leader_epoch: -1,
                    committed_metadata: None,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn commit_response(v: Version) -> TxnOffsetCommitResponse {
    TxnOffsetCommitResponse {
        throttle_time_ms: 13,
        topics: vec![TxnOffsetCommitResponseTopic {
            name: if v <= 5 { "alpha".into() } else { "".into() },
            topic_id: if v >= 6 {
                kafka_wire::Uuid::from_bytes([7; 16])
            } else {
                kafka_wire::Uuid::ZERO
            },
            partitions: vec![
                TxnOffsetCommitResponsePartition {
                    partition_index: 5,
                    error_code: 0,
                    ..Default::default()
                },
                TxnOffsetCommitResponsePartition {
                    partition_index: 6,
                    error_code: 47,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    }
}
