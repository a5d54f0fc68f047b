//! The metadata-driven codec's frames (`dynamic::encode_frame_into`) and the typed frames
//! (`RequestFrame`/`ResponseFrame::encode`) are assembled by one function, so they must
//! agree into every kind of buffer: the same bytes after what the buffer held, the same
//! `BufferTooSmall` with nothing written when the buffer is one byte short, and, when a value
//! fails deep inside the body, the same error with the buffer exactly as it was. Every API,
//! both sides, every version, with generated values (`kafka_wire_tests::gen`).
//!
//! The failing values follow Java's generated writers (`MessageDataGenerator`): a string over
//! 32767 bytes, a null where the version has none, an unknown tag reusing a declared one.

use bytes::{BufMut, Bytes, BytesMut};
use kafka_wire::dynamic::{self, Frame, StructValue, Value};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{ApiKind, EncodeBuf, EncodeError, EncodeErrorKind, KafkaType, Str, Version};
use kafka_wire_messages::*;
use kafka_wire_tests::cases::{all_cases, generated_frame, Case};
use kafka_wire_tests::gen::Generator;

/// A typed frame of either side (a few per test: their size does not matter).
#[allow(clippy::large_enum_variant)]
enum Typed {
    Req(RequestFrame),
    Resp(ResponseFrame),
}

impl Typed {
    fn encode<B: EncodeBuf + ?Sized>(&self, buf: &mut B) -> Result<(), EncodeError> {
        match self {
            Typed::Req(f) => f.encode(buf),
            Typed::Resp(f) => f.encode(buf),
        }
    }
}

/// The typed frame that `bytes` (a whole frame of `case`) decodes to.
fn typed_of(case: Case, bytes: &[u8]) -> Typed {
    let buf = Bytes::copy_from_slice(bytes);
    match case.kind {
        ApiKind::Request => Typed::Req(
            RequestFrame::decode(&buf, &DecodeOptions::DEFAULT)
                .unwrap()
                .frame,
        ),
        ApiKind::Response => Typed::Resp(
            ResponseFrame::decode(&buf, case.api, case.version, &DecodeOptions::DEFAULT)
                .unwrap()
                .frame,
        ),
    }
}

/// A growable buffer that is neither a `Vec` nor a `BytesMut`, so it is staged: bytes'
/// `Chain` of a four-byte slice and a vector.
type Own<'a> = bytes::buf::Chain<&'a mut [u8], Vec<u8>>;

type Res = Result<(), EncodeError>;

/// What one way of encoding a frame did to each kind of buffer: its result (`Ok`, or the
/// error's kind and path) and what the buffer holds afterwards.
#[derive(Debug, PartialEq)]
struct Outcome {
    results: Vec<Result<(), (EncodeErrorKind, String)>>,
    buffers: Vec<Vec<u8>>,
}

/// Encodes with `encode` into a `Vec<u8>` and a `BytesMut` (both holding `kept`), a buffer
/// of the caller's own, and a slice and a `Limit` of `room` bytes (the slice filled with a
/// marker), and records what each holds afterwards.
fn outcome(room: usize, encode: &dyn Fn(&mut dyn EncodeBuf) -> Res) -> Outcome {
    let mut results = Vec::new();
    let mut record = |r: Res| results.push(r.map_err(|e| (e.kind().clone(), e.path().to_string())));
    let mut vec = b"kept".to_vec();
    record(encode(&mut vec));
    let mut bytes = BytesMut::from(&b"kept"[..]);
    record(encode(&mut bytes));
    let mut head = *b"head";
    let mut own: Own<'_> = (&mut head[..]).chain_mut(b"kept".to_vec());
    record(encode(&mut own));
    let (_, own_rest) = own.into_inner();
    let mut slice = vec![0xaau8; room];
    let mut dst = &mut slice[..];
    record(encode(&mut dst));
    let left = dst.len();
    let mut limited = BytesMut::new().limit(room);
    record(encode(&mut limited));
    let mut own_all = head.to_vec();
    own_all.extend_from_slice(&own_rest);
    // How far the slice advanced, so that a write is seen even if it wrote the marker.
    let mut slice_state = slice;
    slice_state.extend_from_slice(&left.to_be_bytes());
    Outcome {
        results,
        buffers: vec![
            vec,
            bytes.to_vec(),
            own_all,
            slice_state,
            limited.into_inner().to_vec(),
        ],
    }
}

/// The same frame through both codecs into every kind of buffer with `room` bytes for the
/// bounded ones: the outcomes must be identical.
fn same_outcome(case: Case, what: &str, frame: &Frame, typed: &Typed, room: usize) -> Outcome {
    let dynamic = outcome(room, &|buf| dynamic::encode_frame_into(buf, frame));
    let typed = outcome(room, &|buf| typed.encode(buf));
    assert_eq!(
        dynamic, typed,
        "{case} {what}: the two codecs' frames differ"
    );
    dynamic
}

/// Every API, both sides, every version, two generated values each (one with every allowed
/// null): the metadata-driven and the typed frame write the same bytes after what each
/// buffer held, fill a slice of exactly their size, and into one byte less fail alike with
/// `BufferTooSmall` and nothing written.
#[test]
fn both_codecs_assemble_the_same_frame_into_every_buffer() {
    let mut frames = 0;
    for case in all_cases() {
        for seed in 0..2 {
            let frame = generated_frame(case, &mut Generator::new(seed));
            let bytes = dynamic::encode_frame(&frame).unwrap();
            let typed = typed_of(case, &bytes);
            let n = bytes.len();
            let ok = same_outcome(case, "exact room", &frame, &typed, n);
            assert!(
                ok.results.iter().all(Result::is_ok),
                "{case}: {:?}",
                ok.results
            );
            let kept = [&b"kept"[..], &bytes].concat();
            assert_eq!(ok.buffers[0], kept, "{case}: Vec");
            assert_eq!(ok.buffers[1], kept, "{case}: BytesMut");
            // The chain's slice takes the first four bytes, its vector the rest after `kept`.
            let own = [&bytes[..4], &b"kept"[..], &bytes[4..]].concat();
            assert_eq!(ok.buffers[2], own, "{case}: own buffer");
            assert_eq!(ok.buffers[3][..n], bytes[..], "{case}: slice");
            assert_eq!(ok.buffers[4], bytes, "{case}: Limit");

            let short = same_outcome(case, "one byte short", &frame, &typed, n - 1);
            let too_small = Err((
                EncodeErrorKind::BufferTooSmall {
                    needed: n,
                    available: n - 1,
                },
                "frame".to_owned(),
            ));
            assert_eq!(short.results[3], too_small, "{case}: slice");
            assert_eq!(short.results[4], too_small, "{case}: Limit");
            assert!(
                short.buffers[3][..n - 1].iter().all(|&b| b == 0xaa),
                "{case}"
            );
            assert!(short.buffers[4].is_empty(), "{case}: Limit written to");
            frames += 1;
        }
    }
    println!("{frames} frames through both codecs into five kinds of buffer");
    assert!(frames > 1000);
}

/// Puts a string over Kafka's 32767-byte limit into the last string the body has at
/// `version` (depth first, last field and last element first); false if it has none.
fn poison_last_string(s: &mut StructValue, version: Version) -> bool {
    let meta = s.meta;
    meta.fields
        .iter()
        .zip(s.fields.iter_mut())
        .rev()
        .filter(|(f, _)| f.versions.contains(version))
        .any(|(f, val)| poison(&f.ty, val, version))
}

fn poison(ty: &KafkaType, val: &mut Value, version: Version) -> bool {
    match (ty, val) {
        (KafkaType::String, val) => {
            *val = Value::String(Str::from("x".repeat(0x8000)));
            true
        }
        (KafkaType::Array(t), Value::Array(items)) => {
            items.iter_mut().rev().any(|x| poison(t, x, version))
        }
        (KafkaType::Struct(_), Value::Struct(s)) => poison_last_string(s, version),
        _ => false,
    }
}

/// A metadata-driven frame whose body fails after most of it was written (a string over
/// 32767 bytes, as late in the body as the message has one): every kind of buffer is as it
/// was, header and size prefix included, and the error is `StringTooLong` in the body, for
/// every API, side and version with a string.
#[test]
fn a_dynamic_frame_failing_late_leaves_every_buffer_as_it_was() {
    let (mut failed, mut without) = (0, 0);
    for case in all_cases() {
        let mut frame = generated_frame(case, &mut Generator::new(3));
        if !poison_last_string(&mut frame.body, case.version) {
            without += 1;
            continue;
        }
        let room = 1 << 17;
        let out = outcome(room, &|buf| dynamic::encode_frame_into(buf, &frame));
        for r in &out.results {
            let (kind, path) = r.clone().expect_err("the encode succeeded");
            assert_eq!(kind, EncodeErrorKind::StringTooLong(0x8000), "{case}");
            assert!(path.starts_with("body."), "{case}: {path}");
        }
        assert_eq!(out.buffers[0], b"kept", "{case}: Vec");
        assert_eq!(out.buffers[1], b"kept", "{case}: BytesMut");
        assert_eq!(out.buffers[2], b"headkept", "{case}: own buffer");
        assert!(out.buffers[3][..room].iter().all(|&b| b == 0xaa), "{case}");
        assert_eq!(
            out.buffers[3][room..],
            room.to_be_bytes(),
            "{case}: slice advanced"
        );
        assert!(out.buffers[4].is_empty(), "{case}: Limit");
        failed += 1;
    }
    println!("{failed} message versions failed late, {without} have no string");
    assert!(failed > 4 * without, "{failed} of {}", failed + without);
}

/// The same failures in a typed frame and in the metadata-driven frame of the same value:
/// identical errors (kind and path) and untouched buffers, into every kind of buffer. The
/// dynamic value is the typed frame's valid bytes decoded, then given the same fault.
#[test]
fn both_codecs_fail_alike_deep_inside_a_frame() {
    // A string over 32767 bytes in the last partition of the last topic.
    let topics = vec![
        TxnOffsetCommitRequestTopic {
            name: "topic".into(),
            partitions: vec![Default::default(); 3],
            ..Default::default()
        };
        3
    ];
    let txn = TxnOffsetCommitRequest {
        transactional_id: "txn".into(),
        group_id: "group".into(),
        topics,
        ..Default::default()
    };
    let mut long = txn.clone();
    long.topics[2].partitions[2].committed_metadata = Some(Str::from("x".repeat(0x8000)));
    let valid = RequestFrame::new(7, Some("client".into()), 3, txn);
    let failing = Typed::Req(RequestFrame::new(7, Some("client".into()), 3, long));
    check_alike(
        "string over 32767 bytes",
        valid_req(&valid),
        failing,
        |body| {
            let p = at(body, &["topics"], 2);
            let p = at(p, &["partitions"], 2);
            *p.get_rust_mut("committed_metadata").unwrap() =
                Value::String(Str::from("x".repeat(0x8000)));
        },
    );

    // Null where Metadata v11 has none (topic names are nullable from v12).
    let topic = |name: Option<&'static str>| MetadataResponseTopic {
        name: name.map(Str::from_static),
        ..Default::default()
    };
    let metadata = |second| MetadataResponse {
        topics: vec![topic(Some("a")), topic(second)],
        ..Default::default()
    };
    let valid = ResponseFrame::new(7, 11, metadata(Some("b")));
    let failing = Typed::Resp(ResponseFrame::new(7, 11, metadata(None)));
    let bytes = valid.to_vec().unwrap();
    let dynamic = dynamic::decode_response_frame(
        &Bytes::from(bytes),
        dynamic::BodySpec {
            api_key: 3,
            meta: ApiKey::Metadata.response_meta(),
            version: 11,
        },
        None,
        &DecodeOptions::DEFAULT,
    )
    .unwrap()
    .frame;
    check_alike(
        "null where the version has none",
        dynamic,
        failing,
        |body| {
            let t = at(body, &["topics"], 1);
            *t.get_rust_mut("name").unwrap() = Value::Null;
        },
    );

    // An unknown tag reusing a declared one (1, `current_leader`) in the last partition of a
    // Fetch v12 response.
    let fetch = FetchResponse {
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
    let mut colliding = fetch.clone();
    colliding.responses[1].partitions[1]
        .unknown_tagged_fields
        .push(1, Bytes::from_static(b"x"));
    let valid = ResponseFrame::new(7, 12, fetch);
    let failing = Typed::Resp(ResponseFrame::new(7, 12, colliding));
    let dynamic = dynamic::decode_response_frame(
        &Bytes::from(valid.to_vec().unwrap()),
        dynamic::BodySpec {
            api_key: 1,
            meta: ApiKey::Fetch.response_meta(),
            version: 12,
        },
        None,
        &DecodeOptions::DEFAULT,
    )
    .unwrap()
    .frame;
    check_alike(
        "unknown tag reusing a declared one",
        dynamic,
        failing,
        |body| {
            let p = at(body, &["responses"], 1);
            let p = at(p, &["partitions"], 1);
            p.unknown.push(1, Bytes::from_static(b"x"));
        },
    );
}

/// The metadata-driven frame of a valid typed request frame.
fn valid_req(f: &RequestFrame) -> Frame {
    dynamic::decode_request_frame(
        &Bytes::from(f.to_vec().unwrap()),
        |k| ApiKey::from_i16(k).map(|a| a.request_meta()),
        None,
        &DecodeOptions::DEFAULT,
    )
    .unwrap()
    .frame
}

/// The struct at index `i` of the array field `path[0]` of `s`.
fn at<'a>(s: &'a mut StructValue, path: &[&str], i: usize) -> &'a mut StructValue {
    match s.get_rust_mut(path[0]) {
        Some(Value::Array(items)) => match &mut items[i] {
            Value::Struct(s) => s,
            other => panic!("not a struct: {other:?}"),
        },
        other => panic!("not an array: {other:?}"),
    }
}

fn check_alike(what: &str, mut frame: Frame, typed: Typed, fault: impl FnOnce(&mut StructValue)) {
    fault(&mut frame.body);
    let room = 1 << 17;
    let dynamic = outcome(room, &|buf| dynamic::encode_frame_into(buf, &frame));
    let typed = outcome(room, &|buf| typed.encode(buf));
    assert_eq!(dynamic, typed, "{what}");
    assert!(
        dynamic.results.iter().all(Result::is_err),
        "{what}: {:?}",
        dynamic.results
    );
    assert_eq!(dynamic.buffers[0], b"kept", "{what}");
    assert_eq!(dynamic.buffers[2], b"headkept", "{what}");
}

/// A request frame whose header names another API or version than the frame is an error
/// naming the header field, as a typed frame whose header names another API than its body.
#[test]
fn a_request_header_that_disagrees_with_the_frame_is_an_error() {
    let valid = RequestFrame::new(7, Some("c".into()), 3, TxnOffsetCommitRequest::default());
    let mut frame = valid_req(&valid);
    *frame.header.get_rust_mut("request_api_key").unwrap() = Value::Int16(3);
    let mut typed = valid.clone();
    typed.header.request_api_key = 3;
    let typed = Typed::Req(typed);
    let d = outcome(64, &|buf| dynamic::encode_frame_into(buf, &frame));
    let t = outcome(64, &|buf| typed.encode(buf));
    assert_eq!(d, t);
    assert_eq!(
        d.results[0].clone().unwrap_err().1,
        "header.request_api_key"
    );
    let mut frame = valid_req(&valid);
    *frame.header.get_rust_mut("request_api_version").unwrap() = Value::Int16(2);
    let e = dynamic::encode_frame(&frame).unwrap_err();
    assert_eq!(e.path().to_string(), "header.request_api_version");
}

/// Errors found before the body agree between the two frame decoders: an unknown API key, a
/// version the API lacks (in a request, the header's `request_api_version`, refused before
/// the header is read; in a response, the version the caller gave). The first input is what
/// the `request_frame` fuzz target found when it began comparing the two: a DescribeLogDirs
/// request at v8, which the metadata-driven decoder refused in the body, the typed one in the
/// header. The generic `frame::decode_request::<M>`/`decode_response::<M>` agree too.
#[test]
fn frame_errors_before_the_body_agree() {
    use kafka_wire::DecodeErrorKind;
    let found = b"\x00\x00\x00\x59\x00\x23\x00\x08\x81\xbd\xfd\x9f\xff\xff\x00\x01\xff\xff\xff\xff\x06\x20\xe6\x97\xa5\x0a\x00\x02\x08\xc3\xa9\xc3\xa9\xe6\x97\xa5\x03\xff\xff\xff\xff\x0b\xba\x2d\x58\x61\x95\x5f\x1e\x00\x00\x00\x03\x01\x00\xff\xff\xff\xff\x3e\xcc\xd5\xd0\xb3\x93\xca\xcf\xa8\x4d\x97\x0b\x09\x61\xc3\xa9\x0a\xc3\xa9\xc3\xa9\x00\x00\x02\x0b\x01\xe8\xa4\x01\x04\xf1\x53\xdc\xac";
    // Metadata (3) at v99; key 999 (unassigned); both with correlation id 1 and a null
    // client id.
    let metadata_v99 = b"\x00\x00\x00\x0a\x00\x03\x00\x63\x00\x00\x00\x01\xff\xff";
    let unknown_key = b"\x00\x00\x00\x0a\x03\xe7\x00\x00\x00\x00\x00\x01\xff\xff";
    use kafka_wire::frame::{decode_request, decode_response};
    type Generic = fn(&Bytes) -> Option<kafka_wire::DecodeError>;
    let cases: [(&[u8], DecodeErrorKind, usize, &str, Generic); 3] = [
        (
            found,
            DecodeErrorKind::UnsupportedVersion {
                name: "DescribeLogDirs",
                version: 8,
            },
            6,
            "header.request_api_version",
            |b| decode_request::<DescribeLogDirsRequest>(b, &DecodeOptions::DEFAULT).err(),
        ),
        (
            metadata_v99,
            DecodeErrorKind::UnsupportedVersion {
                name: "Metadata",
                version: 99,
            },
            6,
            "header.request_api_version",
            |b| decode_request::<MetadataRequest>(b, &DecodeOptions::DEFAULT).err(),
        ),
        (
            unknown_key,
            DecodeErrorKind::UnknownApiKey(999),
            4,
            "header.request_api_key",
            |b| decode_request::<MetadataRequest>(b, &DecodeOptions::DEFAULT).err(),
        ),
    ];
    for (bytes, kind, offset, path, generic) in cases {
        let buf = Bytes::copy_from_slice(bytes);
        let typed = RequestFrame::decode(&buf, &DecodeOptions::DEFAULT).unwrap_err();
        let lookup = |k| ApiKey::from_i16(k).map(|a| a.request_meta());
        let dynamic =
            dynamic::decode_request_frame(&buf, lookup, None, &DecodeOptions::DEFAULT).unwrap_err();
        let generic = generic(&buf).expect("the generic decoder accepted it");
        for e in [typed, dynamic, generic] {
            assert_eq!(
                (e.kind(), e.offset(), e.path().to_string().as_str()),
                (&kind, offset, path),
                "{e}"
            );
        }
    }
    // A Metadata response answering a v99 request: refused at the first byte after the
    // prefix, before its header.
    let buf = Bytes::from_static(b"\x00\x00\x00\x04\x00\x00\x00\x01");
    let typed =
        ResponseFrame::decode(&buf, ApiKey::Metadata, 99, &DecodeOptions::DEFAULT).unwrap_err();
    let spec = dynamic::BodySpec {
        api_key: 3,
        meta: ApiKey::Metadata.response_meta(),
        version: 99,
    };
    let dynamic =
        dynamic::decode_response_frame(&buf, spec, None, &DecodeOptions::DEFAULT).unwrap_err();
    let generic =
        decode_response::<MetadataResponse>(&buf, 99, &DecodeOptions::DEFAULT).unwrap_err();
    for e in [typed, dynamic, generic] {
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::UnsupportedVersion {
                name: "Metadata",
                version: 99
            }
        );
        assert_eq!((e.offset(), e.path().to_string()), (4, String::new()));
    }
}
