//! The non-API schemas with their int16 version prefix, against bytes written out by hand
//! from Kafka's consumer protocol layout (version, then the body at that version).

use bytes::Bytes;
use kafka_wire::{DecodeErrorKind, Str};
use kafka_wire_messages::*;
use kafka_wire_tests::hex;

#[test]
fn consumer_protocol_subscription_v0_and_v1() {
    // v0: version 0, topics ["t1"] (int32 count, int16 length), user data null (int32 -1).
    let v0 = hex("0000 00000001 0002 7431 ffffffff");
    let sub = ConsumerProtocolSubscription {
        topics: vec![Str::from("t1")],
        user_data: None,
        ..Default::default()
    };
    assert_eq!(encode_version_prefixed(&sub, 0).unwrap(), v0);
    let (v, back) = decode_version_prefixed::<ConsumerProtocolSubscription>(&v0.into()).unwrap();
    assert_eq!((v, back), (0, sub.clone()));

    // v1 adds owned partitions: [{topic "t1", partitions [0, 3]}].
    let v1 = hex("0001 00000001 0002 7431 ffffffff 00000001 0002 7431 00000002 00000000 00000003");
    let (v, back) =
        decode_version_prefixed::<ConsumerProtocolSubscription>(&Bytes::from(v1.clone())).unwrap();
    assert_eq!(v, 1);
    assert_eq!(back.topics, sub.topics);
    assert_eq!(back.owned_partitions.len(), 1);
    assert_eq!(back.owned_partitions[0].partitions, [0, 3]);
    assert_eq!(encode_version_prefixed(&back, 1).unwrap(), v1);
}

#[test]
fn newer_versions_are_read_as_the_highest_and_older_ones_rejected() {
    // An assignment at version 9 (unknown): read as the highest known, the rest ignored, as
    // Kafka's ConsumerProtocol does. Highest known (3): partitions, user data.
    let newer = hex("0009 00000000 ffffffff 0102");
    let (v, back) = decode_version_prefixed::<ConsumerProtocolAssignment>(&newer.into()).unwrap();
    assert_eq!(v, 9);
    assert!(back.assigned_partitions.is_empty());
    // At a known version, left-over bytes are an error.
    let trailing = hex("0000 00000000 ffffffff 01");
    let e = decode_version_prefixed::<ConsumerProtocolAssignment>(&trailing.into()).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes(1));
    // Below the lowest version.
    let older = hex("ffff 00000000 ffffffff");
    let e = decode_version_prefixed::<ConsumerProtocolAssignment>(&older.into()).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::UnsupportedVersion { version: -1, .. }
    ));
}
