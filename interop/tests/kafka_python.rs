//! kafka-python 3.0.12 (its own pure-Python protocol encoder and decoder, generated from
//! Kafka's JSON schemas) against kafka-wire, at every version both have of AddPartitionsToTxn
//! and TxnOffsetCommit, requests and responses:
//!
//! * frames with random values encoded by kafka-python decode with our codec to the same
//!   values and re-encode byte for byte;
//! * frames with random values encoded by us decode in kafka-python to the same values (and
//!   kafka-python re-encodes them to the same bytes, so it read everything).
//!
//! Needs the virtual environment made by `interop/setup.sh`.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use kafka_wire::frame;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{ApiMessage, Bytes, RequestHeader, ResponseHeader, Str, Version};
use kafka_wire_messages::*;
use serde_json::{json, Value};

const SAMPLES_PER_VERSION: u64 = 25;

struct Peer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Peer {
    fn start() -> Option<Peer> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let venv = std::env::var_os("KAFKA_WIRE_INTEROP_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/interop-venv"));
        let python = venv.join("bin/python");
        if !python.exists() {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!(
                    "{} is missing: CI must run interop/setup.sh",
                    python.display()
                );
            }
            eprintln!(
                "note: {} missing, skipping kafka-python interop (run interop/setup.sh)",
                python.display()
            );
            return None;
        }
        let mut child = Command::new(python)
            .arg(root.join("interop/py/kafka_python_peer.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start kafka-python peer");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Some(Peer {
            child,
            stdin,
            lines,
        })
    }

    fn ask(&mut self, request: Value) -> Value {
        let v = self.ask_any(request.clone());
        if let Some(e) = v.get("error") {
            panic!("kafka-python failed on {request}: {e}");
        }
        v
    }

    /// Like `ask`, but an error answer is returned, not a failure.
    fn ask_any(&mut self, request: Value) -> Value {
        writeln!(self.stdin, "{request}").expect("write to kafka-python");
        self.stdin.flush().unwrap();
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("no answer from kafka-python to {request}: {e}"));
        serde_json::from_str(&line).unwrap()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---- our values in kafka-python's shape (its field names, only fields present at v) ----

fn topics_json(ts: &[AddPartitionsToTxnTopic]) -> Value {
    ts.iter()
        .map(|t| json!({"name": t.name.as_str(), "partitions": t.partitions.to_vec()}))
        .collect()
}

fn topic_results_json(ts: &[AddPartitionsToTxnTopicResult]) -> Value {
    ts.iter()
        .map(|t| {
            json!({"name": t.name.as_str(), "results_by_partition": t.results_by_partition.iter().map(|p| json!({
                "partition_index": p.partition_index, "partition_error_code": p.partition_error_code,
            })).collect::<Vec<_>>()})
        })
        .collect()
}

trait PyShape: ApiMessage + std::fmt::Debug + PartialEq + Clone {
    const PY_NAME: &'static str;
    fn py_json(&self, v: Version) -> Value;
    fn random(v: Version, rng: &mut Rng) -> Self;
}

impl PyShape for AddPartitionsToTxnRequest {
    const PY_NAME: &'static str = "AddPartitionsToTxnRequest";
    fn py_json(&self, v: Version) -> Value {
        if v >= 4 {
            json!({"transactions": self.transactions.iter().map(|t| json!({
                "transactional_id": t.transactional_id.as_str(), "producer_id": t.producer_id,
                "producer_epoch": t.producer_epoch, "verify_only": t.verify_only,
                "topics": topics_json(&t.topics),
            })).collect::<Vec<_>>()})
        } else {
            json!({
                "v3_and_below_transactional_id": self.v3_and_below_transactional_id.as_str(),
                "v3_and_below_producer_id": self.v3_and_below_producer_id,
                "v3_and_below_producer_epoch": self.v3_and_below_producer_epoch,
                "v3_and_below_topics": topics_json(&self.v3_and_below_topics),
            })
        }
    }
    fn random(v: Version, rng: &mut Rng) -> Self {
        let topics = |rng: &mut Rng| {
            rng.vec(3, |rng| AddPartitionsToTxnTopic {
                name: rng.string(),
                partitions: rng.vec(4, Rng::i32).into(),
                ..Default::default()
            })
        };
        if v >= 4 {
            AddPartitionsToTxnRequest {
                transactions: rng.vec(3, |rng| AddPartitionsToTxnTransaction {
                    transactional_id: rng.string(),
                    producer_id: rng.i64(),
                    producer_epoch: rng.i16(),
                    verify_only: rng.bool(),
                    topics: topics(rng),
                    ..Default::default()
                }),
                ..Default::default()
            }
        } else {
            AddPartitionsToTxnRequest {
                v3_and_below_transactional_id: rng.string(),
                v3_and_below_producer_id: rng.i64(),
                v3_and_below_producer_epoch: rng.i16(),
                v3_and_below_topics: topics(rng),
                ..Default::default()
            }
        }
    }
}

impl PyShape for AddPartitionsToTxnResponse {
    const PY_NAME: &'static str = "AddPartitionsToTxnResponse";
    fn py_json(&self, v: Version) -> Value {
        if v >= 4 {
            json!({
                "throttle_time_ms": self.throttle_time_ms,
                "error_code": self.error_code,
                "results_by_transaction": self.results_by_transaction.iter().map(|r| json!({
                    "transactional_id": r.transactional_id.as_str(),
                    "topic_results": topic_results_json(&r.topic_results),
                })).collect::<Vec<_>>(),
            })
        } else {
            json!({
                "throttle_time_ms": self.throttle_time_ms,
                "results_by_topic_v3_and_below": topic_results_json(&self.results_by_topic_v3_and_below),
            })
        }
    }
    fn random(v: Version, rng: &mut Rng) -> Self {
        let results = |rng: &mut Rng| {
            rng.vec(3, |rng| AddPartitionsToTxnTopicResult {
                name: rng.string(),
                results_by_partition: rng.vec(3, |rng| AddPartitionsToTxnPartitionResult {
                    partition_index: rng.i32(),
                    partition_error_code: rng.i16(),
                    ..Default::default()
                }),
                ..Default::default()
            })
        };
        let mut r = AddPartitionsToTxnResponse {
            throttle_time_ms: rng.i32(),
            ..Default::default()
        };
        if v >= 4 {
            r.error_code = rng.i16();
            r.results_by_transaction = rng.vec(2, |rng| AddPartitionsToTxnResult {
                transactional_id: rng.string(),
                topic_results: results(rng),
                ..Default::default()
            });
        } else {
            r.results_by_topic_v3_and_below = results(rng);
        }
        r
    }
}

impl PyShape for TxnOffsetCommitRequest {
    const PY_NAME: &'static str = "TxnOffsetCommitRequest";
    fn py_json(&self, v: Version) -> Value {
        let mut j = json!({
            "transactional_id": self.transactional_id.as_str(),
            "group_id": self.group_id.as_str(),
            "producer_id": self.producer_id,
            "producer_epoch": self.producer_epoch,
            "topics": self.topics.iter().map(|t| json!({
                "name": t.name.as_str(),
                "partitions": t.partitions.iter().map(|p| {
                    let mut pj = json!({
                        "partition_index": p.partition_index,
                        "committed_offset": p.committed_offset,
                        "committed_metadata": p.committed_metadata.as_deref(),
                    });
                    if v >= 2 {
                        pj["committed_leader_epoch"] = json!(p.committed_leader_epoch);
                    }
                    pj
                }).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        });
        if v >= 3 {
            // kafka-python's schema still calls it GenerationId (Kafka renamed it
            // GenerationIdOrMemberEpoch without changing the wire).
            j["generation_id"] = json!(self.generation_id_or_member_epoch);
            j["member_id"] = json!(self.member_id.as_str());
            j["group_instance_id"] = json!(self.group_instance_id.as_deref());
        }
        j
    }
    fn random(v: Version, rng: &mut Rng) -> Self {
        let mut r = TxnOffsetCommitRequest {
            transactional_id: rng.string(),
            group_id: rng.string(),
            producer_id: rng.i64(),
            producer_epoch: rng.i16(),
            topics: rng.vec(3, |rng| TxnOffsetCommitRequestTopic {
                name: rng.string(),
                partitions: rng.vec(3, |rng| TxnOffsetCommitRequestPartition {
                    partition_index: rng.i32(),
                    committed_offset: rng.i64(),
                    committed_leader_epoch: if v >= 2 { rng.i32() } else { -1 },
                    committed_metadata: rng.nullable_string(),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        if v >= 3 {
            r.generation_id_or_member_epoch = rng.i32();
            r.member_id = rng.string();
            r.group_instance_id = rng.nullable_string();
        }
        r
    }
}

impl PyShape for TxnOffsetCommitResponse {
    const PY_NAME: &'static str = "TxnOffsetCommitResponse";
    fn py_json(&self, _v: Version) -> Value {
        json!({
            "throttle_time_ms": self.throttle_time_ms,
            "topics": self.topics.iter().map(|t| json!({
                "name": t.name.as_str(),
                "partitions": t.partitions.iter().map(|p| json!({
                    "partition_index": p.partition_index, "error_code": p.error_code,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
    fn random(_v: Version, rng: &mut Rng) -> Self {
        TxnOffsetCommitResponse {
            throttle_time_ms: rng.i32(),
            topics: rng.vec(3, |rng| TxnOffsetCommitResponseTopic {
                name: rng.string(),
                partitions: rng.vec(3, |rng| TxnOffsetCommitResponsePartition {
                    partition_index: rng.i32(),
                    error_code: rng.i16(),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }
}

/// xorshift64*: deterministic values, with the edges (min, max, 0, -1) often.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn edge_or(&mut self, min: i64, max: i64, any: i64) -> i64 {
        match self.below(6) {
            0 => min,
            1 => max,
            2 => 0,
            3 => -1,
            _ => any,
        }
    }
    fn i16(&mut self) -> i16 {
        let any = self.next() as i16;
        self.edge_or(i16::MIN.into(), i16::MAX.into(), any.into()) as i16
    }
    fn i32(&mut self) -> i32 {
        let any = self.next() as i32;
        self.edge_or(i32::MIN.into(), i32::MAX.into(), any.into()) as i32
    }
    fn i64(&mut self) -> i64 {
        let any = self.next() as i64;
        self.edge_or(i64::MIN, i64::MAX, any)
    }
    fn bool(&mut self) -> bool {
        self.below(2) == 1
    }
    fn string(&mut self) -> Str {
        const ALPHABET: [&str; 12] = ["a", "b", "z", "-", "_", ".", "0", " ", "é", "ß", "漢", "🦀"];
        let n = self.below(13);
        (0..n)
            .map(|_| ALPHABET[self.below(ALPHABET.len() as u64) as usize])
            .collect::<String>()
            .into()
    }
    fn nullable_string(&mut self) -> Option<Str> {
        (self.below(4) != 0).then(|| self.string())
    }
    fn vec<T>(&mut self, max: u64, mut f: impl FnMut(&mut Rng) -> T) -> Vec<T> {
        let n = self.below(max + 1);
        (0..n).map(|_| f(self)).collect()
    }
}

/// The versions both kafka-python and we have.
fn common_versions<M: PyShape>(peer: &mut Peer) -> std::ops::RangeInclusive<Version> {
    let theirs = peer.ask(json!({"op": "versions", "api": M::PY_NAME}));
    let ours = M::META.versions;
    let min = ours
        .min()
        .unwrap()
        .max(theirs["min"].as_i64().unwrap() as i16);
    let max = ours
        .max()
        .unwrap()
        .min(theirs["max"].as_i64().unwrap() as i16);
    min..=max
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Bytes {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect::<Vec<u8>>()
        .into()
}

/// kafka-python encodes, we decode (same values) and re-encode (same bytes).
fn theirs_to_ours<M: PyShape>(peer: &mut Peer) -> usize {
    let mut n = 0;
    for v in common_versions::<M>(peer) {
        for seed in 0..SAMPLES_PER_VERSION {
            let g =
                peer.ask(json!({"op": "generate", "api": M::PY_NAME, "version": v, "seed": seed}));
            let wire = unhex(g["hex"].as_str().unwrap());
            let what = format!("{} v{v} seed {seed}: {}", M::PY_NAME, hex(&wire));
            let corr = g["correlation_id"].as_i64().unwrap() as i32;
            let mut again = Vec::new();
            let body = match M::KIND {
                kafka_wire::ApiKind::Request => {
                    let (h, body) = frame::decode_request::<M>(&wire, &DecodeOptions::DEFAULT)
                        .unwrap_or_else(|e| panic!("{what}: {e}"))
                        .frame;
                    assert_eq!(h.correlation_id, corr, "{what}");
                    assert_eq!(h.request_api_version, v, "{what}");
                    assert_eq!(
                        h.client_id.as_deref(),
                        g["client_id"].as_str(),
                        "{what}: client id"
                    );
                    frame::encode_request(&mut again, &h, &body).unwrap();
                    body
                }
                _ => {
                    let (h, body) = frame::decode_response::<M>(&wire, v, &DecodeOptions::DEFAULT)
                        .unwrap_or_else(|e| panic!("{what}: {e}"))
                        .frame;
                    assert_eq!(h.correlation_id, corr, "{what}");
                    frame::encode_response(&mut again, &h, v, &body).unwrap();
                    body
                }
            };
            assert_eq!(body.py_json(v), g["values"], "{what}: values");
            assert_eq!(hex(&again), hex(&wire), "{what}: re-encoded bytes");
            n += 1;
        }
    }
    n
}

/// We encode, kafka-python decodes (same values, and it re-encodes to our bytes).
fn ours_to_theirs<M: PyShape>(peer: &mut Peer) -> usize {
    let mut n = 0;
    for v in common_versions::<M>(peer) {
        for seed in 0..SAMPLES_PER_VERSION {
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (seed + 1) ^ (u64::from(v as u16) << 32));
            let body = M::random(v, &mut rng);
            let corr = rng.i32();
            let client_id = rng.nullable_string();
            let mut wire = Vec::new();
            match M::KIND {
                kafka_wire::ApiKind::Request => frame::encode_request(
                    &mut wire,
                    &RequestHeader::new(M::API_KEY, v, corr, client_id.clone()),
                    &body,
                ),
                _ => frame::encode_response(&mut wire, &ResponseHeader::new(corr), v, &body),
            }
            .unwrap();
            let what = format!("{} v{v} seed {seed}: {}", M::PY_NAME, hex(&wire));
            let d = peer
                .ask(json!({"op": "decode", "api": M::PY_NAME, "version": v, "hex": hex(&wire)}));
            assert_eq!(d["values"], body.py_json(v), "{what}: values");
            assert_eq!(
                d["correlation_id"].as_i64(),
                Some(i64::from(corr)),
                "{what}"
            );
            if M::KIND == kafka_wire::ApiKind::Request {
                assert_eq!(d["client_id"].as_str(), client_id.as_deref(), "{what}");
            }
            assert_eq!(
                d["reencoded_equal"],
                json!(true),
                "{what}: kafka-python re-encodes differently"
            );
            n += 1;
        }
    }
    n
}

#[cfg_attr(
    kw_no_kafka_python,
    ignore = "kafka-python venv missing (run interop/setup.sh)"
)]
#[test]
fn kafka_python_frames_decode_and_reencode_byte_exact() {
    let Some(mut peer) = Peer::start() else {
        return;
    };
    let n = theirs_to_ours::<AddPartitionsToTxnRequest>(&mut peer)
        + theirs_to_ours::<AddPartitionsToTxnResponse>(&mut peer)
        + theirs_to_ours::<TxnOffsetCommitRequest>(&mut peer)
        + theirs_to_ours::<TxnOffsetCommitResponse>(&mut peer);
    println!("kafka-python -> kafka-wire: {n} frames");
    // Versions 0-5 of both APIs on both sides: 4 messages x 6 versions.
    assert_eq!(n as u64, 4 * 6 * SAMPLES_PER_VERSION);
}

#[cfg_attr(
    kw_no_kafka_python,
    ignore = "kafka-python venv missing (run interop/setup.sh)"
)]
#[test]
fn our_frames_decode_in_kafka_python() {
    let Some(mut peer) = Peer::start() else {
        return;
    };
    let n = ours_to_theirs::<AddPartitionsToTxnRequest>(&mut peer)
        + ours_to_theirs::<AddPartitionsToTxnResponse>(&mut peer)
        + ours_to_theirs::<TxnOffsetCommitRequest>(&mut peer)
        + ours_to_theirs::<TxnOffsetCommitResponse>(&mut peer);
    println!("kafka-wire -> kafka-python: {n} frames");
    assert_eq!(n as u64, 4 * 6 * SAMPLES_PER_VERSION);
}

// ---- every API both declare, generically -------------------------------------------------
//
// The messages are our dispatch's (`ApiKey::ALL`, so APIs are covered as they are declared)
// that kafka-python also has, at every version both have. Values: kafka-python's own random
// values (its generator, its encoder) one way; ours from `kafka_wire_tests::gen` the other.

/// Generated frames per message version and direction.
const GENERIC_SEEDS: u64 = 8;

/// Fields whose JSON name differs between kafka-python's schema copy and ours, with the same
/// wire meaning: (struct, our name, kafka-python's name, why).
const PY_RENAMES: &[(&str, &str, &str, &str)] = &[
    (
        "TxnOffsetCommitRequest",
        "GenerationIdOrMemberEpoch",
        "GenerationId",
        "KIP-848 renamed the field; the wire is the same int32",
    ),
    (
        "MetadataResponse",
        "ClusterAuthorizedOperations",
        "authorized_operations",
        "kafka-python patches the int32 into a set of bit numbers under this name",
    ),
    (
        "MetadataResponseTopic",
        "TopicAuthorizedOperations",
        "authorized_operations",
        "kafka-python patches the int32 into a set of bit numbers under this name",
    ),
    (
        "DescribeClusterResponse",
        "ClusterAuthorizedOperations",
        "authorized_operations",
        "kafka-python patches the int32 into a set of bit numbers under this name",
    ),
];

/// Where kafka-python reads differently from Kafka's Java code on purpose: (API key, kind,
/// from version, int16 field that triggers it, why). Half of our generated values set the
/// field to 0 so everything else is compared; the other half must still show the difference
/// (so the entry cannot go stale).
const PY_DIVERGENCES: &[(i16, kafka_wire::ApiKind, Version, &str, &str)] = &[(
    18,
    kafka_wire::ApiKind::Response,
    1,
    "ErrorCode",
    "kafka-python reads an ApiVersions response with a non-zero error code as v0 whatever the \
     version asked (its KIP-511 fallback); Java's ApiVersionsResponse.parse falls back to v0 \
     only when reading at the asked version fails, and so do we",
)];

/// What kafka-python 3.0.12 cannot carry, so our generated values leave it out (every other
/// field is compared): unknown tagged fields (its decoder keeps them as `_N` attributes, its
/// encoder drops them) and tagged fields inside the value of a tagged field (it writes that
/// value's own tagged sections empty).
fn py_options(seed: u64) -> kafka_wire_tests::gen::Options {
    kafka_wire_tests::gen::Options {
        unknown_tagged: false,
        tagged_in_tagged: false,
        ..kafka_wire_tests::gen::Options::for_seed(seed)
    }
}

/// The messages and versions kafka-python declares: (class name, key, kind) -> (min, max).
fn py_apis(peer: &mut Peer) -> Vec<(String, i16, kafka_wire::ApiKind, Version, Version)> {
    let list = peer.ask(json!({"op": "list"}));
    list["apis"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let kind = match a["kind"].as_str().unwrap() {
                "request" => kafka_wire::ApiKind::Request,
                _ => kafka_wire::ApiKind::Response,
            };
            (
                a["name"].as_str().unwrap().to_owned(),
                a["key"].as_i64().unwrap() as i16,
                kind,
                a["min"].as_i64().unwrap() as Version,
                a["max"].as_i64().unwrap() as Version,
            )
        })
        .collect()
}

/// Compares our decoded struct with kafka-python's values (keyed by JSON name); the first
/// difference, by path.
fn compare_struct(
    ours: &kafka_wire::dynamic::StructValue,
    theirs: &Value,
    v: Version,
    path: &str,
) -> Result<(), String> {
    for (f, val) in ours.meta.fields.iter().zip(&ours.fields) {
        if !f.versions.contains(v) {
            continue;
        }
        let here = format!("{path}.{}", f.name);
        let py_name = PY_RENAMES
            .iter()
            .find(|r| r.0 == ours.meta.name && r.1 == f.name)
            .map_or(f.name, |r| r.2);
        let Some(t) = theirs.get(py_name) else {
            return Err(format!("{here}: kafka-python has no such field"));
        };
        compare_value(&f.ty, val, t, v, &here)?;
    }
    Ok(())
}

fn compare_value(
    ty: &kafka_wire::KafkaType,
    ours: &kafka_wire::dynamic::Value,
    theirs: &Value,
    v: Version,
    path: &str,
) -> Result<(), String> {
    use kafka_wire::dynamic::{StructValue, Value as D};
    let same = match (ours, theirs) {
        (D::Null, Value::Null) => true,
        // kafka-python's default for a uuid without a declared default, and for a tagged
        // struct, is None; on the wire both are the zero uuid / an absent tag, as ours.
        (D::Uuid(u), Value::Null) => *u == kafka_wire::Uuid::ZERO,
        (D::Struct(s), Value::Null) => *s == StructValue::default_of(s.meta),
        (D::Bool(x), t) => t.as_bool() == Some(*x),
        (D::Int8(x), t) => t.as_i64() == Some(i64::from(*x)),
        (D::Int16(x), t) => t.as_i64() == Some(i64::from(*x)),
        (D::Uint16(x), t) => t.as_i64() == Some(i64::from(*x)),
        (D::Int32(x), t) => t.as_i64() == Some(i64::from(*x)),
        (D::Uint32(x), t) => t.as_i64() == Some(i64::from(*x)),
        (D::Int64(x), t) => t.as_i64() == Some(*x),
        (D::Float64(x), t) => t.as_f64().map(f64::to_bits) == Some(x.to_bits()),
        (D::String(s), t) => t.as_str() == Some(s.as_str()),
        (D::Bytes(b), t) | (D::Records(b), t) => t.as_str() == Some(hex(b).as_str()),
        (D::Uuid(u), t) => t.as_str() == Some(format!("{:032x}", u.as_u128()).as_str()),
        (D::Array(items), Value::Array(ts)) => {
            if items.len() != ts.len() {
                return Err(format!(
                    "{path}: {} elements, kafka-python {}",
                    items.len(),
                    ts.len()
                ));
            }
            let el = ty.element().unwrap_or(ty);
            for (i, (a, b)) in items.iter().zip(ts).enumerate() {
                compare_value(el, a, b, v, &format!("{path}[{i}]"))?;
            }
            true
        }
        (D::Struct(s), t @ Value::Object(_)) => {
            compare_struct(s, t, v, path)?;
            true
        }
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(format!("{path}: ours {ours:?}, kafka-python {theirs}"))
    }
}

/// Our dynamic decode of a whole frame, for comparing values.
fn decode_dynamic(case: Case, wire: &Bytes) -> kafka_wire::dynamic::Frame {
    use kafka_wire::dynamic;
    match case.kind {
        kafka_wire::ApiKind::Request => dynamic::decode_request_frame(
            wire,
            |k| ApiKey::from_i16(k).map(|a| a.request_meta()),
            None,
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame),
        kafka_wire::ApiKind::Response => dynamic::decode_response_frame(
            wire,
            dynamic::BodySpec {
                api_key: case.api.key(),
                meta: case.meta(),
                version: case.version,
            },
            None,
            &DecodeOptions::DEFAULT,
        )
        .map(|d| d.frame),
    }
    .unwrap_or_else(|e| panic!("{case}: {e}"))
}

/// Our typed codec on a whole frame: decode (checking the header against kafka-python's) and
/// encode again.
fn typed_reencode(case: Case, wire: &Bytes, g: &Value, what: &str) -> Vec<u8> {
    let corr = g["correlation_id"].as_i64().unwrap() as i32;
    match case.kind {
        kafka_wire::ApiKind::Request => {
            let f = RequestFrame::decode(wire, &DecodeOptions::DEFAULT)
                .unwrap_or_else(|e| panic!("{what}: {e}"))
                .frame;
            assert_eq!(f.api_key(), case.api, "{what}");
            assert_eq!(f.version(), case.version, "{what}");
            assert_eq!(f.header.correlation_id, corr, "{what}");
            assert_eq!(
                f.header.client_id.as_deref(),
                g["client_id"].as_str(),
                "{what}: client id"
            );
            f.to_vec().unwrap()
        }
        kafka_wire::ApiKind::Response => {
            let f = ResponseFrame::decode(wire, case.api, case.version, &DecodeOptions::DEFAULT)
                .unwrap_or_else(|e| panic!("{what}: {e}"))
                .frame;
            assert_eq!(f.header.correlation_id, corr, "{what}");
            f.to_vec().unwrap()
        }
    }
}

use kafka_wire_tests::cases::{all_cases, generated_frame, Case};

#[cfg_attr(
    kw_no_kafka_python,
    ignore = "kafka-python venv missing (run interop/setup.sh)"
)]
#[test]
fn every_shared_api_and_version_both_ways() {
    let Some(mut peer) = Peer::start() else {
        return;
    };
    let theirs = py_apis(&mut peer);
    let (mut from_them, mut from_us, mut known) = (0, 0, 0);
    let mut compared = std::collections::BTreeSet::new();
    let mut versions = 0;
    for case in all_cases() {
        let Some((name, ..)) = theirs.iter().find(|(_, key, kind, min, max)| {
            *key == case.api.key() && *kind == case.kind && (*min..=*max).contains(&case.version)
        }) else {
            continue;
        };
        compared.insert(case.api.name());
        versions += 1;
        let v = case.version;
        for seed in 0..GENERIC_SEEDS {
            // kafka-python's values and encoding -> our typed codec, byte-exact; same values.
            let g = peer.ask(json!({"op": "gen_frame", "api": name, "version": v, "seed": seed}));
            let wire = unhex(g["hex"].as_str().unwrap());
            let what = format!("{case} kafka-python seed {seed}: {}", hex(&wire));
            let again = typed_reencode(case, &wire, &g, &what);
            assert_eq!(hex(&again), hex(&wire), "{what}: our re-encode differs");
            let ours = decode_dynamic(case, &wire);
            compare_struct(&ours.body, &g["values"], v, name)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            from_them += 1;

            // Our values and encoding -> kafka-python: same values, same bytes again.
            let mut gen = kafka_wire_tests::gen::Generator::with_options(seed, py_options(seed));
            let mut frame = generated_frame(case, &mut gen);
            let divergence = PY_DIVERGENCES
                .iter()
                .find(|d| d.0 == case.api.key() && d.1 == case.kind && v >= d.2);
            let mut expect_divergence = false;
            if let Some(d) = divergence {
                let field = frame.body.get_mut(d.3).expect("divergence field");
                if seed % 2 == 0 {
                    *field = kafka_wire::dynamic::Value::Int16(0);
                } else {
                    expect_divergence = *field != kafka_wire::dynamic::Value::Int16(0);
                }
            }
            let wire = kafka_wire::dynamic::encode_frame(&frame).unwrap();
            let what = format!("{case} our seed {seed}: {}", hex(&wire));
            let request =
                json!({"op": "decode_frame", "api": name, "version": v, "hex": hex(&wire)});
            if expect_divergence {
                // Read as v0, the frame either fails or re-encodes to other bytes.
                let d = peer.ask_any(request);
                assert_ne!(
                    d["reencoded_hex"].as_str(),
                    Some(hex(&wire).as_str()),
                    "{what}: listed divergence no longer shows; remove it from PY_DIVERGENCES"
                );
                known += 1;
                continue;
            }
            let d = peer.ask(request);
            assert_eq!(
                d["reencoded_hex"].as_str().unwrap(),
                hex(&wire),
                "{what}: kafka-python re-encodes differently"
            );
            compare_struct(&frame.body, &d["values"], v, name)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            from_us += 1;
        }
    }
    println!(
        "kafka-python: {} APIs ({}), {versions} message versions; {from_them} frames from kafka-python, {from_us} to it, {known} showing a listed divergence",
        compared.len(),
        compared.into_iter().collect::<Vec<_>>().join(", ")
    );
    assert!(from_them > 0 && from_us > 0, "nothing compared");
}

// ---- the consumer protocol payloads, version-prefixed ----------------------------------

/// kafka-python's values and bytes of `M` through ours and back, and ours through
/// kafka-python; returns (from kafka-python, to kafka-python) counts.
fn data_both_ways<M: kafka_wire::KafkaMessage + PartialEq + std::fmt::Debug>(
    peer: &mut Peer,
) -> (usize, usize) {
    use kafka_wire_messages::{decode_version_prefixed, encode_version_prefixed};
    let name = M::META.name;
    let (mut from_them, mut from_us) = (0, 0);
    for v in M::META.versions.iter() {
        for seed in 0..GENERIC_SEEDS {
            let g = peer.ask(json!({"op": "gen_data", "api": name, "version": v, "seed": seed}));
            let wire = unhex(g["hex"].as_str().unwrap());
            let what = format!("{name} v{v} kafka-python seed {seed}: {}", hex(&wire));
            let (ver, typed) =
                decode_version_prefixed::<M>(&wire).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(ver, v, "{what}");
            let again = encode_version_prefixed(&typed, ver).unwrap();
            assert_eq!(hex(&again), hex(&wire), "{what}: our re-encode differs");
            let body = kafka_wire::dynamic::decode(M::META, &wire.slice(2..), v)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            compare_struct(&body, &g["values"], v, name).unwrap_or_else(|e| panic!("{what}: {e}"));
            from_them += 1;

            let mut gen = kafka_wire_tests::gen::Generator::with_options(seed, py_options(seed));
            let value = gen.struct_value(M::META, v);
            let mut wire = (v as u16).to_be_bytes().to_vec();
            wire.extend(kafka_wire::dynamic::encode(&value, v).unwrap());
            let what = format!("{name} v{v} our seed {seed}: {}", hex(&wire));
            let d = peer.ask(json!({"op": "decode_data", "api": name, "hex": hex(&wire)}));
            assert_eq!(d["version"].as_i64(), Some(i64::from(v)), "{what}");
            assert_eq!(
                d["reencoded_hex"].as_str().unwrap(),
                hex(&wire),
                "{what}: kafka-python re-encodes differently"
            );
            compare_struct(&value, &d["values"], v, name).unwrap_or_else(|e| panic!("{what}: {e}"));
            from_us += 1;
        }
    }
    (from_them, from_us)
}

#[test]
fn consumer_protocol_payloads_both_ways() {
    let Some(mut peer) = Peer::start() else {
        return;
    };
    let (a, b) = data_both_ways::<ConsumerProtocolSubscription>(&mut peer);
    let (c, d) = data_both_ways::<ConsumerProtocolAssignment>(&mut peer);
    println!(
        "kafka-python consumer protocol payloads: {} from kafka-python, {} to it",
        a + c,
        b + d
    );
}
