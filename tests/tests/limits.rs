//! Configurable decode limits: each one exceeded is `LimitExceeded` naming the limit, at the
//! offset of the offending length or entry, with the field path; the defaults change nothing.

use bytes::Bytes;
use kafka_wire::frame;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{DecodeError, DecodeErrorKind, DecodeLimits, KafkaMessage, Limit, Reader};
use kafka_wire_messages::*;

fn decode(
    m: &TxnOffsetCommitRequest,
    v: i16,
    limits: &DecodeLimits,
) -> Result<TxnOffsetCommitRequest, DecodeError> {
    let bytes = Bytes::from(m.encode_to_vec(v).unwrap());
    let mut r = Reader::with_limits(&bytes, limits);
    TxnOffsetCommitRequest::decode(&mut r, v)
}

fn sample() -> TxnOffsetCommitRequest {
    let mut topic = TxnOffsetCommitRequestTopic {
        name: "topic".into(),
        partitions: vec![Default::default(); 3],
        ..Default::default()
    };
    topic
        .unknown_tagged_fields
        .push(7, Bytes::from_static(b"abcd"));
    topic
        .unknown_tagged_fields
        .push(9, Bytes::from_static(b"ef"));
    TxnOffsetCommitRequest {
        transactional_id: "txn-id".into(),
        group_id: "group".into(),
        topics: vec![topic],
        ..Default::default()
    }
}

fn limit_of(e: &DecodeError) -> (Limit, u64, u64) {
    match e.kind() {
        DecodeErrorKind::LimitExceeded { limit, value, max } => (*limit, *value, *max),
        k => panic!("not a limit: {k:?}"),
    }
}

#[test]
fn defaults_accept_what_kafka_accepts() {
    let m = sample();
    assert_eq!(decode(&m, 3, &DecodeLimits::default()).unwrap(), m);
    assert_eq!(DecodeLimits::new(), DecodeLimits::DEFAULT);
    assert_eq!(
        DecodeLimits::new().frame_size(),
        frame::DEFAULT_MAX_FRAME_SIZE
    );
    assert_eq!(DecodeLimits::new().string_len(), 32767);
}

#[test]
fn each_limit_names_itself_with_offset_and_path() {
    let m = sample();
    // v3 body: transactional_id at 0 ("txn-id", compact: 7 bytes), group_id at 7.
    let e = decode(&m, 3, &DecodeLimits::new().max_string_len(5)).unwrap_err();
    assert_eq!(limit_of(&e), (Limit::StringLen, 6, 5));
    assert_eq!(e.offset(), 0);
    assert_eq!(
        e.path().to_string(),
        "TxnOffsetCommitRequest.transactional_id"
    );
    assert!(e.to_string().contains("max_string_len = 5"), "{e}");
    // Classic strings too (v0: int16 lengths).
    let mut classic = m.clone();
    classic.topics[0].unknown_tagged_fields = Default::default();
    let e = decode(&classic, 0, &DecodeLimits::new().max_string_len(5)).unwrap_err();
    assert_eq!(limit_of(&e), (Limit::StringLen, 6, 5));
    assert_eq!(e.offset(), 0);

    let e = decode(&m, 3, &DecodeLimits::new().max_array_len(2)).unwrap_err();
    assert_eq!(limit_of(&e), (Limit::ArrayLen, 3, 2));
    assert_eq!(
        e.path().to_string(),
        "TxnOffsetCommitRequest.topics[0].partitions"
    );

    let e = decode(&m, 3, &DecodeLimits::new().max_unknown_tagged_fields(1)).unwrap_err();
    assert_eq!(limit_of(&e), (Limit::UnknownTaggedFields, 2, 1));
    assert_eq!(e.path().to_string(), "TxnOffsetCommitRequest.topics[0]");
    let e = decode(&m, 3, &DecodeLimits::new().max_unknown_tagged_bytes(5)).unwrap_err();
    assert_eq!(limit_of(&e), (Limit::UnknownTaggedBytes, 6, 5));
    assert!(decode(&m, 3, &DecodeLimits::new().max_unknown_tagged_bytes(6)).is_ok());
}

#[test]
fn bytes_limit() {
    // No declared message here has a bytes field: the primitive, directly.
    let input = Bytes::from_static(&[0, 0, 0, 4, 1, 2, 3, 4]);
    let limits = DecodeLimits::new().max_bytes_len(3);
    let mut rd = Reader::with_limits(&input, &limits);
    let e = <Bytes as kafka_wire::Field>::read(&mut rd, kafka_wire::Cx::new(0)).unwrap_err();
    assert_eq!(limit_of(&e), (Limit::BytesLen, 4, 3));
    assert_eq!(e.offset(), 0);
}

#[test]
fn the_frame_reader_takes_the_same_limits() {
    let limits = DecodeLimits::new().max_frame_size(8);
    let mut ok: &[u8] = &[0, 0, 0, 2, 9, 9];
    assert_eq!(
        &frame::read_frame(&mut ok, &DecodeOptions::from_limits(limits)).unwrap()[..],
        &[0, 0, 0, 2, 9, 9]
    );
    let mut big: &[u8] = &[0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let e = frame::read_frame(&mut big, &DecodeOptions::from_limits(limits)).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
}

// ---- the same limits through every frame-level entry point -------------------------------
//
// Offsets are laid out by hand from Kafka's RequestHeader.json (v2: api key, version,
// correlation id, int16 client id, tags), ResponseHeader.json (v0: correlation id) and the
// message schemas, after the 4-byte size prefix.

/// `sample()` as a TxnOffsetCommit v3 request frame with client id "c": the header takes
/// bytes 4..16, so the body starts at 16. Body: transactional_id "txn-id" at 16 (7 bytes),
/// group_id "group" 23..29, producer_id, producer_epoch, generation_id 29..43, member_id ""
/// at 43, group_instance_id null at 44, topics count at 45, topic 0: name "topic" 46..52,
/// partitions count at 52, three 18-byte partitions 53..107, then its tagged section: count
/// at 107, tag 7 at 108 (4 bytes of data), tag 9 at 114.
fn sample_request_frame() -> Bytes {
    RequestFrame::new(7, Some("c".into()), 3, sample())
        .to_bytes()
        .unwrap()
}

/// Checks `e` is `limit` exceeded by `value` over `max` at `offset`, in `field`.
#[track_caller]
fn assert_limit(e: &DecodeError, limit: Limit, value: u64, max: u64, offset: usize, field: &str) {
    assert_eq!(limit_of(e), (limit, value, max), "{e}");
    assert_eq!(e.offset(), offset, "{e}");
    let path = e.path().to_string();
    assert!(path.ends_with(field), "{path} does not end with {field}");
}

#[test]
fn request_frames_take_the_same_limits() {
    let f = sample_request_frame();
    let dec =
        |l: DecodeLimits| RequestFrame::decode(&f, &DecodeOptions::from_limits(l)).unwrap_err();
    let e = dec(DecodeLimits::new().max_string_len(5));
    assert_limit(
        &e,
        Limit::StringLen,
        6,
        5,
        16,
        "TxnOffsetCommitRequest.transactional_id",
    );
    let e = dec(DecodeLimits::new().max_array_len(2));
    assert_limit(&e, Limit::ArrayLen, 3, 2, 52, "topics[0].partitions");
    let e = dec(DecodeLimits::new().max_unknown_tagged_fields(1));
    assert_limit(&e, Limit::UnknownTaggedFields, 2, 1, 114, "topics[0]");
    let e = dec(DecodeLimits::new().max_unknown_tagged_bytes(5));
    assert_limit(&e, Limit::UnknownTaggedBytes, 6, 5, 114, "topics[0]");
    // The frame size limit is checked from the prefix alone: `LimitExceeded` at 0.
    let e = dec(DecodeLimits::new().max_frame_size(100));
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LimitExceeded {
            limit: Limit::FrameSize,
            value: f.len() as u64 - 4,
            max: 100
        }
    );
    assert_eq!(e.offset(), 0);
    // The defaults decode it, and so does each limit set just high enough.
    assert!(RequestFrame::decode(&f, &DecodeOptions::DEFAULT).is_ok());
    let enough = DecodeLimits::new()
        .max_string_len(6)
        .max_array_len(3)
        .max_unknown_tagged_fields(2)
        .max_unknown_tagged_bytes(6)
        .max_frame_size(f.len() - 4);
    assert_eq!(
        RequestFrame::decode(&f, &DecodeOptions::from_limits(enough))
            .unwrap()
            .frame
            .body,
        RequestBody::TxnOffsetCommit(sample())
    );

    // The same through the generic frame decoder and the pass-through one.
    let e = frame::decode_request::<TxnOffsetCommitRequest>(
        &f,
        &DecodeOptions::from_limits(DecodeLimits::new().max_array_len(2)),
    )
    .unwrap_err();
    assert_limit(&e, Limit::ArrayLen, 3, 2, 52, "topics[0].partitions");
    let e = AnyRequest::decode(
        &f,
        &DecodeOptions::from_limits(DecodeLimits::new().max_string_len(5)),
    )
    .unwrap_err();
    assert_limit(&e, Limit::StringLen, 6, 5, 16, "transactional_id");
}

#[test]
fn request_headers_take_the_same_limits() {
    // Client id "client" (6 bytes) at 12, after api key, version and correlation id.
    let f = RequestFrame::new(7, Some("client".into()), 3, sample())
        .to_bytes()
        .unwrap();
    let limits = DecodeLimits::new().max_string_len(5);
    let e = RequestFrame::decode_header(&f, &DecodeOptions::from_limits(limits)).unwrap_err();
    assert_limit(&e, Limit::StringLen, 6, 5, 12, "client_id");
    let e = RequestFrame::decode(&f, &DecodeOptions::from_limits(limits)).unwrap_err();
    assert_limit(&e, Limit::StringLen, 6, 5, 12, "client_id");
    assert!(RequestFrame::decode_header(&f, &DecodeOptions::DEFAULT).is_ok());
}

#[test]
fn bytes_fields_in_frames_take_the_bytes_limit() {
    // SaslAuthenticate v2 (flexible): header v2 with client id "c" (4..16), then auth_bytes,
    // a compact bytes field, at 16.
    let body = SaslAuthenticateRequest {
        auth_bytes: Bytes::from_static(b"abcd"),
        ..Default::default()
    };
    let f = RequestFrame::new(1, Some("c".into()), 2, body)
        .to_bytes()
        .unwrap();
    let e = RequestFrame::decode(
        &f,
        &DecodeOptions::from_limits(DecodeLimits::new().max_bytes_len(3)),
    )
    .unwrap_err();
    assert_limit(&e, Limit::BytesLen, 4, 3, 16, "auth_bytes");
    assert!(RequestFrame::decode(
        &f,
        &DecodeOptions::from_limits(DecodeLimits::new().max_bytes_len(4))
    )
    .is_ok());
}

#[test]
fn response_frames_take_the_same_limits() {
    // ApiVersions v3 response with three API entries: header v0 (correlation id, 4..8),
    // error_code 8..10, the api_keys count at 10.
    let body = ApiVersionsResponse {
        api_keys: vec![Default::default(); 3],
        ..Default::default()
    };
    let f = ResponseFrame::new(9, 3, body).to_bytes().unwrap();
    let limits = DecodeLimits::new().max_array_len(2);
    let api = ApiKey::ApiVersions;
    let e = ResponseFrame::decode(&f, api, 3, &DecodeOptions::from_limits(limits)).unwrap_err();
    assert_limit(
        &e,
        Limit::ArrayLen,
        3,
        2,
        10,
        "ApiVersionsResponse.api_keys",
    );
    let e =
        frame::decode_response::<ApiVersionsResponse>(&f, 3, &DecodeOptions::from_limits(limits))
            .unwrap_err();
    assert_limit(&e, Limit::ArrayLen, 3, 2, 10, "api_keys");
    let e = AnyResponse::decode(&f, 18, 3, &DecodeOptions::from_limits(limits)).unwrap_err();
    assert_limit(&e, Limit::ArrayLen, 3, 2, 10, "api_keys");
    let options = frame::DecodeOptions::from(limits);
    let e = ResponseFrame::decode(&f, api, 3, &options).unwrap_err();
    assert_limit(&e, Limit::ArrayLen, 3, 2, 10, "api_keys");
    let enough = DecodeLimits::new().max_array_len(3);
    assert!(ResponseFrame::decode(&f, api, 3, &DecodeOptions::from_limits(enough)).is_ok());
}
