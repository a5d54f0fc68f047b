//! Property tests with a fixed seed and bounded case counts (part of the normal suite):
//! random values of every declared message round-trip at every version, through the body
//! codecs and whole frames; random bytes never panic any decoder entry point, and whatever
//! they decode to re-encodes to the same bytes.
//!
//! Generators set only the fields a version has (the others keep their defaults), so
//! decode(encode(x)) == x exactly.

mod hostile_support;

use std::fmt::Debug;

use bytes::Bytes;
use hostile_support::*;
use kafka_wire::{
    Cx, Field, KafkaMessage, Reader, Records, Str, UnknownTaggedFields, Uuid, Version,
};
use kafka_wire_messages::*;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        rng_seed: RngSeed::Fixed(0x6b61_666b_6177_6972),
        failure_persistence: None,
        ..Config::default()
    })
}

// ---- value generators -------------------------------------------------------------------

fn st() -> impl Strategy<Value = Str> {
    vec(any::<char>(), 0..6).prop_map(|c| Str::from(c.into_iter().collect::<String>()))
}

fn opt_st() -> impl Strategy<Value = Option<Str>> {
    option::of(st())
}

fn uuid() -> impl Strategy<Value = Uuid> {
    any::<u128>().prop_map(Uuid::from_u128)
}

/// Up to three unknown tagged fields with strictly ascending tags from `first`, in flexible
/// versions only.
fn unknown(v: Version, flex: Version, first: u32) -> BoxedStrategy<UnknownTaggedFields> {
    if v < flex {
        return Just(UnknownTaggedFields::new()).boxed();
    }
    vec((1u32..300, vec(any::<u8>(), 0..5)), 0..3)
        .prop_map(move |fields| {
            let mut u = UnknownTaggedFields::new();
            let mut tag = first;
            for (step, data) in fields {
                u.push(tag + step - 1, Bytes::from(data));
                tag += step;
            }
            u
        })
        .boxed()
}

fn apt_topic(v: Version) -> impl Strategy<Value = AddPartitionsToTxnTopic> {
    (st(), vec(any::<i32>(), 0..3), unknown(v, 3, 0)).prop_map(|(name, partitions, u)| {
        AddPartitionsToTxnTopic {
            name,
            partitions: partitions.into(),
            unknown_tagged_fields: u,
        }
    })
}

fn apt_request(v: Version) -> impl Strategy<Value = AddPartitionsToTxnRequest> {
    let txn = (
        st(),
        any::<i64>(),
        any::<i16>(),
        any::<bool>(),
        vec(apt_topic(v), 0..3),
        unknown(v, 3, 0),
    )
        .prop_map(
            |(id, pid, epoch, verify, topics, u)| AddPartitionsToTxnTransaction {
                transactional_id: id,
                producer_id: pid,
                producer_epoch: epoch,
                verify_only: verify,
                topics,
                unknown_tagged_fields: u,
            },
        );
    (
        vec(txn, 0..3),
        st(),
        any::<i64>(),
        any::<i16>(),
        vec(apt_topic(v), 0..3),
        unknown(v, 3, 0),
    )
        .prop_map(move |(txns, id, pid, epoch, topics, u)| {
            let mut m = AddPartitionsToTxnRequest {
                unknown_tagged_fields: u,
                ..Default::default()
            };
            if v >= 4 {
                m.transactions = txns;
            } else {
                m.v3_and_below_transactional_id = id;
                m.v3_and_below_producer_id = pid;
                m.v3_and_below_producer_epoch = epoch;
                m.v3_and_below_topics = topics;
            }
            m
        })
}

fn apt_topic_result(v: Version) -> impl Strategy<Value = AddPartitionsToTxnTopicResult> {
    let part = (any::<i32>(), any::<i16>(), unknown(v, 3, 0)).prop_map(|(p, e, u)| {
        AddPartitionsToTxnPartitionResult {
            partition_index: p,
            partition_error_code: e,
            unknown_tagged_fields: u,
        }
    });
    (st(), vec(part, 0..3), unknown(v, 3, 0)).prop_map(|(name, parts, u)| {
        AddPartitionsToTxnTopicResult {
            name,
            results_by_partition: parts,
            unknown_tagged_fields: u,
        }
    })
}

fn apt_response(v: Version) -> impl Strategy<Value = AddPartitionsToTxnResponse> {
    let result =
        (st(), vec(apt_topic_result(v), 0..3), unknown(v, 3, 0)).prop_map(|(id, topics, u)| {
            AddPartitionsToTxnResult {
                transactional_id: id,
                topic_results: topics,
                unknown_tagged_fields: u,
            }
        });
    (
        any::<i32>(),
        any::<i16>(),
        vec(result, 0..3),
        vec(apt_topic_result(v), 0..3),
        unknown(v, 3, 0),
    )
        .prop_map(move |(throttle, err, results, topics, u)| {
            let mut m = AddPartitionsToTxnResponse {
                throttle_time_ms: throttle,
                unknown_tagged_fields: u,
                ..Default::default()
            };
            if v >= 4 {
                m.error_code = err;
                m.results_by_transaction = results;
            } else {
                m.results_by_topic_v3_and_below = topics;
            }
            m
        })
}

fn toc_request(v: Version) -> impl Strategy<Value = TxnOffsetCommitRequest> {
    let part = (
        any::<i32>(),
        any::<i64>(),
        any::<i32>(),
        opt_st(),
        unknown(v, 3, 0),
    )
        .prop_map(
            move |(p, off, epoch, meta, u)| TxnOffsetCommitRequestPartition {
                partition_index: p,
                committed_offset: off,
                committed_leader_epoch: if v >= 2 { epoch } else { -1 },
                committed_metadata: meta,
                unknown_tagged_fields: u,
            },
        );
    let topic = (st(), uuid(), vec(part, 0..3), unknown(v, 3, 0)).prop_map(
        move |(name, id, partitions, u)| TxnOffsetCommitRequestTopic {
            name: if v <= 5 { name } else { Str::new() },
            topic_id: if v >= 6 { id } else { Uuid::ZERO },
            partitions,
            unknown_tagged_fields: u,
        },
    );
    (
        (st(), st(), any::<i64>(), any::<i16>()),
        (any::<i32>(), st(), opt_st()),
        vec(topic, 0..3),
        unknown(v, 3, 0),
    )
        .prop_map(
            move |((tid, gid, pid, epoch), (gen, member, inst), topics, u)| {
                let mut m = TxnOffsetCommitRequest {
                    transactional_id: tid,
                    group_id: gid,
                    producer_id: pid,
                    producer_epoch: epoch,
                    topics,
                    unknown_tagged_fields: u,
                    ..Default::default()
                };
                if v >= 3 {
                    m.generation_id_or_member_epoch = gen;
                    m.member_id = member;
                    m.group_instance_id = inst;
                }
                m
            },
        )
}

fn toc_response(v: Version) -> impl Strategy<Value = TxnOffsetCommitResponse> {
    let part = (any::<i32>(), any::<i16>(), unknown(v, 3, 0)).prop_map(|(p, e, u)| {
        TxnOffsetCommitResponsePartition {
            partition_index: p,
            error_code: e,
            unknown_tagged_fields: u,
        }
    });
    let topic = (st(), uuid(), vec(part, 0..3), unknown(v, 3, 0)).prop_map(
        move |(name, id, partitions, u)| TxnOffsetCommitResponseTopic {
            name: if v <= 5 { name } else { Str::new() },
            topic_id: if v >= 6 { id } else { Uuid::ZERO },
            partitions,
            unknown_tagged_fields: u,
        },
    );
    (any::<i32>(), vec(topic, 0..3), unknown(v, 3, 0)).prop_map(|(throttle, topics, u)| {
        TxnOffsetCommitResponse {
            throttle_time_ms: throttle,
            topics,
            unknown_tagged_fields: u,
        }
    })
}

fn isgs_request(v: Version) -> impl Strategy<Value = InitializeShareGroupStateRequest> {
    let part = (any::<i32>(), any::<i32>(), any::<i64>(), unknown(v, 0, 0)).prop_map(
        |(p, epoch, start, u)| PartitionData {
            partition: p,
            state_epoch: epoch,
            start_offset: start,
            unknown_tagged_fields: u,
        },
    );
    let topic = (uuid(), vec(part, 0..3), unknown(v, 0, 0)).prop_map(|(id, partitions, u)| {
        InitializeStateData {
            topic_id: id,
            partitions,
            unknown_tagged_fields: u,
        }
    });
    (st(), vec(topic, 0..3), unknown(v, 0, 0)).prop_map(|(group_id, topics, u)| {
        InitializeShareGroupStateRequest {
            group_id,
            topics,
            unknown_tagged_fields: u,
        }
    })
}

fn isgs_response(v: Version) -> impl Strategy<Value = InitializeShareGroupStateResponse> {
    let part =
        (any::<i32>(), any::<i16>(), opt_st(), unknown(v, 0, 0)).prop_map(|(p, e, msg, u)| {
            PartitionResult {
                partition: p,
                error_code: e,
                error_message: msg,
                unknown_tagged_fields: u,
            }
        });
    let result = (uuid(), vec(part, 0..3), unknown(v, 0, 0)).prop_map(|(id, partitions, u)| {
        InitializeStateResult {
            topic_id: id,
            partitions,
            unknown_tagged_fields: u,
        }
    });
    (vec(result, 0..3), unknown(v, 0, 0)).prop_map(|(results, u)| {
        InitializeShareGroupStateResponse {
            results,
            unknown_tagged_fields: u,
        }
    })
}

fn av_request(v: Version) -> impl Strategy<Value = ApiVersionsRequest> {
    (st(), st(), opt_st(), any::<i32>(), unknown(v, 3, 0)).prop_map(
        move |(name, version, cluster, node, u)| {
            let mut m = ApiVersionsRequest {
                unknown_tagged_fields: u,
                ..Default::default()
            };
            if v >= 3 {
                m.client_software_name = name;
                m.client_software_version = version;
            }
            if v >= 5 {
                m.cluster_id = cluster;
                m.node_id = node;
            }
            m
        },
    )
}

fn av_response(v: Version) -> impl Strategy<Value = ApiVersionsResponse> {
    let key = (any::<i16>(), any::<i16>(), any::<i16>(), unknown(v, 3, 0)).prop_map(
        |(k, min, max, u)| ApiVersion {
            api_key: k,
            min_version: min,
            max_version: max,
            unknown_tagged_fields: u,
        },
    );
    let supported =
        (st(), any::<i16>(), any::<i16>(), unknown(v, 3, 0)).prop_map(|(name, min, max, u)| {
            SupportedFeatureKey {
                name,
                min_version: min,
                max_version: max,
                unknown_tagged_fields: u,
            }
        });
    let finalized =
        (st(), any::<i16>(), any::<i16>(), unknown(v, 3, 0)).prop_map(|(name, max, min, u)| {
            FinalizedFeatureKey {
                name,
                max_version_level: max,
                min_version_level: min,
                unknown_tagged_fields: u,
            }
        });
    (
        (any::<i16>(), vec(key, 0..3), any::<i32>()),
        (
            vec(supported, 0..2),
            any::<i64>(),
            vec(finalized, 0..2),
            any::<bool>(),
        ),
        // Declared tags are 0-3: unknown ones start at 4.
        unknown(v, 3, 4),
    )
        .prop_map(move |((err, keys, throttle), (sup, epoch, fin, zk), u)| {
            let mut m = ApiVersionsResponse {
                error_code: err,
                api_keys: keys,
                unknown_tagged_fields: u,
                ..Default::default()
            };
            if v >= 1 {
                m.throttle_time_ms = throttle;
            }
            if v >= 3 {
                m.supported_features = sup;
                m.finalized_features_epoch = epoch;
                m.finalized_features = fin;
                m.zk_migration_ready = zk;
            }
            m
        })
}

// ---- round trips ------------------------------------------------------------------------

/// encode ⇒ exact size ⇒ decode equal ⇒ re-encode identical, for `cases` values at `v`.
fn round_trips<M, S>(v: Version, cases: u32, strategy: S)
where
    M: KafkaMessage + PartialEq + Debug,
    S: Strategy<Value = M>,
{
    runner(cases)
        .run(&strategy, |m| {
            let bytes = m
                .encode_to_vec(v)
                .map_err(|e| TestCaseError::fail(format!("{} v{v}: {e}", M::META.name)))?;
            prop_assert_eq!(bytes.len(), m.encoded_size(v));
            let back = check_body::<M>(v, &bytes)
                .map_err(|e| TestCaseError::fail(format!("{} v{v}: {e}", M::META.name)))?;
            prop_assert_eq!(back, m);
            Ok(())
        })
        .unwrap();
}

const CASES: u32 = 96;

#[test]
fn add_partitions_to_txn_values_round_trip() {
    for v in ApiKey::AddPartitionsToTxn.request_versions().iter() {
        round_trips(v, CASES, apt_request(v));
    }
    for v in ApiKey::AddPartitionsToTxn.response_versions().iter() {
        round_trips(v, CASES, apt_response(v));
    }
}

#[test]
fn txn_offset_commit_values_round_trip() {
    for v in ApiKey::TxnOffsetCommit.request_versions().iter() {
        round_trips(v, CASES, toc_request(v));
    }
    for v in ApiKey::TxnOffsetCommit.response_versions().iter() {
        round_trips(v, CASES, toc_response(v));
    }
}

#[test]
fn initialize_share_group_state_values_round_trip() {
    round_trips(0, 4 * CASES, isgs_request(0));
    round_trips(0, 4 * CASES, isgs_response(0));
}

#[test]
fn api_versions_values_round_trip() {
    for v in ApiKey::ApiVersions.request_versions().iter() {
        round_trips(v, CASES, av_request(v));
    }
    for v in ApiKey::ApiVersions.response_versions().iter() {
        round_trips(v, CASES, av_response(v));
    }
}

fn any_request_body(api: ApiKey, v: Version) -> BoxedStrategy<RequestBody> {
    match api {
        ApiKey::ApiVersions => av_request(v).prop_map(RequestBody::from).boxed(),
        ApiKey::AddPartitionsToTxn => apt_request(v).prop_map(RequestBody::from).boxed(),
        ApiKey::TxnOffsetCommit => toc_request(v).prop_map(RequestBody::from).boxed(),
        ApiKey::InitializeShareGroupState => isgs_request(v).prop_map(RequestBody::from).boxed(),
        _ => unreachable!("{api} is not one of HAND_BUILT"),
    }
}

fn any_response_body(api: ApiKey, v: Version) -> BoxedStrategy<ResponseBody> {
    match api {
        ApiKey::ApiVersions => av_response(v).prop_map(ResponseBody::from).boxed(),
        ApiKey::AddPartitionsToTxn => apt_response(v).prop_map(ResponseBody::from).boxed(),
        ApiKey::TxnOffsetCommit => toc_response(v).prop_map(ResponseBody::from).boxed(),
        ApiKey::InitializeShareGroupState => isgs_response(v).prop_map(ResponseBody::from).boxed(),
        _ => unreachable!("{api} is not one of HAND_BUILT"),
    }
}

#[test]
fn whole_frames_round_trip_through_dispatch() {
    for api in HAND_BUILT {
        for v in api.request_versions().iter() {
            let hv = api.request_header_version(v);
            let s = (
                any::<i32>(),
                opt_st(),
                unknown(hv, 2, 0),
                any_request_body(api, v),
            );
            runner(32)
                .run(&s, |(corr, client, u, body)| {
                    let mut f = RequestFrame::new(corr, client, v, body);
                    f.header.unknown_tagged_fields = u;
                    let bytes = f.to_vec().map_err(|e| TestCaseError::fail(e.to_string()))?;
                    let back = check_request_frame(&bytes)
                        .map_err(|e| TestCaseError::fail(format!("{api} v{v}: {e}")))?;
                    prop_assert_eq!(back, f);
                    Ok(())
                })
                .unwrap();
        }
        for v in api.response_versions().iter() {
            let hv = api.response_header_version(v);
            let s = (any::<i32>(), unknown(hv, 1, 0), any_response_body(api, v));
            runner(32)
                .run(&s, |(corr, u, body)| {
                    let mut f = ResponseFrame::new(corr, v, body);
                    f.header.unknown_tagged_fields = u;
                    let bytes = f.to_vec().map_err(|e| TestCaseError::fail(e.to_string()))?;
                    let back = check_response_frame(api, v, &bytes)
                        .map_err(|e| TestCaseError::fail(format!("{api} v{v}: {e}")))?;
                    prop_assert_eq!(back, f);
                    Ok(())
                })
                .unwrap();
        }
    }
}

// ---- random bytes never panic -----------------------------------------------------------

/// Random bytes: short ones, and mostly-small bytes that look like lengths and counts.
fn junk() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![vec(any::<u8>(), 0..48), vec(0u8..4, 0..96)]
}

#[test]
fn random_bytes_never_panic_body_and_header_decoders() {
    let s = (-1i16..8, junk());
    runner(8000)
        .run(&s, |(v, bytes)| {
            for api in HAND_BUILT {
                let _ = check_api_body(api, true, v, &bytes);
                let _ = check_api_body(api, false, v, &bytes);
            }
            let _ = check_request_header(v, &bytes);
            let _ = check_response_header(v, &bytes);
            Ok(())
        })
        .unwrap();
}

#[test]
fn random_bytes_never_panic_frame_decoders() {
    // A size prefix that fits the rest (or not), a known or unknown api key and a version.
    let s = (
        any::<bool>(),
        prop_oneof![Just(18i16), Just(24), Just(28), Just(83), any::<i16>()],
        -1i16..8,
        junk(),
    );
    runner(8000)
        .run(&s, |(fit, key, v, rest)| {
            let mut frame = vec![0, 0, 0, 0];
            frame.extend(key.to_be_bytes());
            frame.extend(v.to_be_bytes());
            frame.extend(&rest);
            let frame = if fit {
                refit(&frame)
            } else {
                frame[4..].to_vec()
            };
            let _ = check_request_frame(&frame);
            for api in HAND_BUILT {
                let _ = check_response_frame(api, v, &frame);
            }
            Ok(())
        })
        .unwrap();
}

/// Reads a `T` from the start of `bytes`; what it accepts must write back the bytes read.
fn primitive<T: Field>(bytes: &[u8], cx: Cx) -> Result<(), TestCaseError> {
    let buf = Bytes::copy_from_slice(bytes);
    let mut r = Reader::new(&buf);
    match T::read(&mut r, cx) {
        Err(e) => check_error(&e, bytes.len()),
        Ok(v) => {
            let used = r.position();
            let mut out = Vec::new();
            v.write(&mut out, cx)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&out[..], &bytes[..used]);
            prop_assert_eq!(v.size(cx), used);
        }
    }
    Ok(())
}

#[test]
fn random_bytes_never_panic_primitive_decoders() {
    let s = (any::<bool>(), any::<bool>(), junk());
    runner(8000)
        .run(&s, |(compact, nullable, bytes)| {
            let cx = Cx {
                version: 0,
                compact,
                nullable,
                tagged: false,
            };
            primitive::<bool>(&bytes, cx)?;
            primitive::<i16>(&bytes, cx)?;
            primitive::<u32>(&bytes, cx)?;
            primitive::<Uuid>(&bytes, cx)?;
            primitive::<Option<Str>>(&bytes, cx)?;
            primitive::<String>(&bytes, cx)?;
            primitive::<Option<Bytes>>(&bytes, cx)?;
            primitive::<Option<Records>>(&bytes, cx)?;
            primitive::<Option<Vec<i32>>>(&bytes, cx)?;
            primitive::<Vec<Str>>(&bytes, cx)?;
            let buf = Bytes::copy_from_slice(&bytes);
            let mut r = Reader::new(&buf);
            if let Ok(u) = r.read_uvarint() {
                let mut out = Vec::new();
                kafka_wire::primitives::put_uvarint(&mut out, u);
                prop_assert_eq!(&out[..], &bytes[..r.position()]);
            }
            let mut r = Reader::new(&buf);
            if let Ok(u) = r.read_uvarlong() {
                let mut out = Vec::new();
                kafka_wire::primitives::put_uvarlong(&mut out, u);
                prop_assert_eq!(&out[..], &bytes[..r.position()]);
            }
            Ok(())
        })
        .unwrap();
}
