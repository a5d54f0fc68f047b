//! Encode errors where Kafka's generated code throws (`UnsupportedVersionException` in `MessageDataGenerator`'s output), and ignorable fields
//! dropped silently where it does not.

use bytes::Bytes;
use kafka_wire::{EncodeErrorKind, KafkaMessage, PathSegment, Str, UnknownTaggedFields, Uuid};
use kafka_wire_messages::*;

fn topic() -> AddPartitionsToTxnTopic {
    AddPartitionsToTxnTopic {
        name: "t".into(),
        partitions: [1].into(),
        ..Default::default()
    }
}

#[test]
fn txn_offset_commit_v2_rejects_a_generation_id() {
    // Kafka: "Attempted to write a non-default generationIdOrMemberEpoch at version 2".
    let m = TxnOffsetCommitRequest {
        generation_id_or_member_epoch: 5,
        ..Default::default()
    };
    for v in 0..=2 {
        let e = m.encode_to_vec(v).unwrap_err();
        assert_eq!(
            e.kind(),
            &EncodeErrorKind::NonDefaultAbsentField { version: v }
        );
        assert_eq!(
            e.path().segments().cloned().collect::<Vec<_>>(),
            [
                PathSegment::Root("TxnOffsetCommitRequest"),
                PathSegment::Field("generation_id_or_member_epoch"),
            ]
        );
        let text = e.to_string();
        assert!(
            text.contains("TxnOffsetCommitRequest.generation_id_or_member_epoch")
                && text.contains(&format!("version {v}")),
            "{text}"
        );
    }
    // The default (-1) is fine at v2, and any value from v3 on.
    assert!(TxnOffsetCommitRequest::default().encode_to_vec(2).is_ok());
    assert!(m.encode_to_vec(3).is_ok());
    // Zero is not the default either.
    let zero = TxnOffsetCommitRequest {
        generation_id_or_member_epoch: 0,
        ..Default::default()
    };
    assert!(zero.encode_to_vec(2).is_err());
}

#[test]
fn txn_offset_commit_v2_rejects_other_v3_fields() {
    let member = TxnOffsetCommitRequest {
        member_id: "m".into(),
        ..Default::default()
    };
    let e = member.encode_to_vec(2).unwrap_err();
    assert_eq!(e.path().to_string(), "TxnOffsetCommitRequest.member_id");
    // GroupInstanceId defaults to null: "" is a non-default value.
    let instance = TxnOffsetCommitRequest {
        group_instance_id: Some(Str::new()),
        ..Default::default()
    };
    let e = instance.encode_to_vec(2).unwrap_err();
    assert_eq!(
        e.path().to_string(),
        "TxnOffsetCommitRequest.group_instance_id"
    );
    // Through a whole frame, the path says it is in the body.
    let f = RequestFrame::new(1, None, 2, member);
    let e = f.to_vec().unwrap_err();
    assert_eq!(
        e.path().to_string(),
        "body.TxnOffsetCommitRequest.member_id"
    );
}

#[test]
fn add_partitions_to_txn_v3_rejects_transactions() {
    let m = AddPartitionsToTxnRequest {
        transactions: vec![AddPartitionsToTxnTransaction {
            topics: vec![topic()],
            ..Default::default()
        }],
        ..Default::default()
    };
    for v in 0..=3 {
        let e = m.encode_to_vec(v).unwrap_err();
        assert_eq!(
            e.kind(),
            &EncodeErrorKind::NonDefaultAbsentField { version: v }
        );
        assert_eq!(
            e.path().to_string(),
            "AddPartitionsToTxnRequest.transactions"
        );
    }
    assert!(m.encode_to_vec(4).is_ok());
    // Even an element with every field at its default is a non-empty array.
    let empty_txn = AddPartitionsToTxnRequest {
        transactions: vec![AddPartitionsToTxnTransaction::default()],
        ..Default::default()
    };
    assert!(empty_txn.encode_to_vec(3).is_err());
}

#[test]
fn add_partitions_to_txn_v4_rejects_v3_and_below_fields() {
    let cases: [(&str, AddPartitionsToTxnRequest); 4] = [
        (
            "v3_and_below_transactional_id",
            AddPartitionsToTxnRequest {
                v3_and_below_transactional_id: "x".into(),
                ..Default::default()
            },
        ),
        (
            "v3_and_below_producer_id",
            AddPartitionsToTxnRequest {
                v3_and_below_producer_id: -1,
                ..Default::default()
            },
        ),
        (
            "v3_and_below_producer_epoch",
            AddPartitionsToTxnRequest {
                v3_and_below_producer_epoch: 1,
                ..Default::default()
            },
        ),
        (
            "v3_and_below_topics",
            AddPartitionsToTxnRequest {
                v3_and_below_topics: vec![topic()],
                ..Default::default()
            },
        ),
    ];
    for (field, m) in cases {
        for v in 4..=5 {
            let e = m.encode_to_vec(v).unwrap_err();
            assert_eq!(
                e.kind(),
                &EncodeErrorKind::NonDefaultAbsentField { version: v }
            );
            assert_eq!(
                e.path().to_string(),
                format!("AddPartitionsToTxnRequest.{field}")
            );
        }
        assert!(m.encode_to_vec(3).is_ok(), "{field}");
    }
}

#[test]
fn add_partitions_to_txn_response_v3_drops_the_ignorable_error_code() {
    let m = AddPartitionsToTxnResponse {
        throttle_time_ms: 7,
        error_code: 53,
        ..Default::default()
    };
    let bytes = m.encode_to_vec(3).unwrap();
    assert_eq!(bytes.len(), m.encoded_size(3));
    // int32 throttle, empty compact array, tagged section: no error code.
    assert_eq!(bytes, [0, 0, 0, 7, 1, 0]);
    let back = AddPartitionsToTxnResponse::decode_exact(&Bytes::from(bytes), 3).unwrap();
    assert_eq!(back.error_code, 0);
    assert_eq!(back.throttle_time_ms, 7);
    // v4 keeps it.
    let back =
        AddPartitionsToTxnResponse::decode_exact(&Bytes::from(m.encode_to_vec(4).unwrap()), 4)
            .unwrap();
    assert_eq!(back, m);
}

#[test]
fn txn_offset_commit_drops_the_name_at_v6_and_the_topic_id_at_v5() {
    let topic = TxnOffsetCommitRequestTopic {
        name: "orders".into(),
        topic_id: Uuid::from_halves(3, 4),
        partitions: vec![TxnOffsetCommitRequestPartition {
            partition_index: 1,
            committed_offset: 2,
            ..Default::default()
        }],
        ..Default::default()
    };
    let m = TxnOffsetCommitRequest {
        topics: vec![topic.clone()],
        ..Default::default()
    };

    let v6 =
        TxnOffsetCommitRequest::decode_exact(&Bytes::from(m.encode_to_vec(6).unwrap()), 6).unwrap();
    assert_eq!(v6.topics[0].name, "");
    assert_eq!(v6.topics[0].topic_id, Uuid::from_halves(3, 4));
    assert_eq!(v6.topics[0].partitions, topic.partitions);

    let v5 =
        TxnOffsetCommitRequest::decode_exact(&Bytes::from(m.encode_to_vec(5).unwrap()), 5).unwrap();
    assert_eq!(v5.topics[0].name, "orders");
    assert_eq!(v5.topics[0].topic_id, Uuid::ZERO);

    // The same in the response.
    let r = TxnOffsetCommitResponse {
        topics: vec![TxnOffsetCommitResponseTopic {
            name: "orders".into(),
            topic_id: Uuid::from_halves(3, 4),
            ..Default::default()
        }],
        ..Default::default()
    };
    let r6 = TxnOffsetCommitResponse::decode_exact(&Bytes::from(r.encode_to_vec(6).unwrap()), 6)
        .unwrap();
    assert_eq!(
        (r6.topics[0].name.as_str(), r6.topics[0].topic_id),
        ("", Uuid::from_halves(3, 4))
    );
    let r5 = TxnOffsetCommitResponse::decode_exact(&Bytes::from(r.encode_to_vec(5).unwrap()), 5)
        .unwrap();
    assert_eq!(
        (r5.topics[0].name.as_str(), r5.topics[0].topic_id),
        ("orders", Uuid::ZERO)
    );
}

#[test]
fn other_ignorable_fields_are_dropped() {
    // CommittedLeaderEpoch (2+, ignorable, default -1) at v1 reads back as -1.
    let m = TxnOffsetCommitRequest {
        topics: vec![TxnOffsetCommitRequestTopic {
            partitions: vec![TxnOffsetCommitRequestPartition {
                committed_leader_epoch: 9,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let v1 =
        TxnOffsetCommitRequest::decode_exact(&Bytes::from(m.encode_to_vec(1).unwrap()), 1).unwrap();
    assert_eq!(v1.topics[0].partitions[0].committed_leader_epoch, -1);
    // ApiVersionsRequest v2 drops the client software fields, v4 the cluster and node ids.
    let av = ApiVersionsRequest {
        client_software_name: "c".into(),
        client_software_version: "1".into(),
        cluster_id: Some("k".into()),
        node_id: 3,
        ..Default::default()
    };
    assert_eq!(av.encode_to_vec(2).unwrap(), b"");
    let v4 =
        ApiVersionsRequest::decode_exact(&Bytes::from(av.encode_to_vec(4).unwrap()), 4).unwrap();
    assert_eq!((v4.cluster_id, v4.node_id), (None, -1));
    // ApiVersionsResponse v2 drops the tagged (3+) fields, v0 the throttle time.
    let resp = ApiVersionsResponse {
        throttle_time_ms: 1,
        zk_migration_ready: true,
        finalized_features_epoch: 5,
        ..Default::default()
    };
    let v0 =
        ApiVersionsResponse::decode_exact(&Bytes::from(resp.encode_to_vec(0).unwrap()), 0).unwrap();
    assert_eq!(v0, ApiVersionsResponse::default());
}

#[test]
fn tagged_field_and_version_errors() {
    let mut unknown = UnknownTaggedFields::new();
    unknown.push(9, Bytes::from_static(b"x"));
    // Unknown tagged fields at a non-flexible version.
    let m = TxnOffsetCommitResponse {
        unknown_tagged_fields: unknown.clone(),
        ..Default::default()
    };
    assert_eq!(
        m.encode_to_vec(2).unwrap_err().kind(),
        &EncodeErrorKind::TaggedFieldsNotSupported { version: 2 }
    );
    assert!(m.encode_to_vec(3).is_ok());
    // An unknown tag reusing a declared one (ApiVersionsResponse declares 0-3).
    let mut clash = ApiVersionsResponse::default();
    clash.unknown_tagged_fields.push(1, Bytes::new());
    assert_eq!(
        clash.encode_to_vec(3).unwrap_err().kind(),
        &EncodeErrorKind::RawTagCollides(1)
    );
    // Out of order.
    let mut unordered = InitializeShareGroupStateRequest::default();
    unordered.unknown_tagged_fields.push(5, Bytes::new());
    unordered.unknown_tagged_fields.push(5, Bytes::new());
    assert_eq!(
        unordered.encode_to_vec(0).unwrap_err().kind(),
        &EncodeErrorKind::UnorderedRawTag {
            tag: 5,
            previous: 5
        }
    );
    // Versions outside the message's.
    let e = TxnOffsetCommitRequest::default()
        .encode_to_vec(7)
        .unwrap_err();
    assert!(matches!(
        e.kind(),
        EncodeErrorKind::UnsupportedVersion { version: 7, .. }
    ));
    let e = RequestBody::from(InitializeShareGroupStateRequest::default())
        .to_vec(1)
        .unwrap_err();
    assert!(matches!(
        e.kind(),
        EncodeErrorKind::UnsupportedVersion { version: 1, .. }
    ));
    // Strings over 32767 bytes.
    let long = InitializeShareGroupStateRequest {
        group_id: Str::from("é".repeat(16_384)),
        ..Default::default()
    };
    let e = long.encode_to_vec(0).unwrap_err();
    assert_eq!(e.kind(), &EncodeErrorKind::StringTooLong(32_768));
    assert_eq!(
        e.path().to_string(),
        "InitializeShareGroupStateRequest.group_id"
    );
}
