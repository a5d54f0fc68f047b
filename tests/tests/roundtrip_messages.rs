//! Round trips of every declared message at every one of its versions, with non-trivial
//! values: several elements per array, non-ASCII strings, nulls where nullable, extreme
//! numbers, and unknown tagged fields at every struct level in flexible versions.
//!
//! Each value sets only the fields its version has, so decode(encode(x)) == x exactly, and
//! re-encoding the decoded value gives the same bytes.

use std::fmt::Debug;

use bytes::Bytes;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{KafkaMessage, Str, UnknownTaggedFields, Uuid, Version, VersionRange};
use kafka_wire_messages::*;

fn roundtrip<T: KafkaMessage + PartialEq + Debug>(x: &T, v: Version) -> Vec<u8> {
    let bytes = x
        .encode_to_vec(v)
        .unwrap_or_else(|e| panic!("{} v{v}: {e}", T::META.name));
    assert_eq!(x.encoded_size(v), bytes.len(), "{} v{v}", T::META.name);
    let buf = Bytes::from(bytes.clone());
    let back = T::decode_exact(&buf, v).unwrap_or_else(|e| panic!("{} v{v}: {e}", T::META.name));
    assert_eq!(&back, x, "{} v{v}", T::META.name);
    assert_eq!(
        back.encode_to_vec(v).unwrap(),
        bytes,
        "{} v{v}",
        T::META.name
    );
    bytes
}

/// Unknown tagged fields for a struct flexible from `flex`, avoiding the `declared` tags.
/// Tags 200 and 70000 need multi-byte uvarints; payloads are arbitrary bytes.
fn unknown(v: Version, flex: Version, first: u32) -> UnknownTaggedFields {
    let mut u = UnknownTaggedFields::new();
    if v >= flex {
        u.push(first, Bytes::from_static(b"\x00\xff"));
        u.push(200, Bytes::new());
        u.push(70_000, Bytes::from(vec![0xab; 130]));
    }
    u
}

fn s(text: &'static str) -> Str {
    Str::from(text)
}

const NAMES: [&str; 3] = ["héllo wörld", "", "トピック🦀"];

fn uuid(i: u64) -> Uuid {
    Uuid::from_halves(u64::MAX - i, i)
}

// ---- AddPartitionsToTxn --------------------------------------------------------------------

fn apt_topic(v: Version, i: usize) -> AddPartitionsToTxnTopic {
    AddPartitionsToTxnTopic {
        name: s(NAMES[i % 3]),
        partitions: [0, -1, i32::MAX, i32::MIN].into(),
        unknown_tagged_fields: unknown(v, 3, 0),
    }
}

fn apt_request(v: Version) -> AddPartitionsToTxnRequest {
    let topics: Vec<_> = (0..3).map(|i| apt_topic(v, i)).collect();
    let mut m = AddPartitionsToTxnRequest {
        unknown_tagged_fields: unknown(v, 3, 0),
        ..Default::default()
    };
    if v >= 4 {
        m.transactions = (0..3)
            .map(|i| AddPartitionsToTxnTransaction {
                transactional_id: s(NAMES[(i + 2) % 3]),
                producer_id: i64::MIN + i as i64,
                producer_epoch: -1,
                verify_only: i % 2 == 0,
                topics: topics[..=i].to_vec(),
                unknown_tagged_fields: unknown(v, 3, 5),
            })
            .collect();
    } else {
        m.v3_and_below_transactional_id = s("txn-ü");
        m.v3_and_below_producer_id = i64::MAX;
        m.v3_and_below_producer_epoch = i16::MIN;
        m.v3_and_below_topics = topics;
    }
    m
}

fn apt_topic_result(v: Version, i: usize) -> AddPartitionsToTxnTopicResult {
    AddPartitionsToTxnTopicResult {
        name: s(NAMES[i % 3]),
        results_by_partition: (0..3)
            .map(|p| AddPartitionsToTxnPartitionResult {
                partition_index: [i32::MAX, -1, 0][p],
                partition_error_code: [i16::MIN, 48, -1][p],
                unknown_tagged_fields: unknown(v, 3, 1),
            })
            .collect(),
        unknown_tagged_fields: unknown(v, 3, 2),
    }
}

fn apt_response(v: Version) -> AddPartitionsToTxnResponse {
    let topics: Vec<_> = (0..3).map(|i| apt_topic_result(v, i)).collect();
    let mut m = AddPartitionsToTxnResponse {
        throttle_time_ms: i32::MAX,
        unknown_tagged_fields: unknown(v, 3, 0),
        ..Default::default()
    };
    if v >= 4 {
        m.error_code = -1;
        m.results_by_transaction = (0..2)
            .map(|i| AddPartitionsToTxnResult {
                transactional_id: s(NAMES[i]),
                topic_results: topics.clone(),
                unknown_tagged_fields: unknown(v, 3, 3),
            })
            .collect();
    } else {
        m.results_by_topic_v3_and_below = topics;
    }
    m
}

// ---- TxnOffsetCommit -----------------------------------------------------------------------

fn toc_request(v: Version) -> TxnOffsetCommitRequest {
    let mut m = TxnOffsetCommitRequest {
        transactional_id: s("transaction-ñ"),
        group_id: s(NAMES[2]),
        producer_id: i64::MIN,
        producer_epoch: i16::MAX,
        topics: (0..3)
            .map(|i| TxnOffsetCommitRequestTopic {
                name: if v <= 5 { s(NAMES[i]) } else { Str::new() },
                topic_id: if v >= 6 { uuid(i as u64) } else { Uuid::ZERO },
                partitions: (0..3)
                    .map(|p| TxnOffsetCommitRequestPartition {
                        partition_index: p as i32 - 1,
                        committed_offset: [i64::MIN, -1, i64::MAX][p],
                        committed_leader_epoch: if v >= 2 { [i32::MAX, 0, -7][p] } else { -1 },
                        // Null, empty and non-ASCII metadata.
                        committed_metadata: [None, Some(s("")), Some(s("métadonnées"))][p].clone(),
                        unknown_tagged_fields: unknown(v, 3, 0),
                    })
                    .collect(),
                unknown_tagged_fields: unknown(v, 3, 1),
            })
            .collect(),
        unknown_tagged_fields: unknown(v, 3, 2),
        ..Default::default()
    };
    if v >= 3 {
        m.generation_id_or_member_epoch = i32::MIN;
        m.member_id = s("member-ø");
        m.group_instance_id = if v % 2 == 0 {
            None
        } else {
            Some(s("instance-λ"))
        };
    }
    m
}

fn toc_response(v: Version) -> TxnOffsetCommitResponse {
    TxnOffsetCommitResponse {
        throttle_time_ms: -1,
        topics: (0..3)
            .map(|i| TxnOffsetCommitResponseTopic {
                name: if v <= 5 { s(NAMES[i]) } else { Str::new() },
                topic_id: if v >= 6 {
                    uuid(100 + i as u64)
                } else {
                    Uuid::ZERO
                },
                partitions: (0..2)
                    .map(|p| TxnOffsetCommitResponsePartition {
                        partition_index: [i32::MIN, i32::MAX][p],
                        error_code: [0, i16::MAX][p],
                        unknown_tagged_fields: unknown(v, 3, 9),
                    })
                    .collect(),
                unknown_tagged_fields: unknown(v, 3, 0),
            })
            .collect(),
        unknown_tagged_fields: unknown(v, 3, 4),
    }
}

// ---- InitializeShareGroupState -------------------------------------------------------------

fn isgs_request(v: Version) -> InitializeShareGroupStateRequest {
    InitializeShareGroupStateRequest {
        group_id: s("share-grüppe"),
        topics: (0..3)
            .map(|i| InitializeStateData {
                topic_id: uuid(i),
                partitions: (0..3)
                    .map(|p| PartitionData {
                        partition: [0, -1, i32::MAX][p],
                        state_epoch: [i32::MIN, 1, -1][p],
                        start_offset: [-1, i64::MIN, i64::MAX][p],
                        unknown_tagged_fields: unknown(v, 0, 0),
                    })
                    .collect(),
                unknown_tagged_fields: unknown(v, 0, 1),
            })
            .collect(),
        unknown_tagged_fields: unknown(v, 0, 2),
    }
}

fn isgs_response(v: Version) -> InitializeShareGroupStateResponse {
    InitializeShareGroupStateResponse {
        results: (0..2)
            .map(|i| InitializeStateResult {
                topic_id: uuid(u64::MAX - i),
                partitions: (0..3)
                    .map(|p| PartitionResult {
                        partition: p as i32,
                        error_code: [0, -1, i16::MIN][p],
                        error_message: [None, Some(s("")), Some(s("échec ❌"))][p].clone(),
                        unknown_tagged_fields: unknown(v, 0, 3),
                    })
                    .collect(),
                unknown_tagged_fields: unknown(v, 0, 0),
            })
            .collect(),
        unknown_tagged_fields: unknown(v, 0, 1),
    }
}

// ---- ApiVersions ---------------------------------------------------------------------------

fn av_request(v: Version) -> ApiVersionsRequest {
    let mut m = ApiVersionsRequest {
        unknown_tagged_fields: unknown(v, 3, 0),
        ..Default::default()
    };
    if v >= 3 {
        m.client_software_name = s("kafka-wire-ü");
        m.client_software_version = s("0.1.0-β");
    }
    if v >= 5 {
        m.cluster_id = Some(s("clüster"));
        m.node_id = i32::MAX;
    }
    m
}

fn av_response(v: Version) -> ApiVersionsResponse {
    let mut m = ApiVersionsResponse {
        error_code: 35,
        api_keys: (0..4)
            .map(|i| ApiVersion {
                api_key: [18, 24, 28, i16::MAX][i],
                min_version: [0, -1, 3, i16::MIN][i],
                max_version: [5, 5, 6, i16::MAX][i],
                unknown_tagged_fields: unknown(v, 3, 0),
            })
            .collect(),
        // Declared tags are 0-3: unknown ones start at 4.
        unknown_tagged_fields: unknown(v, 3, 4),
        ..Default::default()
    };
    if v >= 1 {
        m.throttle_time_ms = i32::MIN;
    }
    if v >= 3 {
        m.supported_features = (0..3)
            .map(|i| SupportedFeatureKey {
                name: s(NAMES[i]),
                min_version: 0,
                max_version: i16::MAX,
                unknown_tagged_fields: unknown(v, 3, 0),
            })
            .collect();
        m.finalized_features_epoch = if v == 4 { -1 } else { i64::MIN };
        m.finalized_features = (0..2)
            .map(|i| FinalizedFeatureKey {
                name: s(NAMES[2 - i]),
                max_version_level: -1,
                min_version_level: i16::MIN,
                unknown_tagged_fields: unknown(v, 3, 7),
            })
            .collect();
        m.zk_migration_ready = v != 4;
    }
    m
}

fn versions(r: VersionRange) -> impl Iterator<Item = Version> {
    r.iter()
}

#[test]
fn add_partitions_to_txn_every_version() {
    for v in versions(AddPartitionsToTxnRequest::META.versions) {
        roundtrip(&apt_request(v), v);
    }
    for v in versions(AddPartitionsToTxnResponse::META.versions) {
        roundtrip(&apt_response(v), v);
    }
}

#[test]
fn txn_offset_commit_every_version() {
    assert_eq!(TxnOffsetCommitRequest::META.versions.max(), Some(6));
    for v in versions(TxnOffsetCommitRequest::META.versions) {
        roundtrip(&toc_request(v), v);
    }
    for v in versions(TxnOffsetCommitResponse::META.versions) {
        roundtrip(&toc_response(v), v);
    }
}

#[test]
fn initialize_share_group_state_every_version() {
    for v in versions(InitializeShareGroupStateRequest::META.versions) {
        roundtrip(&isgs_request(v), v);
    }
    for v in versions(InitializeShareGroupStateResponse::META.versions) {
        roundtrip(&isgs_response(v), v);
    }
}

#[test]
fn api_versions_every_version() {
    for v in versions(ApiVersionsRequest::META.versions) {
        roundtrip(&av_request(v), v);
        // Null cluster id at v5.
        if v >= 5 {
            let m = ApiVersionsRequest {
                cluster_id: None,
                ..av_request(v)
            };
            roundtrip(&m, v);
        }
    }
    for v in versions(ApiVersionsResponse::META.versions) {
        roundtrip(&av_response(v), v);
    }
}

/// Every value above through the dispatch enums and whole frames, with extreme headers.
#[test]
fn whole_frames_every_version() {
    let mut n = 0;
    // The four APIs with hand-built values above (every API's round trips are elsewhere).
    for api in [
        ApiKey::ApiVersions,
        ApiKey::AddPartitionsToTxn,
        ApiKey::TxnOffsetCommit,
        ApiKey::InitializeShareGroupState,
    ] {
        for v in versions(api.request_versions()) {
            let body: RequestBody = match api {
                ApiKey::ApiVersions => av_request(v).into(),
                ApiKey::AddPartitionsToTxn => apt_request(v).into(),
                ApiKey::TxnOffsetCommit => toc_request(v).into(),
                ApiKey::InitializeShareGroupState => isgs_request(v).into(),
                _ => unreachable!(),
            };
            for (corr, client) in [(i32::MIN, None), (i32::MAX, Some(s("clïent-🦀")))] {
                let mut f = RequestFrame::new(corr, client, v, body.clone());
                if api.request_header_version(v) == 2 {
                    f.header.unknown_tagged_fields = unknown(v, 0, 0);
                }
                let bytes = f.to_vec().unwrap();
                assert_eq!(bytes.len(), f.encoded_size());
                assert_eq!(
                    i32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize,
                    bytes.len() - 4
                );
                let back = RequestFrame::decode(&Bytes::from(bytes), &DecodeOptions::DEFAULT)
                    .unwrap()
                    .frame;
                assert_eq!(back, f);
                assert_eq!(
                    back.body.to_vec(v).unwrap().len(),
                    back.body.encoded_size(v)
                );
                n += 1;
            }
        }
        for v in versions(api.response_versions()) {
            let body: ResponseBody = match api {
                ApiKey::ApiVersions => av_response(v).into(),
                ApiKey::AddPartitionsToTxn => apt_response(v).into(),
                ApiKey::TxnOffsetCommit => toc_response(v).into(),
                ApiKey::InitializeShareGroupState => isgs_response(v).into(),
                _ => unreachable!(),
            };
            let mut f = ResponseFrame::new(-1, v, body);
            if api.response_header_version(v) == 1 {
                f.header.unknown_tagged_fields = unknown(v, 0, 0);
            }
            let bytes = f.to_vec().unwrap();
            assert_eq!(bytes.len(), f.encoded_size());
            let back = ResponseFrame::decode(&Bytes::from(bytes), api, v, &DecodeOptions::DEFAULT)
                .unwrap()
                .frame;
            assert_eq!(back, f);
            n += 1;
        }
    }
    // 2 x (6 + 6 + 7 + 1) request frames, 6 + 6 + 7 + 1 response frames.
    assert_eq!(n, 60);
}

/// Hand-computed bytes for a classic and a flexible version (ARCHITECTURE.md, *Primitives* and *Tagged fields*), so the
/// round trips above are not only self-consistent.
#[test]
fn classic_and_compact_vectors() {
    // TxnOffsetCommitResponse v0: int32 throttle, int32 count, int16-prefixed name,
    // int32 count, int32 partition, int16 error. No tagged sections.
    let m = TxnOffsetCommitResponse {
        throttle_time_ms: 1,
        topics: vec![TxnOffsetCommitResponseTopic {
            name: s("é"),
            partitions: vec![TxnOffsetCommitResponsePartition {
                partition_index: 2,
                error_code: -1,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_eq!(
        roundtrip(&m, 0),
        [
            0, 0, 0, 1, // throttle_time_ms
            0, 0, 0, 1, // topics count
            0, 2, 0xc3, 0xa9, // name "é"
            0, 0, 0, 1, // partitions count
            0, 0, 0, 2, // partition_index
            0xff, 0xff, // error_code
        ]
    );
    // v6: the name is gone, the topic id (16 bytes) takes its place; compact prefixes and
    // a tagged section per struct.
    let m6 = TxnOffsetCommitResponse {
        topics: vec![TxnOffsetCommitResponseTopic {
            name: Str::new(),
            topic_id: Uuid::from_halves(1, 2),
            ..m.topics[0].clone()
        }],
        ..m.clone()
    };
    assert_eq!(
        roundtrip(&m6, 6),
        [
            0, 0, 0, 1, // throttle_time_ms
            2, // topics count + 1
            0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, // topic_id
            2, // partitions count + 1
            0, 0, 0, 2, 0xff, 0xff, // partition
            0, 0, 0, // tagged sections: partition, topic, message
        ]
    );
    // ApiVersionsResponse v3 with ZkMigrationReady (tag 3, bool) and one unknown tag 4.
    let mut av = ApiVersionsResponse {
        zk_migration_ready: true,
        ..Default::default()
    };
    av.unknown_tagged_fields
        .push(4, Bytes::from_static(b"\x07"));
    assert_eq!(
        roundtrip(&av, 3),
        [
            0, 0, // error_code
            1, // api_keys: empty compact array
            0, 0, 0, 0, // throttle_time_ms
            2, // two tagged fields
            3, 1, 1, // tag 3, size 1, true
            4, 1, 7, // unknown tag 4
        ]
    );
}
