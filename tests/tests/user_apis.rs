//! What a first user of the library writes: owned string and records conversions, slice
//! decoding, one argument order for the frame encoders.

use kafka_wire::frame;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{Bytes, KafkaMessage, Records, RequestHeader, ResponseHeader, Str};
use kafka_wire_messages::{ApiVersionsRequest, ApiVersionsResponse};

/// Compiles only if a `&str` of any lifetime can become a `Str` (the E0521 a user hit).
fn name_of(s: &str) -> Str {
    Str::copy_from(s)
}

#[test]
fn owned_strings_and_records() {
    let owned = String::from("topic-1");
    assert_eq!(name_of(&owned), "topic-1");
    assert_eq!(Str::from(&owned), "topic-1");
    assert_eq!(Str::from(owned.clone()), "topic-1");
    assert_eq!(Str::from(owned.into_boxed_str()), "topic-1");

    let r = Records::from(vec![1u8, 2, 3]);
    assert_eq!(r.0, Bytes::from_static(&[1, 2, 3]));
    assert_eq!(Records::from(Bytes::from_static(b"ab")).0.len(), 2);
    assert_eq!(
        Bytes::from(Records::from(&b"xyz"[..])),
        Bytes::from_static(b"xyz")
    );
}

#[test]
fn decode_from_a_borrowed_slice() {
    // ApiVersions v0 response body laid out by hand from ApiVersionsResponse.json: error 0,
    // one (api_key 18, min 0, max 3) entry.
    let body: &[u8] = b"\x00\x00\x00\x00\x00\x01\x00\x12\x00\x00\x00\x03";
    let resp = ApiVersionsResponse::decode_exact_slice(body, 0).unwrap();
    assert_eq!(resp.api_keys.len(), 1);
    assert_eq!(resp.api_keys[0].max_version, 3);
    assert_eq!(resp.encode_to_bytes(0).unwrap(), body);
}

#[test]
fn frame_encoders_take_destination_header_version_body() {
    // ApiVersions v0 request, correlation id 1, client id "a": header v1, empty body.
    let expected: &[u8] = b"\x00\x00\x00\x0b\x00\x12\x00\x00\x00\x00\x00\x01\x00\x01a";
    let header = RequestHeader::new(18, 0, 1, Some("a".into()));
    let mut buf = Vec::new();
    frame::encode_request(&mut buf, &header, &ApiVersionsRequest::default()).unwrap();
    assert_eq!(buf, expected);
    let mut w = Vec::new();
    frame::write_request(&mut w, &header, &ApiVersionsRequest::default()).unwrap();
    assert_eq!(w, expected);

    // Its v0 response, correlation id 1: header v0, error 0, empty array.
    let expected: &[u8] = b"\x00\x00\x00\x0a\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00";
    let mut buf = Vec::new();
    let rh = ResponseHeader::new(1);
    frame::encode_response(&mut buf, &rh, 0, &ApiVersionsResponse::default()).unwrap();
    assert_eq!(buf, expected);
    let mut w = Vec::new();
    frame::write_response(&mut w, &rh, 0, &ApiVersionsResponse::default()).unwrap();
    assert_eq!(w, expected);
    let (h, _) =
        frame::decode_response::<ApiVersionsResponse>(&Bytes::from(w), 0, &DecodeOptions::DEFAULT)
            .unwrap()
            .frame;
    assert_eq!(h.correlation_id, 1);
}

#[test]
fn out_of_range_version_names_the_struct_once() {
    // ApiVersions requests exist at v0-v4 only (ApiVersionsRequest.json).
    let e = ApiVersionsRequest::default().encode_to_vec(9).unwrap_err();
    assert_eq!(e.to_string(), "can't write version 9 of ApiVersionsRequest");
    let e = ApiVersionsRequest::decode_exact_slice(b"", 9).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unsupported version 9 of ApiVersionsRequest at byte 0"
    );
}
