//! Hostile input: every truncation and single-byte change of real frames decodes to `Ok` or a
//! precise error (never a panic), whatever decodes re-encodes to the same bytes, and each
//! error kind comes with the right offset and field path. The last section keeps the
//! fuzzers' findings as regression tests.
//!
//! Byte vectors here are written by hand from the wire rules (ARCHITECTURE.md) and the seed pages.

mod hostile_support;

use bytes::Bytes;
use hostile_support::*;
use kafka_wire::frame::DecodeOptions;
use kafka_wire::{
    frame, DecodeError, DecodeErrorKind, DecodeLimits, KafkaMessage, Reader, RequestHeader,
    UnknownTaggedFields,
};
use kafka_wire_messages::*;
use kafka_wire_tests::hex;

/// `(kind, offset, path)` of an error, for one-line assertions.
fn parts(e: &DecodeError) -> (DecodeErrorKind, usize, String) {
    (e.kind().clone(), e.offset(), e.path().to_string())
}

fn frame_with_size(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    out
}

// ---- 1. truncations and single-byte changes -------------------------------------------------

#[test]
fn seed_frames_decode_and_round_trip() {
    for (name, bytes) in SEED_REQUESTS {
        assert_eq!(
            u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize,
            bytes.len() - 4,
            "{name}"
        );
        check_request_frame(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (name, api, v, bytes) in SEED_RESPONSES {
        check_response_frame(*api, *v, bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// All test frames: the seeds and the corpus, as (request?, api, version, bytes, body start).
fn all_frames() -> Vec<(bool, ApiKey, i16, Vec<u8>, usize)> {
    let mut out = Vec::new();
    for (_, bytes) in SEED_REQUESTS {
        let f = check_request_frame(bytes).unwrap();
        out.push((
            true,
            f.api_key(),
            f.version(),
            bytes.to_vec(),
            request_body_start(&f),
        ));
    }
    for (_, api, v, bytes) in SEED_RESPONSES {
        let f = check_response_frame(*api, *v, bytes).unwrap();
        out.push((false, *api, *v, bytes.to_vec(), response_body_start(&f)));
    }
    for f in corpus_requests() {
        let bytes = f.to_vec().unwrap();
        check_request_frame(&bytes).unwrap();
        out.push((
            true,
            f.api_key(),
            f.version(),
            bytes,
            request_body_start(&f),
        ));
    }
    for f in corpus_responses() {
        let bytes = f.to_vec().unwrap();
        check_response_frame(f.api_key, f.version, &bytes).unwrap();
        out.push((false, f.api_key, f.version, bytes, response_body_start(&f)));
    }
    out
}

fn check_frame(request: bool, api: ApiKey, v: i16, bytes: &[u8]) -> Result<(), DecodeError> {
    if request {
        check_request_frame(bytes).map(drop)
    } else {
        check_response_frame(api, v, bytes).map(drop)
    }
}

#[test]
fn every_truncation_of_every_frame() {
    let frames = all_frames();
    // 6 seeds + 20 request and 20 response frames of the corpus.
    assert_eq!(frames.len(), 46);
    let mut oks = 0;
    for (request, api, v, bytes, body_at) in &frames {
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            // As received: the size prefix no longer matches.
            let e = check_frame(*request, *api, *v, cut).unwrap_err();
            assert!(
                matches!(e.kind(), DecodeErrorKind::Truncated { .. }),
                "{api} v{v} cut at {len}: {e}"
            );
            // With the prefix rewritten to fit: the header and body decoders see the cut.
            oks += usize::from(check_frame(*request, *api, *v, &refit(cut)).is_ok());
            // The body alone, cut.
            if len >= *body_at {
                oks += usize::from(check_api_body(*api, *request, *v, &cut[*body_at..]).is_ok());
            }
        }
    }
    // A cut frame never decodes: every message ends with a field that is not optional.
    assert_eq!(oks, 0);
}

#[test]
fn every_single_byte_change_of_the_seed_frames() {
    let mut oks = 0;
    let mut errs = 0;
    for (request, api, v, bytes, body_at) in all_frames().into_iter().take(6) {
        for pos in 0..bytes.len() {
            for b in 0..=255u8 {
                if b == bytes[pos] {
                    continue;
                }
                let mut m = bytes.clone();
                m[pos] = b;
                match check_frame(request, api, v, &m) {
                    Ok(()) => oks += 1,
                    Err(_) => errs += 1,
                }
                // The changed body alone, at the seed's version.
                if pos >= body_at {
                    let _ = check_api_body(api, request, v, &m[body_at..]);
                }
            }
        }
    }
    // Many changes are still valid frames (any int value is); every one round-tripped.
    assert!(oks > 1000 && errs > 1000, "{oks} ok, {errs} errors");
}

#[test]
fn headers_alone_truncated_and_changed() {
    let req = hex("001c 0005 00000007 0002 6d65 00");
    let resp = hex("00000007 00");
    // v1 is the same without the final tagged-field count.
    for len in 0..req.len() {
        assert!(check_request_header(2, &req[..len]).is_err());
        if len < req.len() - 1 {
            assert!(check_request_header(1, &req[..len]).is_err());
        }
    }
    for len in 0..resp.len() {
        assert!(check_response_header(1, &resp[..len]).is_err());
    }
    for pos in 0..req.len() {
        for b in 0..=255u8 {
            let mut m = req.clone();
            m[pos] = b;
            let _ = check_request_header(2, &m);
            let _ = check_request_header(1, &m);
        }
    }
    check_request_header(2, &req).unwrap();
    check_request_header(1, &req[..req.len() - 1]).unwrap();
    check_response_header(1, &resp).unwrap();
}

// ---- 2. each error kind, with offset, path and Display ----------------------------------------

/// TxnOffsetCommitRequest v0 with `topics` topics of one partition each, all strings empty:
/// 14 bytes of fixed fields, the int32 count, then 20 bytes per topic (ARCHITECTURE.md, *Strings, bytes, arrays and records*).
fn toc_v0_body(topics: u32) -> Vec<u8> {
    let mut b = hex("0000 0000 0000000000000009 0001");
    b.extend(topics.to_be_bytes());
    for _ in 0..topics {
        // name "", 1 partition: index 0, offset 5, metadata "".
        b.extend(hex("0000 00000001 00000000 0000000000000005 0000"));
    }
    b
}

fn toc_err(v: i16, bytes: &[u8]) -> DecodeError {
    TxnOffsetCommitRequest::decode_exact(&Bytes::copy_from_slice(bytes), v).unwrap_err()
}

#[test]
fn truncated() {
    // The seed's body cut inside committed_offset (page 003: offset 0x28 of the frame).
    let (_, seed) = SEED_REQUESTS[1];
    let cut = refit(&seed[..0x28 + 2]);
    let e = RequestFrame::decode(&Bytes::from(cut), &DecodeOptions::DEFAULT).unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::Truncated {
                needed: 8,
                available: 2
            },
            0x28,
            "body.TxnOffsetCommitRequest.topics[0].partitions[0].committed_offset".to_owned()
        )
    );
    assert_eq!(
        e.to_string(),
        "truncated input: needed 8 more byte(s), 2 available at byte 40 in \
         `body.TxnOffsetCommitRequest.topics[0].partitions[0].committed_offset`"
    );
    // The frame as received, shorter than its size prefix says.
    let e = RequestFrame::decode(
        &Bytes::copy_from_slice(&seed[..30]),
        &DecodeOptions::DEFAULT,
    )
    .unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::Truncated {
                needed: 52,
                available: 26
            },
            4,
            "size".to_owned()
        )
    );
    // A 1-byte request header.
    let e = RequestHeader::decode_exact(&Bytes::from_static(&[0]), 2).unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::Truncated {
                needed: 2,
                available: 1
            },
            0,
            "RequestHeader.request_api_key".to_owned()
        )
    );
}

#[test]
fn negative_length() {
    // Classic string length -2 (only -1 is null).
    let mut b = toc_v0_body(0);
    b[0..2].copy_from_slice(&[0xff, 0xfe]);
    let e = toc_err(0, &b);
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::NegativeLength(-2),
            0,
            "TxnOffsetCommitRequest.transactional_id".to_owned()
        )
    );
    // Classic array count -2 at byte 14.
    let mut b = toc_v0_body(0);
    b[14..18].copy_from_slice(&(-2i32).to_be_bytes());
    let e = toc_err(0, &b);
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::NegativeLength(-2),
            14,
            "TxnOffsetCommitRequest.topics".to_owned()
        )
    );
}

#[test]
fn length_exceeding_input() {
    // Four topics; topic 3 starts at 18 + 3 * 20 = 78 and its committed_metadata at 78 + 18.
    let mut b = toc_v0_body(4);
    assert_eq!(b.len(), 98);
    b[96..98].copy_from_slice(&[0, 10]);
    let e = toc_err(0, &b);
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::LengthExceedsInput {
                declared: 10,
                remaining: 0
            },
            96,
            "TxnOffsetCommitRequest.topics[3].partitions[0].committed_metadata".to_owned()
        )
    );
    assert_eq!(
        e.to_string(),
        "declared length 10 exceeds the 0 byte(s) remaining at byte 96 in \
         `TxnOffsetCommitRequest.topics[3].partitions[0].committed_metadata`"
    );
    // An array count larger than the bytes left (Kafka: "Tried to allocate a collection of
    // size 2147483647, but there are only 0 bytes remaining").
    let mut b = toc_v0_body(0);
    b[14..18].copy_from_slice(&i32::MAX.to_be_bytes());
    let e = toc_err(0, &b);
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::LengthExceedsInput {
                declared: i32::MAX as u64,
                remaining: 0
            },
            14,
            "TxnOffsetCommitRequest.topics".to_owned()
        )
    );
}

#[test]
fn string_too_long() {
    // Compact length uvarint 0x8001 = 32769, so 32768 bytes: over Kafka's 32767.
    let e = toc_err(3, &hex("818002"));
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::StringTooLong(32768),
            0,
            "TxnOffsetCommitRequest.transactional_id".to_owned()
        )
    );
}

#[test]
fn null_in_non_nullable_field() {
    // Classic: int16 -1; compact: uvarint 0. group_id follows a 1-byte transactional_id.
    let mut b = toc_v0_body(0);
    b[2..4].copy_from_slice(&[0xff, 0xff]);
    let e = toc_err(0, &b);
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::UnexpectedNull { version: 0 },
            2,
            "TxnOffsetCommitRequest.group_id".to_owned()
        )
    );
    let e = toc_err(3, &hex("01 00"));
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::UnexpectedNull { version: 3 },
            1,
            "TxnOffsetCommitRequest.group_id".to_owned()
        )
    );
    assert_eq!(
        e.to_string(),
        "null in a field that is not nullable at version 3 at byte 1 in \
         `TxnOffsetCommitRequest.group_id`"
    );
}

#[test]
fn invalid_utf8() {
    // "\xc3(" is not UTF-8. Kafka's Java decoder accepts it (`new String(bytes, UTF_8)`
    // reads "\u{fffd}("), and so does ours by default, keeping the bytes so the message
    // encodes back to the same bytes.
    let mut b = hex("0002 c328");
    b.extend(&toc_v0_body(0)[2..]);
    let m = TxnOffsetCommitRequest::decode_exact(&Bytes::copy_from_slice(&b), 0).unwrap();
    assert_eq!(m.transactional_id.as_bytes(), b"\xc3(");
    assert_eq!(m.transactional_id.to_string_lossy(), "\u{fffd}(");
    assert!(m.transactional_id.to_str().is_err());
    assert_eq!(m.encode_to_vec(0).unwrap(), b);
    // The metadata-driven codec agrees: the same bytes back, Java's text in JSON.
    let buf = Bytes::from(b);
    let meta = TxnOffsetCommitRequest::META;
    let d = kafka_wire::dynamic::decode(meta, &buf, 0).unwrap();
    assert_eq!(kafka_wire::dynamic::encode(&d, 0).unwrap(), buf);
    let j = kafka_wire::json::struct_to_json(&d, 0);
    assert_eq!(j["transactionalId"], "\u{fffd}(");
    // Under strict_utf8 the error points at the string's bytes, after the length, in both.
    let limits = DecodeLimits::new().strict_utf8(true);
    let mut r = Reader::with_limits(&buf, &limits);
    let e = TxnOffsetCommitRequest::decode(&mut r, 0).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)), "{e}");
    assert_eq!(
        (e.offset(), e.path().to_string()),
        (2, "TxnOffsetCommitRequest.transactional_id".to_owned())
    );
    let mut r = Reader::with_limits(&buf, &limits);
    let d = kafka_wire::dynamic::decode_from(meta, &mut r, 0, None).unwrap_err();
    assert_eq!((d.kind(), d.offset()), (e.kind(), e.offset()));
}

#[test]
fn overlong_and_non_canonical_varints() {
    // A 5th byte with the continuation bit (Kafka: "Varint is too long").
    let e = toc_err(3, &hex("ffffffff80 00"));
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::VarintTooLong { max_bytes: 5 },
            0,
            "TxnOffsetCommitRequest.transactional_id".to_owned()
        )
    );
    // 0x80 0x00 is 0 in two bytes: Kafka would read it, but it cannot re-encode the same.
    let b = hex("01 8000 00");
    let e = InitializeShareGroupStateRequest::decode_exact(&Bytes::from(b), 0).unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::NonCanonicalVarint,
            1,
            "InitializeShareGroupStateRequest.topics".to_owned()
        )
    );
    // Bits above 31 in the 5th byte.
    let e = toc_err(3, &hex("ffffffff1f"));
    assert_eq!(e.kind(), &DecodeErrorKind::NonCanonicalVarint);
}

/// A tagged field that only becomes tagged at v4 while the struct is flexible from v3.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-4", flexible = "3+")]
struct LateTag {
    #[kafka(versions = "0+")]
    a: i8,
    #[kafka(versions = "4+", tag = 0, tagged = "4+", default = "0")]
    t: i32,
    unknown_tagged_fields: UnknownTaggedFields,
}

#[test]
fn tag_not_valid_at_this_version() {
    // a = 1, one tagged field: tag 0 (at byte 2), size 4, value 7.
    let b = Bytes::from(hex("01 01 00 04 00000007"));
    let ok = LateTag::decode_exact(&b, 4).unwrap();
    assert_eq!(ok.t, 7);
    let e = LateTag::decode_exact(&b, 3).unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::TagNotValidForVersion { tag: 0, version: 3 },
            2,
            "LateTag.t".to_owned()
        )
    );
    assert_eq!(
        e.to_string(),
        "tag 0 is not valid for version 3 at byte 2 in `LateTag.t`"
    );
}

/// ApiVersionsResponse v3 body with an empty api_keys array and the given tagged section.
fn av_v3(tags: &str) -> Result<ApiVersionsResponse, DecodeError> {
    let mut b = hex("0000 01 00000000");
    b.extend(hex(tags));
    ApiVersionsResponse::decode_exact(&Bytes::from(b), 3)
}

#[test]
fn duplicate_and_unordered_tags() {
    // Tag 1 (finalized_features_epoch, int64 = 5) twice: the second tag is at byte 18.
    let e = av_v3("02 01 08 0000000000000005 01 08 0000000000000005").unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::UnorderedTag {
                tag: 1,
                previous: 1
            },
            18,
            "ApiVersionsResponse".to_owned()
        )
    );
    // Tag 3 (zk_migration_ready = true) then tag 1.
    let e = av_v3("02 03 01 01 01 08 0000000000000005").unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::UnorderedTag {
                tag: 1,
                previous: 3
            },
            11,
            "ApiVersionsResponse".to_owned()
        )
    );
    // In order, both decode.
    let m = av_v3("02 01 08 0000000000000005 03 01 01").unwrap();
    assert_eq!(
        (m.finalized_features_epoch, m.zk_migration_ready),
        (5, true)
    );
}

/// A declared tagged field that carries its default value: Java's generated reader assigns
/// whatever a known tag carries (`MessageDataGenerator`'s tagged-field switch has no default
/// check), so it is accepted; Kafka's writers leave a default out, so encoding it back
/// does too (the bytes shrink, the value is the same).
#[test]
fn tagged_field_carrying_its_default_is_accepted_as_java_does() {
    // finalized_features_epoch (tag 1, int64, default -1) sent as -1.
    let m = av_v3("01 01 08 ffffffffffffffff").unwrap();
    assert_eq!(m.finalized_features_epoch, -1);
    assert_eq!(m, av_v3("00").unwrap());
    let out = m.encode_to_vec(3).unwrap();
    assert_eq!(out, hex("0000 01 00000000 00"));
    // zk_migration_ready (tag 3, bool, default false) sent as false, after tag 1 = 5: only
    // tag 1 is written back.
    let m = av_v3("02 01 08 0000000000000005 03 01 00").unwrap();
    assert_eq!(
        (m.finalized_features_epoch, m.zk_migration_ready),
        (5, false)
    );
    assert_eq!(
        m.encode_to_vec(3).unwrap(),
        hex("0000 01 00000000 01 01 08 0000000000000005")
    );
    // The metadata-driven codec reads it the same way.
    let body = Bytes::from(hex("0000 01 00000000 01 01 08 ffffffffffffffff"));
    let d = kafka_wire::dynamic::decode(ApiVersionsResponse::META, &body, 3).unwrap();
    assert_eq!(
        kafka_wire::dynamic::encode(&d, 3).unwrap(),
        hex("0000 01 00000000 00")
    );
    // A default carried by a tag that is not tagged at the version is still an error at the
    // tag: LateTag's `t` (tag 0, default 0) is tagged only from v4.
    let e = LateTag::decode_exact(&Bytes::from(hex("01 01 00 04 00000000")), 3).unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::TagNotValidForVersion { tag: 0, version: 3 }
    );
    assert_eq!(e.offset(), 2);
    // At v4 it is accepted, and left out on the way back.
    let m = LateTag::decode_exact(&Bytes::from(hex("01 01 00 04 00000000")), 4).unwrap();
    assert_eq!(m.t, 0);
    assert_eq!(m.encode_to_vec(4).unwrap(), hex("01 00"));
}

#[test]
fn unknown_api_key_and_unsupported_version() {
    let e = check_request_frame(&frame_with_size(&hex("03e8 0000 00000001 ffff"))).unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::UnknownApiKey(1000),
            4,
            "header.request_api_key".to_owned()
        )
    );
    assert_eq!(
        e.to_string(),
        "unknown api key 1000 at byte 4 in `header.request_api_key`"
    );
    // TxnOffsetCommit has versions 0-6.
    let e = check_request_frame(&frame_with_size(&hex("001c 0007 00000001 ffff 00"))).unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::UnsupportedVersion {
                name: "TxnOffsetCommit",
                version: 7
            },
            6,
            "header.request_api_version".to_owned()
        )
    );
    let e =
        check_response_frame(ApiKey::TxnOffsetCommit, -1, &frame_with_size(&[0; 4])).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::UnsupportedVersion { version: -1, .. }
    ));
    // A body decoder outside its versions; a header outside its versions.
    let e = toc_err(7, &[]);
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::UnsupportedVersion {
                name: "TxnOffsetCommitRequest",
                version: 7
            },
            0,
            "TxnOffsetCommitRequest".to_owned()
        )
    );
    let e = RequestHeader::decode_exact(&Bytes::new(), 3).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::UnsupportedVersion { version: 3, .. }
    ));
}

#[test]
fn trailing_bytes_after_the_body() {
    let (_, seed) = SEED_REQUESTS[1];
    // The size prefix covers the extra byte: the body ends at 56, one byte is left.
    let mut b = seed.to_vec();
    b.push(0);
    let e = check_request_frame(&refit(&b)).unwrap_err();
    assert_eq!(
        parts(&e),
        (DecodeErrorKind::TrailingBytes(1), 56, "frame".to_owned())
    );
    // The prefix does not cover it: the frame itself is followed by a byte.
    let e = check_request_frame(&b).unwrap_err();
    assert_eq!(
        parts(&e),
        (DecodeErrorKind::TrailingBytes(1), 56, "frame".to_owned())
    );
    assert_eq!(
        e.to_string(),
        "1 trailing byte(s) after the end of the message at byte 56 in `frame`"
    );
}

#[test]
fn frame_too_large_and_negative_frame_size() {
    let (_, seed) = SEED_REQUESTS[1];
    let e = RequestFrame::decode(
        &Bytes::from_static(seed),
        &DecodeOptions::from_max_frame_size(40),
    )
    .unwrap_err();
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::LimitExceeded {
                limit: kafka_wire::Limit::FrameSize,
                value: 52,
                max: 40
            },
            0,
            "size".to_owned()
        )
    );
    assert_eq!(
        e.to_string(),
        "52 exceeds the limit max_frame_size = 40 at byte 0 in `size`"
    );
    // From the prefix alone: 4 bytes saying 2 GiB - 1.
    let e = RequestFrame::decode(
        &Bytes::from_static(&[0x7f, 0xff, 0xff, 0xff]),
        &DecodeOptions::DEFAULT,
    )
    .unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LimitExceeded {
            limit: kafka_wire::Limit::FrameSize,
            value: i32::MAX as u64,
            max: frame::DEFAULT_MAX_FRAME_SIZE as u64
        }
    );
    assert_eq!(
        frame::frame_len(&[0x7f, 0xff, 0xff, 0xff], 1 << 20)
            .unwrap_err()
            .kind(),
        &DecodeErrorKind::LimitExceeded {
            limit: kafka_wire::Limit::FrameSize,
            value: i32::MAX as u64,
            max: 1 << 20
        }
    );
    let e = ResponseFrame::decode(
        &Bytes::from_static(&[0xff, 0xff, 0xff, 0xff]),
        ApiKey::ApiVersions,
        0,
        &DecodeOptions::DEFAULT,
    )
    .unwrap_err();
    assert_eq!(
        parts(&e),
        (DecodeErrorKind::NegativeFrameSize(-1), 0, "size".to_owned())
    );
}

// ---- 3. the fuzzers' findings ------------------------------------------------------------------

/// Found by `txn_offset_commit_request` in its first second: a 189-byte v0 body declaring
/// 169 topics (no more than the bytes left, so Kafka's count check passes) reserved
/// 169 x 96 bytes before its first topic failed. Arrays now reserve at most 8 bytes per
/// byte left. Here: the error; the allocation bound is in `alloc_bound.rs`.
#[test]
fn fuzz_array_count_reserves_no_more_than_the_input() {
    let b = hex(
        "00000000dc000506000000000000000000a900000000000000000015000000000004fa00ffffffff\
         ffffffffffffffffffffffffffffffffffffffffffff750000000000007100000000000000050103\
         00000000000000000000000000000000000000000000000000000000000100000000001b00000000\
         ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\
         ffffffffffffffffffffffffffffffffffffffffffffffff0000000000",
    );
    assert_eq!(b.len(), 189);
    let e = toc_err(0, &b);
    // Topic 0: name "", partitions count 0, then topic 1 at byte 24: name "" and a
    // partitions count of 0x00150000 with far fewer bytes left.
    assert_eq!(
        parts(&e),
        (
            DecodeErrorKind::LengthExceedsInput {
                declared: 0x0015_0000,
                remaining: 159
            },
            26,
            "TxnOffsetCommitRequest.topics[1].partitions".to_owned()
        )
    );
}
