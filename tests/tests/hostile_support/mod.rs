//! Shared by `hostile.rs`, `props.rs` and `alloc_bound.rs`: the seed frames, a corpus of
//! richer frames built with the typed API at every version, and the checks every decoder
//! entry point must pass (no panic, precise error, lossless round trip).
#![allow(dead_code)]

use std::fmt::Debug;

use bytes::Bytes;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{
    DecodeError, KafkaMessage, RequestHeader, ResponseHeader, Str, UnknownTaggedFields, Uuid,
    Version,
};
use kafka_wire_messages::*;

// ---- seed frames ----------------------------------------------------------------------------

/// The request frames of the seed pages (/work/shared/seeds), transcribed by hand from their
/// object trees (offsets and values), size prefix included.
pub const SEED_REQUESTS: &[(&str, &[u8])] = &[
    (
        "AddPartitionsToTxn v5",
        &[
            0, 0, 0, 34, 0, 24, 0, 5, 0, 0, 0, 0, 0, 0, 0, // prefix + header v2
            2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0,
        ],
    ),
    (
        "TxnOffsetCommit v5",
        &[
            0, 0, 0, 52, 0, 28, 0, 5, 0, 0, 0, 0, 0, 0, 0, // prefix + header v2
            1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 1, 2, // ... partitions
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
        ],
    ),
    (
        "InitializeShareGroupState v0",
        &[
            0, 0, 0, 49, 0, 83, 0, 0, 0, 0, 0, 0, 0, 0, 0, // prefix + header v2
            1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, // ... partitions
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ],
    ),
];

/// The response frames of the seed pages, with the API and version they answer.
pub const SEED_RESPONSES: &[(&str, ApiKey, Version, &[u8])] = &[
    (
        "AddPartitionsToTxn v5",
        ApiKey::AddPartitionsToTxn,
        5,
        &[
            0, 0, 0, 26, 0, 0, 0, 0, 0, // prefix + header v1
            0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ],
    ),
    (
        "TxnOffsetCommit v5",
        ApiKey::TxnOffsetCommit,
        5,
        &[
            0, 0, 0, 21, 0, 0, 0, 0, 0, // prefix + header v1
            0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ],
    ),
    (
        "InitializeShareGroupState v0",
        ApiKey::InitializeShareGroupState,
        0,
        &[
            0, 0, 0, 33, 0, 0, 0, 0, 0, // prefix + header v1
            2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
        ],
    ),
];

// ---- checks -----------------------------------------------------------------------------------

/// An error must point inside the input and print as "<kind> at byte <n>[ in `<path>`]".
pub fn check_error(e: &DecodeError, len: usize) {
    assert!(
        e.offset() <= len,
        "offset {} > input {len}: {e}",
        e.offset()
    );
    let text = e.to_string();
    assert!(
        text.contains(&format!(" at byte {}", e.offset())),
        "Display lacks the offset: {text}"
    );
    // The path is printed unless it is only the struct an UnsupportedVersion already names.
    let path = e.path().to_string();
    let named = matches!(e.kind(), kafka_wire::DecodeErrorKind::UnsupportedVersion { name, .. } if *name == path);
    if !path.is_empty() && !named {
        assert!(text.contains(&format!("`{path}`")), "{text}");
    }
}

/// What a re-encoding of decoded `input` must be: the same bytes, or, when a declared tagged
/// field carried its default (accepted, as Java accepts it, and left out by the encoder, as
/// Java's encoder leaves it out), fewer bytes; either way they must decode back to the same
/// value, which the callers check.
pub fn assert_reencoded(out: &[u8], input: &[u8], what: &dyn std::fmt::Display) {
    assert!(
        out == input || out.len() < input.len(),
        "{what}: re-encode differs\n   input {input:02x?}\n     out {out:02x?}"
    );
}

/// Decodes `bytes` as an `M` at `v`; if that works, re-encoding must give the same bytes (or
/// fewer, see [`assert_reencoded`]) and decode back equal. Panics on any loss; returns the
/// decode result.
pub fn check_body<M: KafkaMessage + PartialEq + Debug>(
    v: Version,
    bytes: &[u8],
) -> Result<M, DecodeError> {
    let buf = Bytes::copy_from_slice(bytes);
    match M::decode_exact(&buf, v) {
        Err(e) => {
            check_error(&e, bytes.len());
            Err(e)
        }
        Ok(m) => {
            let name = M::META.name;
            let out = m
                .encode_to_vec(v)
                .unwrap_or_else(|e| panic!("{name} v{v}: decoded value does not encode: {e}"));
            assert_reencoded(&out, bytes, &format!("{name} v{v}: {m:?}"));
            assert_eq!(m.encoded_size(v), out.len(), "{name} v{v}");
            let back = M::decode_exact(&Bytes::from(out), v).expect("re-encoded bytes decode");
            assert_eq!(back, m, "{name} v{v}");
            Ok(m)
        }
    }
}

/// The APIs with hand-built rich values here (every API's generated values are tested
/// elsewhere).
pub const HAND_BUILT: [ApiKey; 4] = [
    ApiKey::ApiVersions,
    ApiKey::AddPartitionsToTxn,
    ApiKey::TxnOffsetCommit,
    ApiKey::InitializeShareGroupState,
];

/// [`check_body`] for the request (`request == true`) or response body of `api`, one of
/// [`HAND_BUILT`].
pub fn check_api_body(
    api: ApiKey,
    request: bool,
    v: Version,
    bytes: &[u8],
) -> Result<(), DecodeError> {
    match (api, request) {
        (ApiKey::ApiVersions, true) => check_body::<ApiVersionsRequest>(v, bytes).map(drop),
        (ApiKey::ApiVersions, false) => check_body::<ApiVersionsResponse>(v, bytes).map(drop),
        (ApiKey::AddPartitionsToTxn, true) => {
            check_body::<AddPartitionsToTxnRequest>(v, bytes).map(drop)
        }
        (ApiKey::AddPartitionsToTxn, false) => {
            check_body::<AddPartitionsToTxnResponse>(v, bytes).map(drop)
        }
        (ApiKey::TxnOffsetCommit, true) => check_body::<TxnOffsetCommitRequest>(v, bytes).map(drop),
        (ApiKey::TxnOffsetCommit, false) => {
            check_body::<TxnOffsetCommitResponse>(v, bytes).map(drop)
        }
        (ApiKey::InitializeShareGroupState, true) => {
            check_body::<InitializeShareGroupStateRequest>(v, bytes).map(drop)
        }
        (ApiKey::InitializeShareGroupState, false) => {
            check_body::<InitializeShareGroupStateResponse>(v, bytes).map(drop)
        }
        _ => unreachable!("{api} is not one of HAND_BUILT"),
    }
}

/// A whole request frame through `RequestFrame::decode`, with the round trip on success.
pub fn check_request_frame(bytes: &[u8]) -> Result<RequestFrame, DecodeError> {
    match RequestFrame::decode(&Bytes::copy_from_slice(bytes), &DecodeOptions::DEFAULT)
        .map(|d| d.frame)
    {
        Err(e) => {
            check_error(&e, bytes.len());
            Err(e)
        }
        Ok(f) => {
            let out = f
                .to_vec()
                .unwrap_or_else(|e| panic!("decoded frame does not encode: {e}: {f:?}"));
            assert_reencoded(&out, bytes, &format!("request frame {f:?}"));
            assert_eq!(f.encoded_size(), out.len());
            let back = RequestFrame::decode(&Bytes::from(out), &DecodeOptions::DEFAULT)
                .expect("re-encoded frame decodes")
                .frame;
            assert_eq!(back, f);
            Ok(f)
        }
    }
}

/// Strict decoding at the version given: without ApiVersions' fallback to v0, which would
/// read a cut v3 answer as a whole v0 one.
const AT_VERSION: DecodeOptions = DecodeOptions::DEFAULT.with_api_versions_fallback(false);

/// A whole response frame through `ResponseFrame::decode` (at `v` only), with the round trip
/// on success.
pub fn check_response_frame(
    api: ApiKey,
    v: Version,
    bytes: &[u8],
) -> Result<ResponseFrame, DecodeError> {
    match ResponseFrame::decode(&Bytes::copy_from_slice(bytes), api, v, &AT_VERSION)
        .map(|d| d.frame)
    {
        Err(e) => {
            check_error(&e, bytes.len());
            Err(e)
        }
        Ok(f) => {
            let out = f
                .to_vec()
                .unwrap_or_else(|e| panic!("decoded frame does not encode: {e}: {f:?}"));
            assert_reencoded(&out, bytes, &format!("response frame {f:?}"));
            assert_eq!(f.encoded_size(), out.len());
            let back = ResponseFrame::decode(&Bytes::from(out), api, v, &AT_VERSION)
                .expect("re-encoded frame decodes")
                .frame;
            assert_eq!(back, f);
            Ok(f)
        }
    }
}

/// The size of a request frame's prefix and header: where its body starts.
pub fn request_body_start(f: &RequestFrame) -> usize {
    let hv = f.api_key().request_header_version(f.version());
    4 + f.header.encoded_size(hv)
}

/// The size of a response frame's prefix and header: where its body starts.
pub fn response_body_start(f: &ResponseFrame) -> usize {
    4 + f
        .header
        .encoded_size(f.api_key.response_header_version(f.version))
}

/// `bytes` with its size prefix rewritten to match its length (so that a truncated or
/// mutated frame reaches the header and body decoders instead of failing at the prefix).
pub fn refit(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.len() >= 4 {
        let n = (out.len() - 4) as u32;
        out[..4].copy_from_slice(&n.to_be_bytes());
    }
    out
}

// ---- a corpus of richer frames, built with the typed API at every version ------------------------

/// Two unknown tagged fields (one with a 2-byte tag) in flexible versions, from tag `first`.
pub fn unknown(v: Version, flex: Version, first: u32) -> UnknownTaggedFields {
    let mut u = UnknownTaggedFields::new();
    if v >= flex {
        u.push(first, Bytes::from_static(b"\x00\xff"));
        u.push(200, Bytes::from_static(b"\xab"));
    }
    u
}

fn s(text: &'static str) -> Str {
    Str::from(text)
}

pub fn apt_request(v: Version) -> AddPartitionsToTxnRequest {
    let topics: Vec<_> = (0..2)
        .map(|i| AddPartitionsToTxnTopic {
            name: s(["tö", ""][i]),
            partitions: [i as i32, -1].into(),
            unknown_tagged_fields: unknown(v, 3, 0),
        })
        .collect();
    let mut m = AddPartitionsToTxnRequest {
        unknown_tagged_fields: unknown(v, 3, 0),
        ..Default::default()
    };
    if v >= 4 {
        m.transactions = vec![AddPartitionsToTxnTransaction {
            transactional_id: s("tx"),
            producer_id: -2,
            producer_epoch: 7,
            verify_only: true,
            topics,
            unknown_tagged_fields: unknown(v, 3, 1),
        }];
    } else {
        m.v3_and_below_transactional_id = s("tx");
        m.v3_and_below_producer_id = i64::MAX;
        m.v3_and_below_producer_epoch = -1;
        m.v3_and_below_topics = topics;
    }
    m
}

pub fn apt_response(v: Version) -> AddPartitionsToTxnResponse {
    let topics: Vec<_> = (0..2)
        .map(|i| AddPartitionsToTxnTopicResult {
            name: s(["a", "é"][i]),
            results_by_partition: vec![AddPartitionsToTxnPartitionResult {
                partition_index: i as i32,
                partition_error_code: 48,
                unknown_tagged_fields: unknown(v, 3, 2),
            }],
            unknown_tagged_fields: unknown(v, 3, 0),
        })
        .collect();
    let mut m = AddPartitionsToTxnResponse {
        throttle_time_ms: 5,
        unknown_tagged_fields: unknown(v, 3, 0),
        ..Default::default()
    };
    if v >= 4 {
        m.error_code = -1;
        m.results_by_transaction = vec![AddPartitionsToTxnResult {
            transactional_id: s("tx"),
            topic_results: topics,
            unknown_tagged_fields: unknown(v, 3, 3),
        }];
    } else {
        m.results_by_topic_v3_and_below = topics;
    }
    m
}

pub fn toc_request(v: Version) -> TxnOffsetCommitRequest {
    let mut m = TxnOffsetCommitRequest {
        transactional_id: s("tx"),
        group_id: s("grüppe"),
        producer_id: 9,
        producer_epoch: 1,
        topics: (0..2)
            .map(|i| TxnOffsetCommitRequestTopic {
                name: if v <= 5 { s(["t0", ""][i]) } else { Str::new() },
                topic_id: if v >= 6 {
                    Uuid::from_halves(i as u64, 1)
                } else {
                    Uuid::ZERO
                },
                partitions: (0..2)
                    .map(|p| TxnOffsetCommitRequestPartition {
                        partition_index: p,
                        committed_offset: 100,
                        committed_leader_epoch: if v >= 2 { 3 } else { -1 },
                        committed_metadata: [None, Some(s("mé"))][p as usize].clone(),
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
        m.generation_id_or_member_epoch = 4;
        m.member_id = s("m");
        m.group_instance_id = Some(s("i"));
    }
    m
}

pub fn toc_response(v: Version) -> TxnOffsetCommitResponse {
    TxnOffsetCommitResponse {
        throttle_time_ms: -1,
        topics: (0..2)
            .map(|i| TxnOffsetCommitResponseTopic {
                name: if v <= 5 {
                    s(["t0", "t1"][i])
                } else {
                    Str::new()
                },
                topic_id: if v >= 6 {
                    Uuid::from_halves(7, i as u64)
                } else {
                    Uuid::ZERO
                },
                partitions: vec![TxnOffsetCommitResponsePartition {
                    partition_index: 1,
                    error_code: 0,
                    unknown_tagged_fields: unknown(v, 3, 9),
                }],
                unknown_tagged_fields: unknown(v, 3, 0),
            })
            .collect(),
        unknown_tagged_fields: unknown(v, 3, 4),
    }
}

pub fn isgs_request(v: Version) -> InitializeShareGroupStateRequest {
    InitializeShareGroupStateRequest {
        group_id: s("share"),
        topics: vec![InitializeStateData {
            topic_id: Uuid::from_halves(1, 2),
            partitions: (0..2)
                .map(|p| PartitionData {
                    partition: p,
                    state_epoch: -1,
                    start_offset: i64::MIN,
                    unknown_tagged_fields: unknown(v, 0, 0),
                })
                .collect(),
            unknown_tagged_fields: unknown(v, 0, 1),
        }],
        unknown_tagged_fields: unknown(v, 0, 2),
    }
}

pub fn isgs_response(v: Version) -> InitializeShareGroupStateResponse {
    InitializeShareGroupStateResponse {
        results: vec![InitializeStateResult {
            topic_id: Uuid::from_halves(3, 4),
            partitions: (0..2)
                .map(|p| PartitionResult {
                    partition: p,
                    error_code: [0, -1][p as usize],
                    error_message: [None, Some(s("échec"))][p as usize].clone(),
                    unknown_tagged_fields: unknown(v, 0, 3),
                })
                .collect(),
            unknown_tagged_fields: unknown(v, 0, 0),
        }],
        unknown_tagged_fields: unknown(v, 0, 1),
    }
}

pub fn av_request(v: Version) -> ApiVersionsRequest {
    let mut m = ApiVersionsRequest {
        unknown_tagged_fields: unknown(v, 3, 0),
        ..Default::default()
    };
    if v >= 3 {
        m.client_software_name = s("kw");
        m.client_software_version = s("0.1");
    }
    if v >= 5 {
        m.cluster_id = Some(s("c"));
        m.node_id = 3;
    }
    m
}

pub fn av_response(v: Version) -> ApiVersionsResponse {
    let mut m = ApiVersionsResponse {
        error_code: 35,
        api_keys: (0..2)
            .map(|i| ApiVersion {
                api_key: [18, 28][i],
                min_version: 0,
                max_version: [5, 6][i],
                unknown_tagged_fields: unknown(v, 3, 0),
            })
            .collect(),
        // Declared tags are 0-3: unknown ones start at 4.
        unknown_tagged_fields: unknown(v, 3, 4),
        ..Default::default()
    };
    if v >= 1 {
        m.throttle_time_ms = 10;
    }
    if v >= 3 {
        m.supported_features = vec![SupportedFeatureKey {
            name: s("f"),
            min_version: 1,
            max_version: 2,
            unknown_tagged_fields: unknown(v, 3, 0),
        }];
        m.finalized_features_epoch = 8;
        m.finalized_features = vec![FinalizedFeatureKey {
            name: s("f"),
            max_version_level: 2,
            min_version_level: 1,
            unknown_tagged_fields: unknown(v, 3, 0),
        }];
        m.zk_migration_ready = true;
    }
    m
}

/// The rich request body of `api` (one of [`HAND_BUILT`]) at `v`.
pub fn request_body(api: ApiKey, v: Version) -> RequestBody {
    match api {
        ApiKey::ApiVersions => av_request(v).into(),
        ApiKey::AddPartitionsToTxn => apt_request(v).into(),
        ApiKey::TxnOffsetCommit => toc_request(v).into(),
        ApiKey::InitializeShareGroupState => isgs_request(v).into(),
        _ => unreachable!("{api} is not one of HAND_BUILT"),
    }
}

/// The rich response body of `api` (one of [`HAND_BUILT`]) at `v`.
pub fn response_body(api: ApiKey, v: Version) -> ResponseBody {
    match api {
        ApiKey::ApiVersions => av_response(v).into(),
        ApiKey::AddPartitionsToTxn => apt_response(v).into(),
        ApiKey::TxnOffsetCommit => toc_response(v).into(),
        ApiKey::InitializeShareGroupState => isgs_response(v).into(),
        _ => unreachable!("{api} is not one of HAND_BUILT"),
    }
}

/// Every hand-built API at every request version, with a client id and (header v2) unknown header tags.
pub fn corpus_requests() -> Vec<RequestFrame> {
    let mut out = Vec::new();
    for api in HAND_BUILT {
        for v in api.request_versions().iter() {
            let mut f = RequestFrame::new(v.into(), Some(s("cl")), v, request_body(api, v));
            f.header.unknown_tagged_fields = unknown(api.request_header_version(v), 2, 0);
            out.push(f);
        }
    }
    out
}

/// Every hand-built API at every response version, with unknown header tags in header v1.
pub fn corpus_responses() -> Vec<ResponseFrame> {
    let mut out = Vec::new();
    for api in HAND_BUILT {
        for v in api.response_versions().iter() {
            let mut f = ResponseFrame::new(-7, v, response_body(api, v));
            f.header.unknown_tagged_fields = unknown(api.response_header_version(v), 1, 0);
            out.push(f);
        }
    }
    out
}

/// The request header decoded at `v` (the header entry point alone).
pub fn check_request_header(v: Version, bytes: &[u8]) -> Result<(), DecodeError> {
    check_body::<RequestHeader>(v, bytes).map(drop)
}

/// The response header decoded at `v`.
pub fn check_response_header(v: Version, bytes: &[u8]) -> Result<(), DecodeError> {
    check_body::<ResponseHeader>(v, bytes).map(drop)
}
