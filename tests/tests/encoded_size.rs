//! `encoded_size` on both of its paths: a message whose arrays are empty and that holds no
//! unknown tagged fields is sized inline, any other by an out-of-line copy of the same
//! `size` (see `FieldHooks::sizes_trivially`). Each case is a TxnOffsetCommitRequest whose bytes
//! were assembled by hand from Kafka's rules (int16-prefixed strings and int32 counts up to
//! v2; from v3 compact strings and counts, length + 1, and a tagged section), checked
//! against both `encode` and `encoded_size`.

use bytes::Bytes;
use kafka_wire::{KafkaMessage, RawTaggedField, Str, UnknownTaggedFields};
use kafka_wire_messages::*;

fn request() -> TxnOffsetCommitRequest {
    TxnOffsetCommitRequest {
        transactional_id: Str::from("tx"),
        group_id: Str::from("g"),
        producer_id: 7,
        producer_epoch: 1,
        ..Default::default()
    }
}

fn check(m: &TxnOffsetCommitRequest, version: i16, expected: &[u8]) {
    let mut out = Vec::new();
    m.encode(&mut out, version).unwrap();
    assert_eq!(out, expected, "v{version}: bytes");
    assert_eq!(
        m.encoded_size(version),
        expected.len(),
        "v{version}: encoded_size"
    );
}

/// v0, no topics: the inline path.
#[test]
fn classic_empty_arrays() {
    #[rustfmt::skip]
    let expected = [
        0, 2, b't', b'x', // transactional_id
        0, 1, b'g', // group_id
        0, 0, 0, 0, 0, 0, 0, 7, // producer_id
        0, 1, // producer_epoch
        0, 0, 0, 0, // topics: 0
    ];
    check(&request(), 0, &expected);
}

/// v0, one topic without partitions: the out-of-line path.
#[test]
fn classic_one_topic() {
    let mut m = request();
    m.topics.push(TxnOffsetCommitRequestTopic {
        name: Str::from("a"),
        ..Default::default()
    });
    #[rustfmt::skip]
    let expected = [
        0, 2, b't', b'x',
        0, 1, b'g',
        0, 0, 0, 0, 0, 0, 0, 7,
        0, 1,
        0, 0, 0, 1, // topics: 1
        0, 1, b'a', // name
        0, 0, 0, 0, // partitions: 0
    ];
    check(&m, 0, &expected);
}

/// v3 (flexible), no topics, no unknown tagged fields: the inline path.
#[test]
fn flexible_empty_arrays() {
    #[rustfmt::skip]
    let expected = [
        3, b't', b'x', // transactional_id (compact: length + 1)
        2, b'g', // group_id
        0, 0, 0, 0, 0, 0, 0, 7, // producer_id
        0, 1, // producer_epoch
        0xff, 0xff, 0xff, 0xff, // generation_id_or_member_epoch: -1
        1, // member_id: ""
        0, // group_instance_id: null
        1, // topics: 0 (compact: count + 1)
        0, // tagged fields: none
    ];
    check(&request(), 3, &expected);
}

/// v3, no topics but an unknown tagged field: the out-of-line path.
#[test]
fn flexible_unknown_tag() {
    let mut m = request();
    m.unknown_tagged_fields = UnknownTaggedFields::from(vec![RawTaggedField {
        tag: 5,
        data: Bytes::from_static(&[9, 8]),
    }]);
    #[rustfmt::skip]
    let expected = [
        3, b't', b'x',
        2, b'g',
        0, 0, 0, 0, 0, 0, 0, 7,
        0, 1,
        0xff, 0xff, 0xff, 0xff,
        1,
        0,
        1,
        1, // tagged fields: 1
        5, 2, 9, 8, // tag 5, size 2, payload
    ];
    check(&m, 3, &expected);
}
