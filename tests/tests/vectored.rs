//! The vectored encode of Produce requests against the `kafka-protocol` crate's encoder (an
//! independent implementation): the segments joined are its bytes, for the body and the
//! whole frame, at a classic and a flexible version, with record payloads below, at and
//! above `VECTORED_MIN`, empty and null.

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::produce_request as k;
use kafka_protocol::messages::{ProduceRequest as KpProduce, RequestHeader as KpHeader};
use kafka_protocol::protocol::{Encodable, HeaderVersion, StrBytes};
use kafka_wire::frame::encode_request_vectored;
use kafka_wire::{KafkaMessage, Records, RequestHeader, Str, Vectored, VECTORED_MIN};
use kafka_wire_messages::{PartitionProduceData, ProduceRequest, TopicProduceData};

/// The record payloads of each partition (`None`: null records).
fn payloads() -> Vec<Vec<Option<Bytes>>> {
    let b = |len: usize, seed: u8| -> Option<Bytes> {
        Some(
            (0..len)
                .map(|i| seed.wrapping_mul(31).wrapping_add(i as u8))
                .collect(),
        )
    };
    vec![
        vec![b(VECTORED_MIN, 1), b(VECTORED_MIN - 1, 2), b(0, 3)],
        vec![None, b(70_000, 4)],
        vec![b(17, 5), b(300_000, 6), b(VECTORED_MIN + 1, 7)],
    ]
}

fn ours() -> ProduceRequest {
    ProduceRequest {
        transactional_id: Some(Str::from("txn-7")),
        acks: -1,
        timeout_ms: 30_000,
        topic_data: payloads()
            .into_iter()
            .enumerate()
            .map(|(t, parts)| TopicProduceData {
                name: Str::from(format!("topic-{t}")),
                partition_data: parts
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| PartitionProduceData {
                        index: i as i32,
                        records: r.map(Records),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn theirs() -> KpProduce {
    KpProduce::default()
        .with_transactional_id(Some(StrBytes::from_static_str("txn-7").into()))
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(
            payloads()
                .into_iter()
                .enumerate()
                .map(|(t, parts)| {
                    k::TopicProduceData::default()
                        .with_name(StrBytes::from_string(format!("topic-{t}")).into())
                        .with_partition_data(
                            parts
                                .into_iter()
                                .enumerate()
                                .map(|(i, r)| {
                                    k::PartitionProduceData::default()
                                        .with_index(i as i32)
                                        .with_records(r)
                                })
                                .collect(),
                        )
                })
                .collect(),
        )
}

#[test]
fn produce_body_matches_kafka_protocol() {
    // v3: classic (int32 lengths); v9: flexible (compact lengths, tagged sections).
    for version in [3, 9] {
        let mut expected = BytesMut::new();
        theirs().encode(&mut expected, version).unwrap();
        let mut out = Vectored::new();
        ours().encode_vectored(&mut out, version).unwrap();
        assert!(out.to_vec() == expected[..], "v{version}");
        // 1024, 70,000, 300,000 and 1025 bytes referenced; 1023, 17, empty and null copied.
        assert_eq!(out.referenced_count(), 4, "v{version}");
        assert_eq!(out.len(), expected.len());
        assert_eq!(
            out.copied_len(),
            expected.len() - (VECTORED_MIN + 70_000 + 300_000 + VECTORED_MIN + 1)
        );
    }
}

#[test]
fn produce_frame_matches_kafka_protocol() {
    for version in [3, 9] {
        let kp_header = KpHeader::default()
            .with_request_api_key(0)
            .with_request_api_version(version)
            .with_correlation_id(11)
            .with_client_id(Some(StrBytes::from_static_str("c")));
        let hv = KpProduce::header_version(version);
        let body = theirs();
        let size = kp_header.compute_size(hv).unwrap() + body.compute_size(version).unwrap();
        let mut expected = BytesMut::new();
        expected.extend_from_slice(&(size as i32).to_be_bytes());
        kp_header.encode(&mut expected, hv).unwrap();
        body.encode(&mut expected, version).unwrap();

        let header = RequestHeader {
            request_api_key: 0,
            request_api_version: version,
            correlation_id: 11,
            client_id: Some(Str::from("c")),
            ..Default::default()
        };
        let mut out = Vectored::new();
        encode_request_vectored(&mut out, &header, &ours()).unwrap();
        assert!(out.to_vec() == expected[..], "v{version}");
        let mut written = Vec::new();
        out.write_to(&mut written).unwrap();
        assert!(written == expected[..], "v{version}");
    }
}
