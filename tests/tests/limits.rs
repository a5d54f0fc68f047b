//! Configurable decode limits: each one exceeded is `LimitExceeded` naming the limit, at the
//! offset of the offending length or entry, with the field path; the defaults change nothing.

use bytes::Bytes;
use kafka_wire::frame;
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
        &frame::read_frame_with_limits(&mut ok, &limits).unwrap()[..],
        &[0, 0, 0, 2, 9, 9]
    );
    let mut big: &[u8] = &[0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let e = frame::read_frame_with_limits(&mut big, &limits).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
}
