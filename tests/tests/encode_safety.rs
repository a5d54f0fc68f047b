//! Encoding never panics and never leaves part of a message behind: the room in a bounded
//! buffer is checked against the exact size first, a growable buffer is restored on error,
//! and every length is checked against the maximum of its prefix.

use bytes::{BufMut, Bytes, BytesMut};
use kafka_wire::frame;
use kafka_wire::{EncodeErrorKind, KafkaMessage, RequestHeader, Str, UnknownTaggedFields};
use kafka_wire_messages::*;

fn request() -> TxnOffsetCommitRequest {
    TxnOffsetCommitRequest {
        transactional_id: "txn".into(),
        group_id: "group".into(),
        topics: vec![TxnOffsetCommitRequestTopic {
            name: "topic".into(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn a_buffer_one_byte_short_is_an_error_with_nothing_written() {
    let m = request();
    for v in 0..=6 {
        let n = m.encoded_size(v);
        let mut buf = vec![0xaau8; n - 1];
        let mut dst = &mut buf[..];
        let e = m.encode(&mut dst, v).unwrap_err();
        assert_eq!(
            e.kind(),
            &EncodeErrorKind::BufferTooSmall {
                needed: n,
                available: n - 1
            }
        );
        assert!(buf.iter().all(|&b| b == 0xaa), "v{v}: bytes were written");
        // Exactly the size fits, and gives the same bytes as a vector.
        let mut buf = vec![0u8; n];
        let mut dst = &mut buf[..];
        m.encode(&mut dst, v).unwrap();
        assert!(dst.is_empty());
        assert_eq!(buf, m.encode_to_vec(v).unwrap());
        // A `Limit` reports its room the same way.
        let mut limited = BytesMut::new().limit(n - 1);
        assert!(m.encode(&mut limited, v).is_err());
        assert!(limited.get_ref().is_empty());
    }
}

#[test]
fn a_frame_into_eight_bytes_is_an_error_not_a_panic() {
    let header = RequestHeader::new(28, 3, 7, Some("client".into()));
    let mut buf = [0u8; 8];
    let e = frame::encode_request(&mut &mut buf[..], &header, &request()).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            EncodeErrorKind::BufferTooSmall { available: 8, .. }
        ),
        "{e}"
    );
    assert_eq!(buf, [0; 8]);
    let f = RequestFrame::new(7, Some("client".into()), 3, request());
    assert!(f.encode(&mut &mut buf[..]).is_err());
    assert_eq!(buf, [0; 8]);
    let resp = ResponseFrame::new(7, 3, TxnOffsetCommitResponse::default());
    assert!(resp.encode(&mut &mut buf[..]).is_err());
    assert_eq!(buf, [0; 8]);
}

#[test]
fn a_failed_append_restores_the_buffer() {
    // A string over Kafka's 32767-byte limit fails in the middle of the message.
    let mut m = request();
    m.topics.push(TxnOffsetCommitRequestTopic {
        name: Str::from("x".repeat(0x8000)),
        ..Default::default()
    });
    let mut v = b"kept".to_vec();
    let e = m.encode_append(&mut v, 3).unwrap_err();
    assert_eq!(e.kind(), &EncodeErrorKind::StringTooLong(0x8000));
    assert_eq!(v, b"kept");
    let mut b = BytesMut::from(&b"kept"[..]);
    assert!(m.encode_append(&mut b, 3).is_err());
    assert_eq!(&b[..], b"kept");
    // And a successful append adds exactly the encoding.
    let ok = request();
    ok.encode_append(&mut v, 3).unwrap();
    assert_eq!(&v[4..], &ok.encode_to_vec(3).unwrap()[..]);
}

/// The size of an unknown tagged field is an unsigned varint that Kafka reads into an int32:
/// a payload above 2^31 - 1 bytes is an error, not a truncated size. (The 2 GiB payload is a
/// zeroed allocation that is never written to, so the pages are never touched.)
#[test]
fn an_unknown_tagged_payload_over_the_int32_maximum_is_an_error() {
    let big = Bytes::from(vec![0u8; i32::MAX as usize + 1]);
    let mut unknown = UnknownTaggedFields::new();
    unknown.push(9, big);
    let m = TxnOffsetCommitRequestTopic {
        name: "t".into(),
        unknown_tagged_fields: unknown,
        ..Default::default()
    };
    let mut out = Vec::new();
    let e = m.encode_append(&mut out, 3).unwrap_err();
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::LengthTooLarge(i32::MAX as usize + 1)
    );
    assert!(out.is_empty());
}

#[test]
fn encoded_size_at_a_version_the_message_lacks() {
    let m = request();
    // TxnOffsetCommit requests have versions 0 to 6 here; v9 does not exist: encode fails,
    // encoded_size is 0 and try_encoded_size says why.
    assert!(m.encode_to_vec(9).is_err());
    assert_eq!(m.encoded_size(9), 0);
    assert_eq!(m.encoded_size(-1), 0);
    let e = m.try_encoded_size(9).unwrap_err();
    assert!(matches!(
        e.kind(),
        EncodeErrorKind::UnsupportedVersion { version: 9, .. }
    ));
    assert_eq!(m.try_encoded_size(3).unwrap(), m.encoded_size(3));
}

/// Messages whose encode fails deep inside, after many bytes would have been written.
fn failing_late() -> Vec<(
    &'static str,
    RequestBody,
    ResponseBody,
    i16,
    EncodeErrorKind,
)> {
    // A string over 32767 bytes in the last partition of the last topic.
    let mut txn = TxnOffsetCommitRequest {
        transactional_id: "txn".into(),
        group_id: "group".into(),
        topics: vec![
            TxnOffsetCommitRequestTopic {
                name: "topic".into(),
                partitions: vec![Default::default(); 3],
                ..Default::default()
            };
            3
        ],
        ..Default::default()
    };
    txn.topics[2].partitions[2].committed_metadata = Some(Str::from("x".repeat(0x8000)));
    // An unknown tag reusing a declared one (1: `current_leader`) in the last partition of
    // the last topic of a Fetch v12 response.
    let mut fetch = FetchResponse {
        responses: vec![
            FetchableTopicResponse {
                topic: "t".into(),
                partitions: vec![Default::default(); 2],
                ..Default::default()
            };
            2
        ],
        ..Default::default()
    };
    fetch.responses[1].partitions[1]
        .unknown_tagged_fields
        .push(1, Bytes::from_static(b"x"));
    // Null where Metadata v0 does not allow it (its topics are nullable from v1).
    let metadata = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    vec![
        (
            "long string",
            txn.into(),
            TxnOffsetCommitResponse::default().into(),
            3,
            EncodeErrorKind::StringTooLong(0x8000),
        ),
        (
            "raw tag collision",
            FetchRequest::default().into(),
            fetch.into(),
            12,
            EncodeErrorKind::RawTagCollides(1),
        ),
        (
            "null",
            metadata.into(),
            MetadataResponse::default().into(),
            0,
            EncodeErrorKind::NullNotAllowed { version: 0 },
        ),
    ]
}

/// Into a bounded buffer an encode is all or nothing: an error found deep inside the
/// message leaves the buffer as it was, for a message, a body and a whole frame.
#[test]
fn a_failure_deep_inside_writes_nothing_into_a_bounded_buffer() {
    for (what, req, resp, v, kind) in failing_late() {
        // Which side carries the failing message.
        let failing_req = matches!(
            req,
            RequestBody::TxnOffsetCommit(_) | RequestBody::Metadata(_)
        );
        let body_kind = kind;
        // A fixed slice, filled with a marker, with room to spare.
        let size = if failing_req {
            req.encoded_size(v)
        } else {
            resp.encoded_size(v)
        };
        let mut buf = vec![0xaau8; size + 64];
        let mut dst = &mut buf[..];
        let e = if failing_req {
            req.encode(&mut dst, v).unwrap_err()
        } else {
            resp.encode(&mut dst, v).unwrap_err()
        };
        assert_eq!(e.kind(), &body_kind, "{what}");
        assert_eq!(dst.len(), size + 64, "{what}: the slice advanced");
        assert!(buf.iter().all(|&b| b == 0xaa), "{what}: bytes were written");
        // A `Limit` over a vector, which keeps every byte written to it.
        let mut limited = BytesMut::new().limit(1 << 20);
        let e = if failing_req {
            req.encode(&mut limited, v).unwrap_err()
        } else {
            resp.encode(&mut limited, v).unwrap_err()
        };
        assert_eq!(e.kind(), &body_kind, "{what}");
        assert!(limited.get_ref().is_empty(), "{what}: bytes were written");
        // Whole frames: no size prefix or header left behind either.
        let mut limited = BytesMut::new().limit(1 << 20);
        let e = if failing_req {
            let f = RequestFrame::new(7, Some("client".into()), v, req);
            f.encode(&mut limited).unwrap_err()
        } else {
            let f = ResponseFrame::new(7, v, resp);
            f.encode(&mut limited).unwrap_err()
        };
        assert_eq!(e.kind(), &body_kind, "{what}");
        assert!(
            limited.get_ref().is_empty(),
            "{what}: a frame left bytes behind"
        );
    }
}

/// The generic frame encoders are all or nothing into a bounded buffer too.
#[test]
fn generic_frame_encoders_write_nothing_on_failure() {
    let mut m = request();
    m.topics.push(TxnOffsetCommitRequestTopic {
        name: Str::from("x".repeat(0x8000)),
        ..Default::default()
    });
    let header = RequestHeader::new(28, 3, 7, Some("client".into()));
    let mut limited = BytesMut::new().limit(1 << 20);
    let e = frame::encode_request(&mut limited, &header, &m).unwrap_err();
    assert_eq!(e.kind(), &EncodeErrorKind::StringTooLong(0x8000));
    assert!(limited.get_ref().is_empty());
    let mut resp = TxnOffsetCommitResponse::default();
    resp.unknown_tagged_fields.push(5, Bytes::from_static(b"a"));
    resp.unknown_tagged_fields.push(4, Bytes::from_static(b"b"));
    let header = kafka_wire::ResponseHeader::new(7);
    let e = frame::encode_response(&mut limited, &header, 3, &resp).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            EncodeErrorKind::UnorderedRawTag {
                tag: 4,
                previous: 5
            }
        ),
        "{e}"
    );
    assert!(limited.get_ref().is_empty());
    // And a frame that encodes is the same bytes as through a vector.
    let ok = request();
    let header = RequestHeader::new(28, 3, 7, Some("client".into()));
    frame::encode_request(&mut limited, &header, &ok).unwrap();
    let mut v = Vec::new();
    frame::encode_request(&mut v, &header, &ok).unwrap();
    assert_eq!(limited.get_ref()[..], v[..]);
}
