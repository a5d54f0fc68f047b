//! The typed codecs of `kafka_wire::typed` over this crate's `RequestFrame` and
//! `ResponseFrame`, driven by hand on byte buffers (no runtime needed).
//!
//! The wire bytes are laid out by hand from Kafka's ApiVersionsRequest.json and
//! ApiVersionsResponse.json, not produced by this crate.

use kafka_wire::bytes::BytesMut;
use kafka_wire::codec::{Decoder, Encoder};
use kafka_wire::correlation::TrackError;
use kafka_wire::typed::{ClientCodec, ServerCodec, StreamError, WithBytes};
use kafka_wire::DecodeErrorKind;
use kafka_wire_messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, RequestBody, RequestFrame, ResponseBody,
    ResponseFrame,
};

/// ApiVersions v3 request: header v2 (key 18, version 3, correlation id 5, client id "c", no
/// tags), then compact strings "k" and "1", no tags.
const API_VERSIONS_V3_REQUEST: &[u8] =
    b"\x00\x00\x00\x11\x00\x12\x00\x03\x00\x00\x00\x05\x00\x01c\x00\x02k\x021\x00";

/// A broker serving ApiVersions 0-2 answering a v3 request with correlation id 1: header v0,
/// then a v0 body: error_code 35 (UNSUPPORTED_VERSION) and one (18, 0, 2) entry.
const V0_ANSWER: &[u8] =
    b"\x00\x00\x00\x10\x00\x00\x00\x01\x00\x23\x00\x00\x00\x01\x00\x12\x00\x00\x00\x02";

#[test]
fn server_decodes_requests_and_keeps_undecodable_frames() {
    let mut codec = ServerCodec::<RequestFrame, ResponseFrame>::new();
    // ControlledShutdown (7, removed from Kafka, not declared), then the ApiVersions
    // request, arriving together.
    let heartbeat = b"\x00\x00\x00\x0a\x00\x07\x00\x00\x00\x00\x00\x09\xff\xff";
    let mut buf = BytesMut::new();
    buf.extend_from_slice(heartbeat);
    buf.extend_from_slice(API_VERSIONS_V3_REQUEST);

    let first = codec.decode(&mut buf).unwrap().unwrap();
    let bad = first.unwrap_err();
    assert_eq!(&bad.frame[..], &heartbeat[..]);
    assert_eq!(bad.error.kind(), &DecodeErrorKind::UnknownApiKey(7));

    let second = codec.decode(&mut buf).unwrap().unwrap().unwrap();
    assert_eq!(second.header.correlation_id, 5);
    let RequestBody::ApiVersions(req) = &second.body else {
        panic!("not ApiVersions: {second:?}");
    };
    assert_eq!(&*req.client_software_name, "k");
    assert!(codec.decode(&mut buf).unwrap().is_none());

    // The answer goes out as one whole frame: v0 header (ApiVersions), v3 body.
    let mut out = BytesMut::new();
    codec
        .encode(
            ResponseFrame::new(5, 3, ApiVersionsResponse::default()),
            &mut out,
        )
        .unwrap();
    // size 10: correlation id, error_code 0, empty compact array, throttle 0, no tags.
    assert_eq!(
        &out[..],
        b"\x00\x00\x00\x0c\x00\x00\x00\x05\x00\x00\x01\x00\x00\x00\x00\x00"
    );
}

#[test]
fn client_matches_responses_by_correlation_id_with_the_api_versions_fallback() {
    let mut codec = ClientCodec::<RequestFrame, ResponseFrame>::new();
    let mut out = BytesMut::new();
    codec
        .encode(
            RequestFrame::new(1, Some("c".into()), 3, ApiVersionsRequest::default()),
            &mut out,
        )
        .unwrap();
    assert_eq!(codec.in_flight().len(), 1);

    // Reusing an id in flight is refused and writes nothing.
    let before = out.len();
    let dup = codec
        .encode(
            RequestFrame::new(1, None, 0, ApiVersionsRequest::default()),
            &mut out,
        )
        .unwrap_err();
    assert!(matches!(
        dup,
        StreamError::Correlation(TrackError::Duplicate(1))
    ));
    assert_eq!(out.len(), before);

    // The broker's v0 answer to the v3 request decodes through the fallback, split in two.
    let mut buf = BytesMut::from(&V0_ANSWER[..7]);
    assert!(codec.decode(&mut buf).unwrap().is_none());
    buf.extend_from_slice(&V0_ANSWER[7..]);
    let resp = codec.decode(&mut buf).unwrap().unwrap().unwrap();
    assert_eq!((resp.api_key, resp.version), (ApiKey::ApiVersions, 0));
    let ResponseBody::ApiVersions(body) = &resp.body else {
        panic!("not ApiVersions: {resp:?}");
    };
    assert_eq!(body.error_code, 35);
    assert!(codec.in_flight().is_empty());

    // A response that does not decode is handed over with its request, and the stream goes on:
    // librdkafka's mock answers an unsupported ApiVersions with a layout that is neither v0
    // nor the version asked (recorded from librdkafka 2.12's mock cluster).
    codec
        .encode(
            RequestFrame::new(2, None, 3, ApiVersionsRequest::default()),
            &mut out,
        )
        .unwrap();
    let mock: &[u8] =
        b"\x00\x00\x00\x11\x00\x00\x00\x02\x00\x23\x01\x00\x12\x00\x00\x00\x02\x00\x00\x00\x00";
    let mut buf = BytesMut::from(mock);
    let bad = codec.decode(&mut buf).unwrap().unwrap().unwrap_err();
    assert_eq!(&bad.frame[..], mock);
    let sent = bad.request.unwrap();
    assert_eq!(
        (sent.api_key, sent.api_version, sent.correlation_id),
        (18, 3, 2)
    );
    assert!(codec.in_flight().is_empty());

    // A second copy answers nothing in flight.
    let mut buf = BytesMut::from(V0_ANSWER);
    let err = codec.decode(&mut buf).unwrap_err();
    assert!(matches!(
        err,
        StreamError::Correlation(TrackError::Unmatched(1))
    ));
}

/// The codecs take the same limits as the frame decoders: a value above one makes the frame
/// undecodable (the stream goes on) with `LimitExceeded`, its offset and path.
#[test]
fn codecs_take_decode_limits() {
    use kafka_wire::{DecodeLimits, Limit};
    // The request's client id "c" is a 1-byte string at 12 (after size, key, version and
    // correlation id).
    let limits = DecodeLimits::new().max_string_len(0);
    let mut codec = ServerCodec::<RequestFrame, ResponseFrame>::with_limits(&limits);
    let mut buf = BytesMut::from(API_VERSIONS_V3_REQUEST);
    let bad = codec.decode(&mut buf).unwrap().unwrap().unwrap_err();
    assert_eq!(
        bad.error.kind(),
        &DecodeErrorKind::LimitExceeded {
            limit: Limit::StringLen,
            value: 1,
            max: 0
        }
    );
    assert_eq!(bad.error.offset(), 12);
    assert!(
        bad.error.path().to_string().ends_with("client_id"),
        "{}",
        bad.error
    );
    // The frame size limit splits the stream: a 17-byte frame above 16 ends it.
    let mut codec = ServerCodec::<RequestFrame, ResponseFrame>::with_limits(
        &DecodeLimits::new().max_frame_size(16),
    );
    let mut buf = BytesMut::from(API_VERSIONS_V3_REQUEST);
    assert!(codec.decode(&mut buf).is_err());

    // The v0 answer's api_keys array (one entry) has its count at 10: after size, correlation
    // id and error_code.
    let limits = DecodeLimits::new().max_array_len(0);
    let mut client = ClientCodec::<RequestFrame, ResponseFrame>::with_limits(&limits);
    let mut out = BytesMut::new();
    client
        .encode(
            RequestFrame::new(1, Some("c".into()), 0, ApiVersionsRequest::default()),
            &mut out,
        )
        .unwrap();
    let mut buf = BytesMut::from(V0_ANSWER);
    let bad = client.decode(&mut buf).unwrap().unwrap().unwrap_err();
    assert_eq!(
        bad.error.kind(),
        &DecodeErrorKind::LimitExceeded {
            limit: Limit::ArrayLen,
            value: 1,
            max: 0
        }
    );
    assert_eq!(bad.error.offset(), 10);
    assert!(
        bad.error.path().to_string().ends_with("api_keys"),
        "{}",
        bad.error
    );
}

/// With trailing bytes allowed, a codec carrying `DecodedFrame`s reports how many bytes each
/// frame carried after its body; the strict default hands such a frame over as undecodable.
#[test]
fn lenient_codecs_report_trailing_bytes_per_frame() {
    use kafka_wire::frame::{DecodeOptions, DecodedFrame};
    // The v0 answer with two zero bytes after the body, the size prefix grown to match.
    let mut padded = V0_ANSWER.to_vec();
    padded.extend_from_slice(&[0, 0]);
    padded[3] += 2;
    let v0_request = || RequestFrame::new(1, Some("c".into()), 0, ApiVersionsRequest::default());

    let lenient = DecodeOptions::new().with_trailing_bytes(true);
    let mut client =
        ClientCodec::<RequestFrame, DecodedFrame<ResponseFrame>>::with_options(lenient);
    let mut out = BytesMut::new();
    client.encode(v0_request(), &mut out).unwrap();
    let mut buf = BytesMut::from(&padded[..]);
    let got = client.decode(&mut buf).unwrap().unwrap().unwrap();
    assert_eq!(got.trailing_bytes, 2);
    assert_eq!(got.frame.header.correlation_id, 1);
    // The next frame, without extra bytes, reports none.
    client.encode(v0_request(), &mut out).unwrap();
    let mut buf = BytesMut::from(V0_ANSWER);
    let got = client.decode(&mut buf).unwrap().unwrap().unwrap();
    assert_eq!(got.trailing_bytes, 0);

    // Strict (the default): the same bytes are undecodable, `TrailingBytes(2)` at byte 20.
    let mut strict = ClientCodec::<RequestFrame, DecodedFrame<ResponseFrame>>::new();
    strict.encode(v0_request(), &mut out).unwrap();
    let mut buf = BytesMut::from(&padded[..]);
    let bad = strict.decode(&mut buf).unwrap().unwrap().unwrap_err();
    assert_eq!(bad.error.kind(), &DecodeErrorKind::TrailingBytes(2));
    assert_eq!(bad.error.offset(), 20);

    // The server side alike: the v3 request with one byte after its body.
    let mut req = API_VERSIONS_V3_REQUEST.to_vec();
    req.push(0);
    req[3] += 1;
    let mut server =
        ServerCodec::<DecodedFrame<RequestFrame>, ResponseFrame>::with_options(lenient);
    let mut buf = BytesMut::from(&req[..]);
    let got = server.decode(&mut buf).unwrap().unwrap().unwrap();
    assert_eq!(got.trailing_bytes, 1);
    assert_eq!(got.frame.header.correlation_id, 5);
}

#[test]
fn with_bytes_keeps_each_frame_as_received() {
    let mut codec = ServerCodec::<WithBytes<RequestFrame>, ResponseFrame>::new();
    let mut buf = BytesMut::new();
    buf.extend_from_slice(API_VERSIONS_V3_REQUEST);
    buf.extend_from_slice(API_VERSIONS_V3_REQUEST);
    for _ in 0..2 {
        let got = codec.decode(&mut buf).unwrap().unwrap().unwrap();
        assert_eq!(&got.bytes[..], API_VERSIONS_V3_REQUEST);
        assert_eq!(got.frame.header.correlation_id, 5);
        assert!(matches!(got.frame.body, RequestBody::ApiVersions(_)));
    }
    assert!(codec.decode(&mut buf).unwrap().is_none());

    let mut client = ClientCodec::<RequestFrame, WithBytes<ResponseFrame>>::new();
    let mut out = BytesMut::new();
    client
        .encode(
            RequestFrame::new(1, Some("c".into()), 3, ApiVersionsRequest::default()),
            &mut out,
        )
        .unwrap();
    let mut buf = BytesMut::from(V0_ANSWER);
    let got = client.decode(&mut buf).unwrap().unwrap().unwrap();
    assert_eq!(&got.bytes[..], V0_ANSWER);
    assert_eq!(got.frame.version, 0);
}
