//! `DecodeOptions`: limits and the opt-in acceptance of bytes left after a frame's body
//! (Java's `AbstractResponse.parseResponse` and `RequestContext.parseRequest` never look past
//! the body; strict decoding, the default, rejects them). Frames are laid out by hand from
//! Kafka's HeartbeatResponse.json and ApiVersionsRequest.json.

use kafka_wire::frame::DecodeOptions;
use kafka_wire::{Bytes, DecodeErrorKind, DecodeLimits, Limit};
use kafka_wire_messages::{ApiKey, RequestBody, RequestFrame, ResponseBody, ResponseFrame};

fn hex(s: &str) -> Bytes {
    Bytes::from(kafka_wire_tests::hex(s))
}

/// HeartbeatResponse v0 (header v0: correlation id 5; body: error_code 27), then `extra`
/// bytes inside the frame.
fn heartbeat_response(extra: &str) -> Bytes {
    let extra_len = extra.split_whitespace().collect::<String>().len() / 2;
    hex(&format!("{:08x} 00000005 001b {extra}", 6 + extra_len))
}

/// ApiVersionsRequest v0 (header v1: key 18, version 0, correlation id 9, client id "ab"; no
/// body fields), then `extra` bytes inside the frame.
fn api_versions_request(extra: &str) -> Bytes {
    let extra_len = extra.split_whitespace().collect::<String>().len() / 2;
    hex(&format!(
        "{:08x} 0012 0000 00000009 0002 6162 {extra}",
        12 + extra_len
    ))
}

#[test]
fn strict_is_the_default_and_names_the_trailing_bytes() {
    let frame = heartbeat_response("00");
    let e =
        ResponseFrame::decode(&frame, ApiKey::Heartbeat, 0, &DecodeOptions::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes(1));
    assert_eq!(e.offset(), 10);
    assert_eq!(e.path().to_string(), "frame");
    let e =
        ResponseFrame::decode(&frame, ApiKey::Heartbeat, 0, &DecodeOptions::default()).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes(1));

    let e =
        RequestFrame::decode(&api_versions_request("ff ff"), &DecodeOptions::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes(2));
    assert_eq!(e.offset(), 16);
}

#[test]
fn lenient_decoding_reports_the_ignored_bytes() {
    let lenient = DecodeOptions::new().with_trailing_bytes(true);
    let d =
        ResponseFrame::decode(&heartbeat_response("00"), ApiKey::Heartbeat, 0, &lenient).unwrap();
    assert_eq!(d.trailing_bytes, 1);
    assert_eq!(d.frame.header.correlation_id, 5);
    let ResponseBody::Heartbeat(body) = &d.frame.body else {
        panic!("not a heartbeat: {:?}", d.frame.body)
    };
    assert_eq!(body.error_code, 27);
    // Re-encoding gives the frame without the ignored bytes.
    assert_eq!(d.frame.to_vec().unwrap(), &heartbeat_response("")[..]);

    // Nothing extra: 0 ignored, and the same frame as strict decoding gives.
    let exact = heartbeat_response("");
    let d = ResponseFrame::decode(&exact, ApiKey::Heartbeat, 0, &lenient).unwrap();
    assert_eq!(d.trailing_bytes, 0);
    assert_eq!(
        d.frame,
        ResponseFrame::decode(&exact, ApiKey::Heartbeat, 0, &DecodeOptions::DEFAULT)
            .unwrap()
            .frame
    );

    let d = RequestFrame::decode(&api_versions_request("ff ff 00"), &lenient).unwrap();
    assert_eq!(d.trailing_bytes, 3);
    assert_eq!(d.frame.header.correlation_id, 9);
    assert!(matches!(d.frame.body, RequestBody::ApiVersions(_)));
}

#[test]
fn lenient_decoding_still_rejects_what_is_not_trailing() {
    let lenient = DecodeOptions::new().with_trailing_bytes(true);
    // Bytes beyond the size prefix belong to no frame.
    let mut longer = heartbeat_response("").to_vec();
    longer.push(0);
    let e =
        ResponseFrame::decode(&Bytes::from(longer), ApiKey::Heartbeat, 0, &lenient).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes(1));
    // A body cut short is still truncated.
    let e = ResponseFrame::decode(&hex("00000005 00000005 00"), ApiKey::Heartbeat, 0, &lenient)
        .unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::Truncated { .. }), "{e}");
}

#[test]
fn options_carry_the_limits() {
    // The frame size limit.
    let small = DecodeOptions::from(DecodeLimits::new().max_frame_size(11));
    let e = RequestFrame::decode(&api_versions_request(""), &small).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            DecodeErrorKind::LimitExceeded {
                limit: kafka_wire::Limit::FrameSize,
                value: 12,
                max: 11
            }
        ),
        "{e}"
    );
    // The other limits reach the header and body: client id "ab" is two bytes.
    let short = DecodeOptions::new()
        .with_limits(DecodeLimits::new().max_string_len(1))
        .with_trailing_bytes(true);
    let e = RequestFrame::decode(&api_versions_request("00"), &short).unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LimitExceeded {
            limit: Limit::StringLen,
            value: 2,
            max: 1
        }
    );
    assert_eq!(e.path().to_string(), "header.RequestHeader.client_id");
    // from_max_frame_size is the strict default with that frame size.
    let e = RequestFrame::decode(
        &api_versions_request(""),
        &DecodeOptions::from_max_frame_size(11),
    )
    .unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::LimitExceeded {
            limit: kafka_wire::Limit::FrameSize,
            ..
        }
    ));
    assert!(RequestFrame::decode(&api_versions_request(""), &DecodeOptions::DEFAULT).is_ok());
}
