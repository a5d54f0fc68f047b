//! Encoding never panics and never leaves part of a message behind, into any buffer: a
//! bounded one too small for the message is an error with nothing written, a growable one
//! (`Vec<u8>`, `BytesMut`, a `BufMut` of the caller's own) is as it was after any error, and
//! every length is checked against the maximum of its prefix.

use bytes::{BufMut, Bytes, BytesMut};
use kafka_wire::frame;
use kafka_wire::{
    EncodeBuf, EncodeError, EncodeErrorKind, KafkaMessage, RequestHeader, Str, UnknownTaggedFields,
};
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

/// A failed encode leaves a growable buffer's capacity as it was, not only its bytes: a
/// message that fails after about 100 KB (its last topic name is over 32767 bytes), into an
/// empty `BytesMut` and an empty `Vec` of 64 KiB each (which grew to 128 KiB before), as a
/// message and as a frame.
#[test]
fn a_failed_encode_leaves_the_capacity_as_it_was() {
    let mut m = request();
    m.topics = (0..3000)
        .map(|i| TxnOffsetCommitRequestTopic {
            name: Str::from(format!("topic-{i:05}-{}", "x".repeat(20))),
            ..Default::default()
        })
        .collect();
    m.topics.push(TxnOffsetCommitRequestTopic {
        name: Str::from("y".repeat(40_000)),
        ..Default::default()
    });
    let header = RequestHeader::new(28, 3, 7, Some("client".into()));
    let mut bytes = BytesMut::with_capacity(64 * 1024);
    let cap = bytes.capacity();
    assert!(m.encode(&mut bytes, 3).is_err());
    assert!(frame::encode_request(&mut bytes, &header, &m).is_err());
    assert!(bytes.is_empty());
    assert_eq!(bytes.capacity(), cap, "BytesMut");
    let mut vec: Vec<u8> = Vec::with_capacity(64 * 1024);
    let cap = vec.capacity();
    assert!(m.encode(&mut vec, 3).is_err());
    assert!(frame::encode_request(&mut vec, &header, &m).is_err());
    assert!(vec.is_empty());
    assert_eq!(vec.capacity(), cap, "Vec<u8>");
    // Without the long name it encodes, past 64 KiB.
    m.topics.pop();
    assert!(m.encode_to_vec(3).unwrap().len() > 64 * 1024);
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

/// A Fetch v12 response with an unknown tag reusing a declared one (1: `current_leader`) in
/// the last partition of its last topic: an encode error found after most of the bytes.
fn fetch_with_a_colliding_tag() -> FetchResponse {
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
    fetch
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
    let fetch = fetch_with_a_colliding_tag();
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

// ---- no partial output into a growable buffer ---------------------------------------------

/// A message whose encode fails after many bytes would have been written, with the error it
/// must give and where.
struct Late {
    what: &'static str,
    body: Body,
    version: i16,
    kind: EncodeErrorKind,
    /// The path from the message's root.
    path: &'static str,
}

// A handful of values built once per test: their size does not matter.
#[allow(clippy::large_enum_variant)]
enum Body {
    Req(RequestBody),
    Resp(ResponseBody),
}

/// One case per way an encode can fail, each in a nested struct (or a field) after bytes of
/// the message were already written: a string over 32767 bytes, null where the version is
/// not nullable, a non-default value in a non-ignorable field the version lacks, an unknown
/// tag reusing a declared one, unknown tags out of order or at a non-flexible version, and an
/// unknown tagged payload over the int32 maximum. The kinds and paths follow Java's generated
/// writers (`MessageDataGenerator`: the 32767 limit, `UnsupportedVersionException` for the
/// absent field and null), not this crate's output.
fn late_failures() -> Vec<Late> {
    let topics = |n: usize| {
        vec![
            TxnOffsetCommitRequestTopic {
                name: "topic".into(),
                partitions: vec![
                    TxnOffsetCommitRequestPartition {
                        partition_index: 1,
                        committed_offset: 99,
                        committed_metadata: Some("m".into()),
                        ..Default::default()
                    };
                    3
                ],
                ..Default::default()
            };
            n
        ]
    };
    let txn = |topics| TxnOffsetCommitRequest {
        transactional_id: "txn".into(),
        group_id: "group".into(),
        producer_id: 5,
        topics,
        ..Default::default()
    };
    let mut long = txn(topics(3));
    long.topics[2].partitions[2].committed_metadata = Some(Str::from("x".repeat(0x8000)));
    // Metadata v11 has no null topic names (nullable from v12).
    let metadata = MetadataResponse {
        brokers: vec![MetadataResponseBroker {
            node_id: 1,
            host: "broker-1".into(),
            port: 9092,
            ..Default::default()
        }],
        topics: vec![
            MetadataResponseTopic {
                name: Some("a".into()),
                ..Default::default()
            },
            MetadataResponseTopic {
                name: None,
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    // GenerationId is not ignorable and TxnOffsetCommit v2 has none: only its default, -1,
    // can be left out.
    let absent = TxnOffsetCommitRequest {
        generation_id_or_member_epoch: 5,
        ..txn(topics(1))
    };
    let fetch = fetch_with_a_colliding_tag();
    let mut unordered = txn(topics(2));
    let tags = &mut unordered.topics[1].partitions[2].unknown_tagged_fields;
    tags.push(5, Bytes::from_static(b"a"));
    tags.push(4, Bytes::from_static(b"b"));
    let mut classic = txn(topics(2));
    classic.topics[1]
        .unknown_tagged_fields
        .push(0, Bytes::from_static(b"a"));
    // A zeroed allocation that is never written to: its pages are never touched.
    let mut huge = txn(topics(2));
    huge.topics[1]
        .unknown_tagged_fields
        .push(9, Bytes::from(vec![0u8; i32::MAX as usize + 1]));
    vec![
        Late {
            what: "string over 32767 bytes",
            body: Body::Req(long.into()),
            version: 3,
            kind: EncodeErrorKind::StringTooLong(0x8000),
            path: "TxnOffsetCommitRequest.topics[2].partitions[2].committed_metadata",
        },
        Late {
            what: "null where the version is not nullable",
            body: Body::Resp(metadata.into()),
            version: 11,
            kind: EncodeErrorKind::NullNotAllowed { version: 11 },
            path: "MetadataResponse.topics[1].name",
        },
        Late {
            what: "non-default value in a field the version lacks",
            body: Body::Req(absent.into()),
            version: 2,
            kind: EncodeErrorKind::NonDefaultAbsentField { version: 2 },
            path: "TxnOffsetCommitRequest.generation_id_or_member_epoch",
        },
        Late {
            what: "unknown tag colliding with a declared one",
            body: Body::Resp(fetch.into()),
            version: 12,
            kind: EncodeErrorKind::RawTagCollides(1),
            path: "FetchResponse.responses[1].partitions[1].unknown_tagged_fields",
        },
        Late {
            what: "unknown tags out of order",
            body: Body::Req(unordered.into()),
            version: 3,
            kind: EncodeErrorKind::UnorderedRawTag {
                tag: 4,
                previous: 5,
            },
            path: "TxnOffsetCommitRequest.topics[1].partitions[2].unknown_tagged_fields",
        },
        Late {
            what: "unknown tags at a non-flexible version",
            body: Body::Req(classic.into()),
            version: 2,
            kind: EncodeErrorKind::TaggedFieldsNotSupported { version: 2 },
            path: "TxnOffsetCommitRequest.topics[1].unknown_tagged_fields",
        },
        Late {
            what: "unknown tagged payload over the int32 maximum",
            body: Body::Req(huge.into()),
            version: 3,
            kind: EncodeErrorKind::LengthTooLarge(i32::MAX as usize + 1),
            path: "TxnOffsetCommitRequest.topics[1].unknown_tagged_fields",
        },
    ]
}

/// Calls `$f` with the typed message inside a body (the variants `late_failures` uses).
macro_rules! typed {
    ($body:expr, |$m:ident| $f:expr) => {
        match $body {
            Body::Req(RequestBody::TxnOffsetCommit($m)) => $f,
            Body::Resp(ResponseBody::Metadata($m)) => $f,
            Body::Resp(ResponseBody::Fetch($m)) => $f,
            _ => unreachable!("a variant late_failures does not use"),
        }
    };
}

impl Body {
    /// Every encode entry point into `buf`, each with the path prefix its errors carry.
    fn encode_all<B: EncodeBuf>(&self, buf: &mut B, v: i16) -> Vec<(&'static str, EncodeError)> {
        let mut errs = Vec::new();
        let mut push = |entry, r: Result<(), EncodeError>| {
            errs.push((entry, r.expect_err("the encode succeeded")));
        };
        push("", typed!(self, |m| m.encode(&mut *buf, v)));
        match self {
            Body::Req(b) => {
                push("", b.encode(&mut *buf, v));
                let f = RequestFrame::new(7, Some("client".into()), v, b.clone());
                push("body.", f.encode(&mut *buf));
                let h = RequestHeader::new(b.api_key().key(), v, 7, Some("client".into()));
                push(
                    "body.",
                    typed!(self, |m| frame::encode_request(&mut *buf, &h, m)),
                );
            }
            Body::Resp(b) => {
                push("", b.encode(&mut *buf, v));
                push(
                    "body.",
                    ResponseFrame::new(7, v, b.clone()).encode(&mut *buf),
                );
                let h = kafka_wire::ResponseHeader::new(7);
                push(
                    "body.",
                    typed!(self, |m| frame::encode_response(&mut *buf, &h, v, m)),
                );
            }
        }
        errs
    }
}

/// A growable buffer of the caller's own that nothing can shorten: bytes' `Chain` of a
/// four-byte slice and a vector, neither a `Vec` nor a `BytesMut`, reporting room near
/// `usize::MAX` as any growable `BufMut` does. (A `BufMut` written from scratch needs
/// `unsafe impl`; this one needs none, and the runtime declares it an `EncodeBuf`.)
type Own<'a> = bytes::buf::Chain<&'a mut [u8], Vec<u8>>;

/// On any error, nothing is written, into any buffer: a `Vec<u8>`, a `BytesMut` and a
/// growable `BufMut` of the caller's own, through every encode entry point (message, body,
/// both frame encoders), each holding bytes before the call that must be left as they were;
/// the error names the same kind and path as the message's own encode.
#[test]
fn a_failure_deep_inside_writes_nothing_into_a_growable_buffer() {
    for case in late_failures() {
        let (what, v) = (case.what, case.version);
        let check = |errs: Vec<(&str, EncodeError)>, buffer: &str| {
            assert_eq!(errs.len(), 4, "{what}");
            for (prefix, e) in errs {
                assert_eq!(e.kind(), &case.kind, "{what} into {buffer}");
                assert_eq!(
                    e.path().to_string(),
                    format!("{prefix}{}", case.path),
                    "{what} into {buffer}"
                );
            }
        };

        let mut vec = b"kept".to_vec();
        check(case.body.encode_all(&mut vec, v), "Vec<u8>");
        assert_eq!(vec, b"kept", "{what}: a Vec<u8> was written to");

        let mut bytes = BytesMut::from(&b"kept"[..]);
        check(case.body.encode_all(&mut bytes, v), "BytesMut");
        assert_eq!(&bytes[..], b"kept", "{what}: a BytesMut was written to");

        let mut head = *b"head";
        let mut own: Own<'_> = (&mut head[..]).chain_mut(b"kept".to_vec());
        assert!(own.remaining_mut() > usize::MAX / 4, "growable");
        check(case.body.encode_all(&mut own, v), "a BufMut of its own");
        let (first, second) = own.into_inner();
        assert_eq!(first.len(), 4, "{what}: the slice advanced");
        assert_eq!(second, b"kept", "{what}: the vector was written to");
        assert_eq!(head, *b"head", "{what}: the slice was written to");

        // `encode_append`, typed and through the body enums.
        let mut vec = b"kept".to_vec();
        let mut bytes = BytesMut::from(&b"kept"[..]);
        let errs = [
            typed!(&case.body, |m| m.encode_append(&mut vec, v)),
            typed!(&case.body, |m| m.encode_append(&mut bytes, v)),
            match &case.body {
                Body::Req(b) => b.encode_append(&mut vec, v),
                Body::Resp(b) => b.encode_append(&mut vec, v),
            },
        ];
        for e in errs {
            let e = e.expect_err("the append succeeded");
            assert_eq!(e.kind(), &case.kind, "{what}");
            assert_eq!(e.path().to_string(), case.path, "{what}");
        }
        assert_eq!(vec, b"kept", "{what}");
        assert_eq!(&bytes[..], b"kept", "{what}");
    }
}

/// The same entry points, on the same messages made valid, write exactly the message's
/// bytes after what the buffer held, into every kind of buffer.
#[test]
fn a_success_appends_the_same_bytes_into_every_buffer() {
    let m = TxnOffsetCommitRequest {
        transactional_id: "txn".into(),
        group_id: "group".into(),
        topics: vec![TxnOffsetCommitRequestTopic {
            name: "topic".into(),
            partitions: vec![Default::default(); 2],
            ..Default::default()
        }],
        ..Default::default()
    };
    for v in 0..=6 {
        let expected = m.encode_to_vec(v).unwrap();
        assert_eq!(expected.len(), m.encoded_size(v));
        let mut vec = b"kept".to_vec();
        m.encode(&mut vec, v).unwrap();
        m.encode_append(&mut vec, v).unwrap();
        assert_eq!(vec, [&b"kept"[..], &expected, &expected].concat());
        let mut bytes = BytesMut::from(&b"kept"[..]);
        m.encode(&mut bytes, v).unwrap();
        m.encode_append(&mut bytes, v).unwrap();
        assert_eq!(&bytes[..], [&b"kept"[..], &expected, &expected].concat());
        let mut head = [0u8; 4];
        let mut own: Own<'_> = (&mut head[..]).chain_mut(Vec::new());
        m.encode(&mut own, v).unwrap();
        let (_, rest) = own.into_inner();
        assert_eq!([&head[..], &rest].concat(), expected);
    }
}
