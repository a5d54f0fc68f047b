//! A flexible top-level message with tagged, nullable, ignorable and nested fields, in a
//! crate that shadows prelude names (the generated code must use absolute paths).
#![deny(warnings)]

use kafka_wire::{ApiMessage, Bytes, KafkaMessage, Str, UnknownTaggedFields};

#[allow(dead_code)]
struct Result;
#[allow(dead_code)]
struct Default;
#[allow(dead_code)]
struct Ok;

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-3", flexible = "2+")]
struct Partition {
    #[kafka(versions = "0+")]
    index: i32,
    #[kafka(versions = "1+", default = "-1", ignorable)]
    leader_epoch: i32,
    unknown_tagged_fields: UnknownTaggedFields,
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 1000, request, versions = "0-3", flexible = "2+")]
struct Demo {
    #[kafka(versions = "0+", nullable = "0+", default = "null")]
    transactional_id: Option<Str>,
    #[kafka(versions = "0+")]
    partitions: Vec<Partition>,
    #[kafka(versions = "3+", ignorable)]
    rack: Str,
    #[kafka(versions = "2+", tag = 0, tagged = "2+")]
    throttle_ms: i32,
    #[kafka(
        versions = "2+",
        tag = 1,
        tagged = "2+",
        nullable = "2+",
        default = "null"
    )]
    cookie: Option<Bytes>,
    unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {
    let m = Demo {
        transactional_id: Some("tx".into()),
        partitions: vec![Partition {
            index: 3,
            leader_epoch: 7,
            ..::core::default::Default::default()
        }],
        rack: "r1".into(),
        throttle_ms: 5,
        cookie: Some(Bytes::from_static(b"\x01")),
        ..::core::default::Default::default()
    };
    for v in 0..=3 {
        let mut expected = m.clone();
        if v < 3 {
            expected.rack = Str::default(); // ignorable: dropped where absent
        }
        if v < 1 {
            expected.partitions[0].leader_epoch = -1;
        }
        if v < 2 {
            expected.throttle_ms = 0;
            expected.cookie = None;
        }
        // Tagged fields are not ignorable: below v2 only their defaults can be written.
        let input = if v < 2 {
            Demo {
                partitions: m.partitions.clone(),
                ..expected.clone()
            }
        } else {
            m.clone()
        };
        let bytes = input.encode_to_vec(v).unwrap();
        assert_eq!(bytes.len(), input.encoded_size(v));
        let back = Demo::decode_exact(&Bytes::from(bytes), v).unwrap();
        assert_eq!(back, expected, "version {v}");
    }
    // Outside the struct's versions.
    assert!(Demo::default().encode_to_vec(4).is_err());
    assert_eq!(Demo::API_KEY, 1000);
    assert_eq!(Demo::META.fields.len(), 5);
}
