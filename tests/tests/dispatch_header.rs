//! `RequestFrame::decode_header`: the header of a request whose body cannot be decoded, so a
//! broker can still answer with the right correlation id (as Java's `RequestHeader.parse` does).

use bytes::Bytes;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::DecodeErrorKind;
use kafka_wire_messages::RequestFrame;

fn hex(s: &str) -> Bytes {
    Bytes::from(kafka_wire_tests::hex(s))
}

#[test]
fn header_of_an_api_versions_request_at_an_unsupported_version() {
    // Size 15; header v2 (ApiVersions is flexible from v3, so v9 takes header v2): key 18,
    // version 9, correlation id 42, client id "ab" (classic int16 length), no tagged fields;
    // then a body this codec cannot read at v9.
    let frame = hex("0000000f 0012 0009 0000002a 0002 6162 00 ffff");
    let e = RequestFrame::decode(&frame, &DecodeOptions::DEFAULT).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::UnsupportedVersion { version: 9, .. }
    ));
    let h = RequestFrame::decode_header(&frame, &DecodeOptions::DEFAULT).unwrap();
    assert_eq!(
        (h.request_api_key, h.request_api_version, h.correlation_id),
        (18, 9, 42)
    );
    assert_eq!(h.client_id.as_deref(), Some("ab"));
}

#[test]
fn header_of_an_undeclared_api_is_read_as_v1() {
    // Key 4 (LeaderAndIsr, removed from Kafka, not declared) v9: key, version, correlation
    // id 7, null client id.
    let frame = hex("0000000a 0004 0009 00000007 ffff");
    let e = RequestFrame::decode(&frame, &DecodeOptions::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::UnknownApiKey(4));
    let h = RequestFrame::decode_header(&frame, &DecodeOptions::DEFAULT).unwrap();
    assert_eq!(
        (h.request_api_key, h.correlation_id, h.client_id),
        (4, 7, None)
    );
}

#[test]
fn header_errors_are_precise() {
    // The frame ends inside the correlation id.
    let frame = hex("00000006 0012 0003 0000");
    let e = RequestFrame::decode_header(&frame, &DecodeOptions::DEFAULT).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::Truncated { .. }));
    assert_eq!(e.offset(), 8);
    assert_eq!(e.path().to_string(), "header.RequestHeader.correlation_id");
    // Oversized prefix: rejected from the prefix alone.
    let frame = hex("7fffffff 0012");
    let e =
        RequestFrame::decode_header(&frame, &DecodeOptions::from_max_frame_size(1024)).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::LimitExceeded {
            limit: kafka_wire::Limit::FrameSize,
            ..
        }
    ));
}
