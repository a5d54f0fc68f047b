//! Encoding into a `BytesMut`: in place when it is empty and large (its storage lent as a
//! `Vec<u8>`), staged otherwise; all or nothing either way, the bytes those of a `Vec`
//! encode.

use bytes::{BufMut, Bytes, BytesMut};
use kafka_wire::frame::encode_request;
use kafka_wire::{EncodeErrorKind, KafkaMessage, RequestHeader, Str, UnknownTaggedFields};

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 0, request, versions = "0-2", flexible = "2+")]
struct Msg {
    #[kafka(versions = "0+")]
    id: i32,
    #[kafka(versions = "0+")]
    name: Str,
    #[kafka(versions = "0+")]
    payload: Bytes,
    unknown_tagged_fields: UnknownTaggedFields,
}

fn msg(name_len: usize, payload: usize) -> Msg {
    Msg {
        id: 7,
        name: Str::from("n".repeat(name_len)),
        payload: Bytes::from(vec![0x5a; payload]),
        unknown_tagged_fields: UnknownTaggedFields::new(),
    }
}

fn vec_encode(m: &Msg, version: i16) -> Vec<u8> {
    let mut v = Vec::new();
    m.encode(&mut v, version).unwrap();
    v
}

#[test]
fn empty_large_buffers_are_written_in_place() {
    for version in 0..=2 {
        let m = msg(5, 40_000);
        let mut buf = BytesMut::with_capacity(64 * 1024);
        let storage = buf.as_ptr();
        m.encode(&mut buf, version).unwrap();
        assert!(buf[..] == vec_encode(&m, version)[..], "v{version}");
        // Still the buffer's own allocation: lent and given back, not replaced.
        assert_eq!(buf.as_ptr(), storage);
        // Reused after `clear`, as a codec does.
        buf.clear();
        m.encode(&mut buf, version).unwrap();
        assert!(buf[..] == vec_encode(&m, version)[..]);
        assert_eq!(buf.as_ptr(), storage);
    }
}

#[test]
fn a_failed_encode_leaves_the_buffer_as_it_was() {
    let mut buf = BytesMut::with_capacity(64 * 1024);
    let err = msg(40_000, 10).encode(&mut buf, 1).unwrap_err();
    assert!(matches!(err.kind(), EncodeErrorKind::StringTooLong(40_000)));
    assert!(buf.is_empty());
    assert!(buf.capacity() >= 64 * 1024);
    // And the buffer still works.
    let m = msg(3, 20_000);
    m.encode(&mut buf, 1).unwrap();
    assert!(buf[..] == vec_encode(&m, 1)[..]);
}

#[test]
fn storage_shared_with_split_off_bytes_is_not_touched() {
    let mut buf = BytesMut::with_capacity(64 * 1024);
    buf.put_slice(b"earlier frame");
    let earlier = buf.split().freeze();
    // Empty, its storage shared with `earlier`.
    let m = msg(3, 30_000);
    m.encode(&mut buf, 2).unwrap();
    assert!(buf[..] == vec_encode(&m, 2)[..]);
    assert_eq!(&earlier[..], b"earlier frame");
}

#[test]
fn small_or_non_empty_buffers_are_staged_and_keep_their_bytes() {
    let m = msg(3, 30_000);
    let mut small = BytesMut::new();
    m.encode(&mut small, 2).unwrap();
    assert!(small[..] == vec_encode(&m, 2)[..]);

    let mut holding = BytesMut::with_capacity(128 * 1024);
    holding.put_slice(b"pending");
    m.encode(&mut holding, 2).unwrap();
    assert_eq!(&holding[..7], b"pending");
    assert!(holding[7..] == vec_encode(&m, 2)[..]);
    // A failure leaves the pending bytes alone.
    msg(40_000, 1).encode(&mut holding, 2).unwrap_err();
    assert_eq!(holding.len(), 7 + vec_encode(&m, 2).len());
}

#[test]
fn frames_too() {
    let m = msg(3, 30_000);
    let header = RequestHeader {
        request_api_key: 0,
        request_api_version: 2,
        correlation_id: 5,
        client_id: Some(Str::from("c")),
        ..Default::default()
    };
    let mut expected = Vec::new();
    encode_request(&mut expected, &header, &m).unwrap();
    let mut buf = BytesMut::with_capacity(64 * 1024);
    let storage = buf.as_ptr();
    encode_request(&mut buf, &header, &m).unwrap();
    assert!(buf[..] == expected[..]);
    assert_eq!(buf.as_ptr(), storage);
    // A failing body leaves it empty.
    buf.clear();
    encode_request(&mut buf, &header, &msg(40_000, 1)).unwrap_err();
    assert!(buf.is_empty());
}
