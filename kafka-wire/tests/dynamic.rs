//! The dynamic codec and JSON (feature `json`) against the typed codec, on a test struct
//! that uses every type and attribute: same bytes both ways, same errors, lossless JSON.

use bytes::Bytes;
use kafka_wire::dynamic::{self, StructValue, Trace, Value};
use kafka_wire::json::{self, from_json, to_json, JsonError};
use kafka_wire::{
    DecodeError, KafkaMessage, Records, RequestHeader, ResponseHeader, Str, UnknownTaggedFields,
    Uuid, Version,
};
use serde_json::json;

#[path = "common/random.rs"]
mod random;
use random::Rng;

/// A nested struct (inline, all versions).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "2+")]
struct Inner {
    /// A number.
    #[kafka(versions = "0+")]
    id: i32,
    /// A name, nullable from v1.
    #[kafka(versions = "0+", nullable = "1+")]
    label: Option<Str>,
    /// Tagged from v2.
    #[kafka(versions = "2+", tag = 0, tagged = "2+", default = "7")]
    weight: i64,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

/// Every type and attribute.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-4", flexible = "2+")]
struct Everything {
    /// bool
    #[kafka(versions = "0+")]
    flag: bool,
    /// int8
    #[kafka(versions = "0+")]
    tiny: i8,
    /// int16
    #[kafka(versions = "0+", default = "-1")]
    short: i16,
    /// uint16
    #[kafka(versions = "0+")]
    port: u16,
    /// int32
    #[kafka(versions = "0+", default = "0x7fffffff")]
    int: i32,
    /// uint32
    #[kafka(versions = "0+")]
    unsigned: u32,
    /// int64
    #[kafka(versions = "0+")]
    long: i64,
    /// float64
    #[kafka(versions = "0+", default = "1.5")]
    real: f64,
    /// string
    #[kafka(versions = "0+", default = "hello")]
    text: Str,
    /// nullable string from v1, classic always (field-level flexible override)
    #[kafka(versions = "0+", nullable = "1+", flexible = "none")]
    classic_text: Option<Str>,
    /// bytes
    #[kafka(versions = "0+")]
    blob: Bytes,
    /// nullable bytes
    #[kafka(versions = "0+", nullable = "0+", default = "null")]
    maybe_blob: Option<Bytes>,
    /// uuid
    #[kafka(versions = "0+")]
    id: Uuid,
    /// records, nullable
    #[kafka(versions = "0+", nullable = "0+")]
    records: Option<Records>,
    /// array of int32
    #[kafka(versions = "0+")]
    numbers: Vec<i32>,
    /// nullable array of strings
    #[kafka(versions = "1+", nullable = "1+")]
    names: Option<Vec<Str>>,
    /// array of structs
    #[kafka(versions = "0+")]
    inners: Vec<Inner>,
    /// a struct
    #[kafka(versions = "0+")]
    one: Inner,
    /// a nullable struct from v1
    #[kafka(versions = "1+", nullable = "1+", default = "null")]
    maybe_one: Option<Inner>,
    /// only in v0-1, not ignorable
    #[kafka(versions = "0-1", default = "5")]
    old: i32,
    /// only in v3+, ignorable
    #[kafka(versions = "3+", ignorable)]
    new: i32,
    /// mandatory in v0-2, tagged from v3
    #[kafka(versions = "0+", tag = 0, tagged = "3+")]
    mixed: i32,
    /// tagged nullable string, default null
    #[kafka(
        versions = "2+",
        tag = 1,
        tagged = "2+",
        nullable = "2+",
        default = "null"
    )]
    note: Option<Str>,
    /// tagged struct
    #[kafka(versions = "2+", tag = 2, tagged = "2+")]
    extra: Inner,
    /// tagged nullable string with a non-null default (null is written)
    #[kafka(
        versions = "2+",
        tag = 3,
        tagged = "2+",
        nullable = "2+",
        default = "x"
    )]
    defaulted: Option<Str>,
    /// tagged array
    #[kafka(versions = "4+", tag = 4, tagged = "4+")]
    tags: Vec<Str>,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

const VERSIONS: std::ops::RangeInclusive<Version> = 0..=4;

fn rich(v: Version) -> Everything {
    let inner = |id: i32| Inner {
        id,
        label: Some("in".into()),
        weight: if v >= 2 { 9 } else { 7 },
        ..Default::default()
    };
    let mut e = Everything {
        flag: true,
        tiny: -3,
        short: 300,
        port: 65535,
        int: -70000,
        unsigned: 4_000_000_000,
        long: i64::MIN,
        real: -2.25,
        text: "héllo".into(),
        classic_text: if v >= 1 { None } else { Some("c".into()) },
        blob: Bytes::from_static(&[1, 2, 3]),
        maybe_blob: Some(Bytes::new()),
        id: Uuid::from_halves(1, 2),
        records: Some(Records(Bytes::from(dynamic::empty_record_batch()))),
        numbers: vec![1, -1, 0],
        names: if v >= 1 {
            Some(vec!["a".into(), "".into()])
        } else {
            Some(vec![])
        },
        inners: vec![inner(1), inner(2)],
        one: inner(3),
        maybe_one: if v >= 1 { Some(inner(4)) } else { None },
        old: if v <= 1 { 11 } else { 5 },
        new: if v >= 3 { 12 } else { 0 },
        mixed: 13,
        note: if v >= 2 { Some("n".into()) } else { None },
        extra: if v >= 2 { inner(5) } else { Inner::default() },
        defaulted: if v >= 2 { None } else { Some("x".into()) },
        tags: if v >= 4 { vec!["t".into()] } else { vec![] },
        unknown_tagged_fields: UnknownTaggedFields::new(),
    };
    if v >= 2 {
        e.unknown_tagged_fields
            .push(9, Bytes::from_static(b"\x01\x02"));
        e.one.unknown_tagged_fields.push(5, Bytes::new());
    }
    e
}

fn typed_bytes<M: KafkaMessage>(m: &M, v: Version) -> Bytes {
    Bytes::from(m.encode_to_vec(v).unwrap())
}

#[test]
fn rich_values_same_bytes_both_ways() {
    for v in VERSIONS {
        let e = rich(v);
        let bytes = typed_bytes(&e, v);
        let d = dynamic::decode(Everything::META, &bytes, v).unwrap();
        assert_eq!(dynamic::encode(&d, v).unwrap(), bytes, "v{v}");
        // And the typed codec reads what the dynamic one writes.
        assert_eq!(Everything::decode_exact(&bytes, v).unwrap(), e);
    }
}

#[test]
fn defaults_match_the_derive() {
    let d = StructValue::default_of(Everything::META);
    for v in VERSIONS {
        assert_eq!(
            dynamic::encode(&d, v).unwrap(),
            typed_bytes(&Everything::default(), v),
            "v{v}"
        );
    }
    assert_eq!(d.get("Short"), Some(&Value::Int16(-1)));
    assert_eq!(d.get("Int"), Some(&Value::Int32(i32::MAX)));
    assert_eq!(d.get("Real"), Some(&Value::Float64(1.5)));
    assert_eq!(d.get("MaybeBlob"), Some(&Value::Null));
    assert_eq!(d.get("Records"), Some(&Value::Null));
    assert_eq!(d.get("Defaulted"), Some(&Value::String("x".into())));
}

#[test]
fn json_round_trip_is_lossless() {
    for v in VERSIONS {
        let e = rich(v);
        let j = to_json(&e, v).unwrap();
        let back: Everything = from_json(&j, v).unwrap();
        assert_eq!(back, e, "v{v}: {j}");
        // Text round trip too.
        let text = j.to_string();
        let j2: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(from_json::<Everything>(&j2, v).unwrap(), e);
    }
    let j = to_json(&rich(4), 4).unwrap();
    assert_eq!(
        j["_unknownTaggedFields"],
        json!([{"tag": 9, "data": "AQI="}])
    );
    assert_eq!(
        j["one"]["_unknownTaggedFields"],
        json!([{"tag": 5, "data": ""}])
    );
    assert_eq!(j["id"], json!("AAAAAAAAAAEAAAAAAAAAAg"));
    assert_eq!(j["long"], json!(i64::MIN));
    assert_eq!(j["blob"], json!("AQID"));
    assert_eq!(j["classicText"], json!(null));
    assert!(j.get("old").is_none(), "v4 has no `old`");
    assert_eq!(j["new"], json!(12));
}

#[test]
fn json_missing_fields_take_defaults_and_bad_input_is_an_error() {
    let e: Everything = from_json(&json!({}), 3).unwrap();
    assert_eq!(e, Everything::default());
    let e: Everything = from_json(&json!({"flag": true, "numbers": [1, 2]}), 3).unwrap();
    assert!(e.flag);
    assert_eq!(e.numbers, vec![1, 2]);

    let err = |j: serde_json::Value, v: Version| from_json::<Everything>(&j, v).unwrap_err();
    let e = err(json!({"nope": 1}), 3);
    assert!(e.to_string().contains("unknown field `nope`"), "{e}");
    let e = err(json!({"tiny": 300}), 3);
    assert_eq!(e.path(), "Everything.tiny");
    let e = err(json!({"inners": [{"id": "x"}]}), 3);
    assert_eq!(e.path(), "Everything.inners[0].id");
    // `old` is only in v0-1: a non-default value at v3 is an error, its default is not.
    let e = err(json!({"old": 6}), 3);
    assert!(e.to_string().contains("not in version 3"), "{e}");
    assert!(from_json::<Everything>(&json!({"old": 5}), 3).is_ok());
    // Null where the version is not nullable: the encoder's error, with the typed path.
    let e = err(json!({"classicText": null}), 0);
    assert!(matches!(e, JsonError::Encode(_)), "{e:?}");
    assert_eq!(e.path(), "Everything.classic_text");
    let e = err(json!({"flag": null}), 0);
    assert!(e.to_string().contains("null is not a valid bool"), "{e}");
    let e = err(json!({"id": "not-a-uuid"}), 0);
    assert!(e.to_string().contains("invalid uuid"), "{e}");
    // A uuid in Kafka's base64 or in the 8-4-4-4-12 hex `kwire dump` shows: the same value.
    let id = Uuid::from_u128(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10);
    for text in [
        "AQIDBAUGBwgJCgsMDQ4PEA",
        "01020304-0506-0708-090a-0b0c0d0e0f10",
    ] {
        let e: Everything = from_json(&json!({"id": text}), 0).unwrap();
        assert_eq!(e.id, id, "{text}");
    }
    for bad in [
        "01020304-0506-0708-090a-0b0c0d0e0f1",
        "0102030405060708090a0b0c0d0e0f10",
        "0102030g-0506-0708-090a-0b0c0d0e0f10",
    ] {
        assert!(
            err(json!({"id": bad}), 0)
                .to_string()
                .contains("invalid uuid"),
            "{bad}"
        );
    }
    let e = err(json!({"_unknownTaggedFields": [{"tag": 1, "data": ""}]}), 3);
    assert!(e.to_string().contains("tag 1"), "{e}");
    let e = err(json!({"_unknownTaggedFields": [{"tag": 9, "data": ""}]}), 1);
    assert!(e.to_string().contains("does not support them"), "{e}");
    let e = err(json!([1]), 1);
    assert!(e.to_string().contains("expected an object"), "{e}");
}

/// Flips and truncates bytes of valid encodings: the dynamic decoder must fail exactly as
/// the typed one does (kind, offset, path), or succeed with the same value.
#[test]
fn corrupted_input_fails_like_the_typed_codec() {
    let mut rng = Rng::new(7);
    for v in VERSIONS {
        let good = typed_bytes(&rich(v), v).to_vec();
        for i in 0..2000 {
            let mut b = good.clone();
            if i % 3 == 0 {
                b.truncate(rng.below(b.len() as u64) as usize);
            } else {
                let at = rng.below(b.len() as u64) as usize;
                b[at] = rng.next() as u8;
            }
            let b = Bytes::from(b);
            let typed: Result<Everything, DecodeError> = Everything::decode_exact(&b, v);
            let dynamic = dynamic::decode(Everything::META, &b, v);
            match (typed, dynamic) {
                (Ok(t), Ok(d)) => assert_eq!(dynamic::encode(&d, v).unwrap(), typed_bytes(&t, v)),
                (Err(t), Err(d)) => assert_eq!(t, d, "v{v} {b:?}"),
                (t, d) => panic!("v{v} {b:?}: typed {t:?} vs dynamic {d:?}"),
            }
        }
    }
}

/// Random values at every version: typed encode == dynamic encode, JSON lossless.
#[test]
fn random_values_round_trip() {
    let mut rng = Rng::new(42);
    for v in VERSIONS {
        for _ in 0..300 {
            let d = random::value_of(Everything::META, v, &mut rng);
            let bytes = Bytes::from(dynamic::encode(&d, v).unwrap());
            let typed = Everything::decode_exact(&bytes, v).unwrap();
            assert_eq!(typed_bytes(&typed, v), bytes);
            assert_eq!(dynamic::decode(Everything::META, &bytes, v).unwrap(), d);
            let j = json::struct_to_json(&d, v);
            assert_eq!(json::struct_from_json(Everything::META, &j, v).unwrap(), d);
            assert_eq!(from_json::<Everything>(&j, v).unwrap(), typed);
        }
    }
}

#[test]
fn encode_errors_match_the_typed_codec() {
    // A non-default value in a field the version lacks.
    let e = Everything {
        old: 6,
        ..Default::default()
    };
    let mut d = StructValue::default_of(Everything::META);
    *d.get_mut("Old").unwrap() = Value::Int32(6);
    assert_eq!(
        e.encode_to_vec(2).unwrap_err(),
        dynamic::encode(&d, 2).unwrap_err()
    );
    // Ignorable: dropped.
    *d.get_mut("Old").unwrap() = Value::Int32(5);
    *d.get_mut("New").unwrap() = Value::Int32(1);
    assert!(dynamic::encode(&d, 0).is_ok());
    // Unknown tags out of order.
    let mut e = Everything::default();
    e.unknown_tagged_fields.push(9, Bytes::new());
    e.unknown_tagged_fields.push(8, Bytes::new());
    let mut d = StructValue::default_of(Everything::META);
    d.unknown = e.unknown_tagged_fields.clone();
    assert_eq!(
        e.encode_to_vec(2).unwrap_err(),
        dynamic::encode(&d, 2).unwrap_err()
    );
    // Version out of range.
    assert_eq!(
        Everything::default().encode_to_vec(5).unwrap_err(),
        dynamic::encode(&StructValue::default_of(Everything::META), 5).unwrap_err()
    );
    // A value of the wrong type is an error, not a panic.
    *d.get_mut("Flag").unwrap() = Value::Int8(1);
    assert!(dynamic::encode(&d, 2).is_err());
}

#[test]
fn samples_are_legal_and_smallest() {
    for v in VERSIONS {
        let s = StructValue::sample(Everything::META, v);
        let bytes = Bytes::from(dynamic::encode(&s, v).unwrap());
        let t = Everything::decode_exact(&bytes, v).unwrap();
        assert_eq!(t.numbers, vec![0]);
        assert_eq!(t.text, "");
        assert_eq!(t.inners.len(), 1);
        assert_eq!(t.records.as_ref().map(|r| r.0.len()), Some(61));
        assert_eq!(t.note, None, "tagged fields keep their defaults");
    }
    // The sample record batch is a valid empty RecordBatch v2 (CRC-32C over attributes..).
    let b = dynamic::empty_record_batch();
    assert_eq!(b.len(), 61);
    assert_eq!(&b[8..12], &49i32.to_be_bytes());
    assert_eq!(b[16], 2);
}

#[test]
fn headers_and_trace() {
    let h = RequestHeader::new(24, 5, 9, Some("cli".into()));
    let bytes = typed_bytes(&h, 2);
    let mut trace = Trace::new();
    let mut r = kafka_wire::Reader::new(&bytes);
    let d = dynamic::decode_from(RequestHeader::META, &mut r, 2, Some(&mut trace)).unwrap();
    assert_eq!(dynamic::encode(&d, 2).unwrap(), bytes);
    let nodes = trace.into_roots();
    let names: Vec<_> = nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "RequestApiKey",
            "RequestApiVersion",
            "CorrelationId",
            "ClientId",
            "tagged_fields"
        ]
    );
    assert_eq!(nodes[3].value, "\"cli\" (int16 len=3)");
    assert_eq!((nodes[3].offset, nodes[3].size), (8, 5));
    let r = ResponseHeader::new(3);
    assert_eq!(to_json(&r, 1).unwrap(), json!({"correlationId": 3}));
}

#[test]
fn trace_keeps_the_nodes_before_a_failure() {
    let bytes = typed_bytes(&rich(3), 3);
    let cut = Bytes::from(bytes[..40].to_vec());
    let mut trace = Trace::new();
    let mut r = kafka_wire::Reader::new(&cut);
    let e = dynamic::decode_from(Everything::META, &mut r, 3, Some(&mut trace)).unwrap_err();
    let nodes = trace.into_roots();
    let last = nodes.last().unwrap();
    assert!(last.error.is_some(), "{nodes:?}");
    assert_eq!(e, Everything::decode_exact(&cut, 3).unwrap_err());
}
