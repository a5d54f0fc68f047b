//! The framework on its own: test structs that use every type and every attribute, round
//! trips at every version, byte vectors written by hand from the wire rules (ARCHITECTURE.md, *Wire rules*), and the version,
//! nullability and tagged-field rules.

use bytes::Bytes;
use kafka_wire::{
    ApiKind, ApiMessage, DecodeErrorKind, EncodeErrorKind, KafkaMessage, KafkaType, Records,
    RequestHeader, ResponseHeader, Str, UnknownTaggedFields, Uuid,
};
use kafka_wire_tests::hex;

/// A nested struct, used as array element, plain field and nullable field.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "2+")]
struct Inner {
    /// A number.
    #[kafka(versions = "0+")]
    x: i32,
    /// A nullable label.
    #[kafka(versions = "0+", nullable = "0+")]
    label: Option<Str>,
    /// Unknown tagged fields.
    unknown: UnknownTaggedFields,
}

/// Every Kafka type and every attribute at once.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 1000, request, versions = "0-4", flexible = "2+")]
struct Everything {
    #[kafka(versions = "0+")]
    b: bool,
    #[kafka(versions = "0+")]
    i8v: i8,
    #[kafka(versions = "0+")]
    i16v: i16,
    #[kafka(versions = "1+")]
    u16v: u16,
    #[kafka(versions = "0+", default = "0x7fffffff")]
    i32v: i32,
    #[kafka(versions = "0+")]
    u32v: u32,
    #[kafka(versions = "0+", default = "-1")]
    i64v: i64,
    #[kafka(versions = "0+")]
    f: f64,
    #[kafka(versions = "0+")]
    s: Str,
    #[kafka(versions = "0+")]
    owned: String,
    #[kafka(versions = "0+", nullable = "1+")]
    ns: Option<Str>,
    #[kafka(versions = "0+")]
    bytes: Bytes,
    #[kafka(versions = "0+", nullable = "0+")]
    nb: Option<Bytes>,
    #[kafka(versions = "3+")]
    id: Uuid,
    #[kafka(versions = "0+", nullable = "0+")]
    records: Option<Records>,
    #[kafka(versions = "0+")]
    ints: Vec<i32>,
    #[kafka(versions = "0+")]
    strs: Vec<Str>,
    #[kafka(versions = "0+", nullable = "2+")]
    nested: Option<Vec<Inner>>,
    #[kafka(versions = "0+")]
    one: Inner,
    #[kafka(versions = "0+", nullable = "0+", default = "null")]
    maybe: Option<Inner>,
    #[kafka(versions = "0-1", ignorable)]
    old: i32,
    #[kafka(versions = "0+", tag = 0, tagged = "3+")]
    mixed: i32,
    #[kafka(versions = "2+", tag = 1, tagged = "2+", default = "hello")]
    tagged_s: Str,
    #[kafka(versions = "2+", tag = 2, tagged = "2+", nullable = "2+")]
    tagged_ns: Option<Str>,
    #[kafka(versions = "4+", tag = 3, tagged = "4+")]
    tagged_arr: Vec<i64>,
    #[kafka(
        versions = "2+",
        tag = 4,
        tagged = "2+",
        nullable = "2+",
        default = "null"
    )]
    tagged_struct: Option<Inner>,
    #[kafka(versions = "0+", flexible = "none")]
    classic: Str,
    unknown: UnknownTaggedFields,
}

fn inner(x: i32, label: Option<&'static str>, flexible: bool) -> Inner {
    let mut unknown = UnknownTaggedFields::new();
    if flexible {
        unknown.push(7, Bytes::from_static(&[1, 2, 3]));
    }
    Inner {
        x,
        label: label.map(Str::from),
        unknown,
    }
}

/// A value with every field set to something non-trivial, then reduced to what `v` has.
fn sample(v: i16) -> Everything {
    let flex = v >= 2;
    let mut unknown = UnknownTaggedFields::new();
    if flex {
        unknown.push(10, Bytes::from_static(b"ten"));
        unknown.push(300, Bytes::new());
    }
    let d = Everything::default();
    Everything {
        b: true,
        i8v: i8::MIN,
        i16v: -1,
        u16v: if v >= 1 { u16::MAX } else { d.u16v },
        i32v: i32::MIN,
        u32v: u32::MAX,
        i64v: i64::MIN,
        f: -0.5,
        s: Str::from("zürich ✓"),
        owned: "日本".to_owned(),
        ns: if v >= 1 { None } else { Some(Str::from("x")) },
        bytes: Bytes::from_static(&[0, 255, 7]),
        nb: None,
        id: if v >= 3 {
            Uuid::from_u128(0x0123_4567_89ab_cdef_0011_2233_4455_6677)
        } else {
            Uuid::ZERO
        },
        records: Some(Records(Bytes::from_static(&[9; 61]))),
        ints: vec![i32::MAX, 0, -1],
        strs: vec![Str::from("a"), Str::new(), Str::from("ß")],
        nested: if flex {
            None
        } else {
            Some(vec![inner(1, Some("one"), flex), inner(2, None, flex)])
        },
        one: inner(-9, Some(""), flex),
        maybe: Some(inner(3, Some("m"), flex)),
        old: if v <= 1 { 42 } else { d.old },
        mixed: 77,
        tagged_s: if flex { Str::from("bye") } else { d.tagged_s },
        tagged_ns: if flex { None } else { d.tagged_ns },
        tagged_arr: if v >= 4 { vec![1, i64::MAX] } else { vec![] },
        tagged_struct: if flex {
            Some(inner(5, None, flex))
        } else {
            None
        },
        classic: Str::from("client-é"),
        unknown,
    }
}

#[test]
fn every_type_round_trips_at_every_version() {
    for v in 0..=4 {
        let x = sample(v);
        let bytes = x.encode_to_vec(v).unwrap_or_else(|e| panic!("v{v}: {e}"));
        assert_eq!(x.encoded_size(v), bytes.len(), "v{v}: size");
        let back = Everything::decode_exact(&Bytes::from(bytes), v)
            .unwrap_or_else(|e| panic!("v{v}: {e}"));
        assert_eq!(back, x, "v{v}");
    }
}

#[test]
fn defaults_are_the_declared_ones() {
    let d = Everything::default();
    assert_eq!(d.i32v, 0x7fff_ffff);
    assert_eq!(d.i64v, -1);
    assert_eq!(
        d.ns.as_deref(),
        Some(""),
        "nullable string without default: \"\""
    );
    assert_eq!(d.nb.as_deref(), Some(&[][..]));
    assert_eq!(d.records, None, "records default to null");
    assert_eq!(d.maybe, None);
    assert_eq!(d.tagged_s, "hello");
    assert_eq!(d.tagged_ns.as_deref(), Some(""));
    assert_eq!(d.one, Inner::default());
    assert!(d.unknown.is_empty());
    // Default encodes and decodes back at every version.
    for v in 0..=4 {
        let b = d.encode_to_vec(v).unwrap();
        assert_eq!(Everything::decode_exact(&b.into(), v).unwrap(), d);
    }
}

#[test]
fn metadata_describes_the_declaration() {
    let m = Everything::META;
    assert_eq!(m.name, "Everything");
    assert_eq!(m.versions.to_string(), "0-4");
    assert_eq!(m.flexible.to_string(), "2+");
    assert_eq!(
        m.api.map(|a| (a.key, a.kind)),
        Some((1000, ApiKind::Request))
    );
    assert_eq!(<Everything as ApiMessage>::API_KEY, 1000);
    assert_eq!(m.fields.len(), 27);
    let f = m.field("TaggedNs").unwrap();
    assert_eq!(
        (f.tag, f.tagged.to_string(), f.nullable.to_string()),
        (Some(2), "2+".into(), "2+".into())
    );
    assert_eq!(m.field("Nested").unwrap().ty.to_string(), "[]Inner");
    assert_eq!(m.field("Strs").unwrap().ty.to_string(), "[]string");
    assert_eq!(m.field("Records").unwrap().ty, KafkaType::Records);
    assert_eq!(m.field("I32v").unwrap().default, Some("0x7fffffff"));
    assert!(m.field("Old").unwrap().ignorable);
    assert_eq!(
        m.field("Classic").unwrap().flexible.map(|r| r.to_string()),
        Some("none".into())
    );
    assert_eq!(m.field("Mixed").unwrap().mandatory().to_string(), "0-2");
    let inner = m.field("One").unwrap().ty.as_struct().unwrap();
    assert_eq!(inner.fields[1].name, "Label");
}

/// A struct small enough to write its bytes by hand from the rules in ARCHITECTURE.md (*Primitives*, *Tagged fields*).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-3", flexible = "2+")]
struct Small {
    /// Mandatory in 0-2, tagged from 3.
    #[kafka(versions = "0+", tag = 0, tagged = "3+")]
    m: i32,
    /// Nullable from v1.
    #[kafka(versions = "0+", nullable = "1+")]
    s: Option<Str>,
    /// Added in v1, not ignorable.
    #[kafka(versions = "1+")]
    a: Vec<i16>,
    unknown: UnknownTaggedFields,
}

fn small(m: i32, s: Option<&'static str>, a: Vec<i16>) -> Small {
    Small {
        m,
        s: s.map(Str::from),
        a,
        unknown: UnknownTaggedFields::new(),
    }
}

#[test]
fn small_struct_byte_vectors() {
    let cases: Vec<(Small, i16, &str)> = vec![
        // int32 1, classic string "é" (int16 length 2)
        (small(1, Some("é"), vec![]), 0, "00000001 0002 c3a9"),
        // + int32 count 2, int16 1, int16 -1
        (
            small(1, Some("é"), vec![1, -1]),
            1,
            "00000001 0002c3a9 00000002 0001 ffff",
        ),
        // classic null string
        (
            small(1, None, vec![1, -1]),
            1,
            "00000001 ffff 00000002 0001 ffff",
        ),
        // flexible: compact string (len+1), compact array (n+1), empty tagged section
        (
            small(1, Some("é"), vec![1, -1]),
            2,
            "00000001 03c3a9 03 0001 ffff 00",
        ),
        // compact null string
        (small(1, None, vec![]), 2, "00000001 00 01 00"),
        // v3: m is tagged: count 1, tag 0, size 4, int32 1
        (
            small(1, Some("é"), vec![1, -1]),
            3,
            "03c3a9 03 0001 ffff 01 00 04 00000001",
        ),
        // v3: m at its default is not written
        (small(0, Some(""), vec![]), 3, "01 01 00"),
    ];
    for (value, v, expected) in cases {
        let bytes = value.encode_to_vec(v).unwrap();
        assert_eq!(bytes, hex(expected), "v{v} {value:?}");
        assert_eq!(value.encoded_size(v), bytes.len());
        assert_eq!(Small::decode_exact(&Bytes::from(bytes), v).unwrap(), value);
    }
    // Unknown tags are kept and re-emitted after the known ones, in ascending order.
    let raw = hex("01 01 03 00 04 00000001 05 01 aa 09 00");
    let d = Small::decode_exact(&Bytes::from(raw.clone()), 3).unwrap();
    assert_eq!(d.m, 1);
    let tags: Vec<u32> = d.unknown.iter().map(|f| f.tag).collect();
    assert_eq!(tags, [5, 9]);
    assert_eq!(d.encode_to_vec(3).unwrap(), raw);
}

#[test]
fn version_rules_on_encode() {
    // Outside the struct's versions.
    let e = small(0, Some(""), vec![]).encode_to_vec(4).unwrap_err();
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::UnsupportedVersion {
            name: "Small",
            version: 4
        }
    );
    // A non-default, non-ignorable field absent at the version.
    let e = small(0, Some(""), vec![1]).encode_to_vec(0).unwrap_err();
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::NonDefaultAbsentField { version: 0 }
    );
    assert_eq!(e.path().to_string(), "Small.a");
    assert_eq!(e.to_string(), "attempted to write a non-default value of a field that version 0 does not have in `Small.a`");
    // Null where the version is not nullable.
    let e = small(0, None, vec![]).encode_to_vec(0).unwrap_err();
    assert_eq!(e.kind(), &EncodeErrorKind::NullNotAllowed { version: 0 });
    assert_eq!(e.path().to_string(), "Small.s");
    // Ignorable fields are dropped silently.
    let mut x = sample(2);
    x.old = 5;
    let b = x.encode_to_vec(2).unwrap();
    assert_eq!(Everything::decode_exact(&b.into(), 2).unwrap().old, 0);
    // Nested errors carry the whole path.
    let mut x = sample(0);
    x.nested = Some(vec![inner(1, None, false), inner(2, None, false)]);
    x.nested.as_mut().unwrap()[1].unknown.push(1, Bytes::new());
    let e = x.encode_to_vec(0).unwrap_err();
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::TaggedFieldsNotSupported { version: 0 }
    );
    assert_eq!(e.path().to_string(), "Everything.nested[1].unknown");
}

#[test]
fn unknown_tagged_fields_are_sized() {
    // Inner at v2 (flexible): x, a null compact label, then the section: count 2, tag 7 with
    // three bytes, tag 300 (uvarint ac 02) with none. Bytes assembled from the wire rules.
    let mut x = Inner {
        x: 1,
        label: None,
        unknown: UnknownTaggedFields::new(),
    };
    x.unknown.push(7, Bytes::from_static(&[1, 2, 3]));
    x.unknown.push(300, Bytes::new());
    let v2 = hex("00000001 00 02 07 03 010203 ac02 00");
    assert_eq!(x.encoded_size(2), v2.len());
    assert_eq!(x.encode_to_vec(2).unwrap(), v2);
    // At v1 there is no tagged section: the unknown fields add nothing to the size (and the
    // encode refuses them).
    assert_eq!(x.encoded_size(1), hex("00000001 ffff").len());
    assert_eq!(
        x.encode_to_vec(1).unwrap_err().kind(),
        &EncodeErrorKind::TaggedFieldsNotSupported { version: 1 }
    );
}

#[test]
fn unknown_tag_rules_on_encode() {
    let mut x = small(0, Some(""), vec![]);
    x.unknown.push(0, Bytes::new());
    let e = x.encode_to_vec(3).unwrap_err();
    assert_eq!(e.kind(), &EncodeErrorKind::RawTagCollides(0));
    let mut x = small(0, Some(""), vec![]);
    x.unknown.push(5, Bytes::new());
    x.unknown.push(5, Bytes::new());
    let e = x.encode_to_vec(3).unwrap_err();
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::UnorderedRawTag {
            tag: 5,
            previous: 5
        }
    );
    let e = x.encode_to_vec(1).unwrap_err();
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::TaggedFieldsNotSupported { version: 1 }
    );
}

fn decode_err(bytes: &str, v: i16) -> kafka_wire::DecodeError {
    Small::decode_exact(&Bytes::from(hex(bytes)), v).unwrap_err()
}

#[test]
fn tagged_section_rules_on_decode() {
    // Tag 0 is declared but only tagged from v3.
    let e = decode_err("00000001 01 01 01 00 04 00000001", 2);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::TagNotValidForVersion { tag: 0, version: 2 }
    );
    assert_eq!(e.path().to_string(), "Small.m");
    // Out of order and duplicate tags.
    let e = decode_err("01 01 02 09 00 05 00", 3);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::UnorderedTag {
            tag: 5,
            previous: 9
        }
    );
    assert_eq!(e.offset(), 5);
    let e = decode_err("01 01 02 05 00 05 00", 3);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::UnorderedTag {
            tag: 5,
            previous: 5
        }
    );
    // A known field whose payload does not fill its declared size.
    let e = decode_err("01 01 01 00 05 00000001 00", 3);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::TaggedSizeMismatch {
            tag: 0,
            declared: 5,
            actual: 4
        }
    );
    assert_eq!(
        (e.offset(), e.path().to_string()),
        (5, "Small.m".to_owned())
    );
    // A tag size beyond the input.
    let e = decode_err("01 01 01 07 09 00", 3);
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::LengthExceedsInput { declared: 9, .. }
    ));
    // Trailing bytes after the struct.
    let e = decode_err("01 01 00 ff", 3);
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes(1));
    assert_eq!(e.offset(), 3);
    // Decoding outside the versions.
    let e = decode_err("00", 9);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::UnsupportedVersion {
            name: "Small",
            version: 9
        }
    );
}

#[test]
fn decode_errors_name_the_field_and_offset() {
    // v1: null string allowed; v0: not.
    let e = decode_err("00000001 ffff", 0);
    assert_eq!(e.kind(), &DecodeErrorKind::UnexpectedNull { version: 0 });
    assert_eq!(
        (e.offset(), e.path().to_string()),
        (4, "Small.s".to_owned())
    );
    // Array element truncated: path includes the index.
    let e = decode_err("00000001 ffff 00000002 0001 ff", 1);
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::Truncated {
            needed: 2,
            available: 1
        }
    ));
    assert_eq!(
        (e.offset(), e.path().to_string()),
        (12, "Small.a[1]".to_owned())
    );
    assert_eq!(
        e.to_string(),
        "truncated input: needed 2 more byte(s), 1 available at byte 12 in `Small.a[1]`"
    );
    // Deep paths through nested structs and arrays.
    let mut x = sample(0);
    x.nested = Some(vec![inner(1, None, false), inner(2, Some("ab"), false)]);
    let mut b = x.encode_to_vec(0).unwrap();
    // Corrupt the second element's label ("ab") into invalid UTF-8: an error with the
    // deep path under strict_utf8 (accepted and kept by default, as Kafka's Java does).
    let pos = b.windows(2).position(|w| w == b"ab").unwrap();
    b[pos] = 0xff;
    let b = Bytes::from(b);
    let kept = Everything::decode_exact(&b, 0).unwrap();
    assert_eq!(kept.encode_to_vec(0).unwrap(), b);
    let limits = kafka_wire::DecodeLimits::new().strict_utf8(true);
    let mut r = kafka_wire::Reader::with_limits(&b, &limits);
    let e = Everything::decode(&mut r, 0).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)));
    assert_eq!(e.offset(), pos);
    assert_eq!(e.path().to_string(), "Everything.nested[1].label");
}

#[test]
fn headers_match_the_seed_pages() {
    // From the seed pages' trees: request header v2 = api key, version, correlation id,
    // client id as a classic int16-prefixed string, tagged-field count.
    let h = RequestHeader::new(24, 5, 0, Some(Str::new()));
    assert_eq!(
        h.encode_to_vec(2).unwrap(),
        hex("0018 0005 00000000 0000 00")
    );
    assert_eq!(h.encode_to_vec(1).unwrap(), hex("0018 0005 00000000 0000"));
    let h = RequestHeader::new(28, 3, 7, None);
    assert_eq!(
        h.encode_to_vec(2).unwrap(),
        hex("001c 0003 00000007 ffff 00")
    );
    assert_eq!(
        RequestHeader::decode_exact(&hex("001c 0003 00000007 ffff 00").into(), 2).unwrap(),
        h
    );
    // Response header v1 = correlation id + tagged count; v0 = correlation id.
    let r = ResponseHeader::new(0);
    assert_eq!(r.encode_to_vec(1).unwrap(), hex("00000000 00"));
    assert_eq!(r.encode_to_vec(0).unwrap(), hex("00000000"));
    assert_eq!(
        kafka_wire::request_header_version(kafka_wire::VersionRange::at_least(3), 5),
        2
    );
    assert_eq!(
        kafka_wire::request_header_version(kafka_wire::VersionRange::at_least(3), 2),
        1
    );
    assert_eq!(
        kafka_wire::response_header_version(18, kafka_wire::VersionRange::at_least(3), 3),
        0
    );
    assert_eq!(
        kafka_wire::response_header_version(24, kafka_wire::VersionRange::at_least(3), 3),
        1
    );
}

/// A user newtype implementing the field trait by delegation.
#[derive(Debug, Clone, Default, PartialEq)]
struct TopicName(Str);

// The hidden hooks every `Field` has: their defaults.
impl kafka_wire::__private::FieldHooks for TopicName {}

impl kafka_wire::Field for TopicName {
    const KAFKA_TYPE: KafkaType = KafkaType::String;
    fn write<B: kafka_wire::bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
        cx: kafka_wire::Cx,
    ) -> Result<(), kafka_wire::EncodeError> {
        self.0.write(buf, cx)
    }
    fn size(&self, cx: kafka_wire::Cx) -> usize {
        self.0.size(cx)
    }
    fn read(
        r: &mut kafka_wire::Reader<'_>,
        cx: kafka_wire::Cx,
    ) -> Result<Self, kafka_wire::DecodeError> {
        Str::read(r, cx).map(TopicName)
    }
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-1", flexible = "1+")]
struct WithNewtype {
    #[kafka(versions = "0+")]
    topics: Vec<TopicName>,
    unknown: UnknownTaggedFields,
}

#[test]
fn user_newtypes_are_fields() {
    let x = WithNewtype {
        topics: vec![TopicName("t1".into())],
        unknown: UnknownTaggedFields::new(),
    };
    assert_eq!(x.encode_to_vec(1).unwrap(), hex("02 03 7431 00"));
    assert_eq!(WithNewtype::META.fields[0].ty.to_string(), "[]string");
    let b = x.encode_to_vec(0).unwrap();
    assert_eq!(WithNewtype::decode_exact(&b.into(), 0).unwrap(), x);
}

/// Adjacent fixed-width fields, written and read as one run when all are present.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-1", flexible = "none")]
struct FixedRun {
    #[kafka(versions = "0+")]
    a: i32,
    #[kafka(versions = "0+")]
    b: i64,
    #[kafka(versions = "1+", default = "-1")]
    c: i16,
    #[kafka(versions = "0+")]
    s: Str,
}

#[test]
fn fixed_width_runs_keep_per_field_bytes_and_errors() {
    let x = FixedRun {
        a: 0x0102_0304,
        b: -2,
        c: 0x0506,
        s: Str::from("z"),
    };
    let v1 = hex("01020304 fffffffffffffffe 0506 0001 7a");
    assert_eq!(x.encode_to_vec(1).unwrap(), v1);
    assert_eq!(x.encoded_size(1), v1.len());
    assert_eq!(FixedRun::decode_exact(&v1.clone().into(), 1).unwrap(), x);
    // In place into vectors: one that must grow at the run (none, or too little room), one
    // after bytes already there, and one with room for exactly the message (never grown).
    for (prior, cap) in [(0, 0), (0, 4), (3, 5), (3, 3 + v1.len()), (0, 64)] {
        let mut out = Vec::with_capacity(cap);
        out.extend_from_slice(&[9, 8, 7][..prior]);
        x.encode(&mut out, 1).unwrap();
        assert_eq!(out[..prior], [9, 8, 7][..prior]);
        assert_eq!(out[prior..], v1[..], "prior {prior} capacity {cap}");
        if cap == 3 + v1.len() {
            assert_eq!(out.capacity(), cap, "never grown");
        }
    }
    // v0 has no `c`: the run is not taken, each field goes on its own.
    let e = x.encode_to_vec(0).unwrap_err();
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::NonDefaultAbsentField { version: 0 }
    );
    let y = FixedRun { c: -1, ..x.clone() };
    let v0 = hex("01020304 fffffffffffffffe 0001 7a");
    assert_eq!(y.encode_to_vec(0).unwrap(), v0);
    assert_eq!(y.encoded_size(0), v0.len());
    assert_eq!(FixedRun::decode_exact(&v0.into(), 0).unwrap(), y);
    // Cut anywhere inside the run: the error is the field's own, at the field's offset.
    for cut in 0..14 {
        let e = FixedRun::decode_exact(&Bytes::copy_from_slice(&v1[..cut]), 1).unwrap_err();
        let (field, at, width) = match cut {
            0..=3 => ("a", 0, 4),
            4..=11 => ("b", 4, 8),
            _ => ("c", 12, 2),
        };
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::Truncated {
                needed: width,
                available: cut - at
            },
            "cut at {cut}"
        );
        assert_eq!(
            (e.offset(), e.path().to_string()),
            (at, format!("FixedRun.{field}")),
            "cut at {cut}"
        );
    }
}

/// Arrays of `Everything`, to read them past what the input can hold (the metadata-driven
/// discard path): an over-long `list` claims the input for its later elements, so
/// `items` in its first element cannot fit and is read by the discard path.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-4", flexible = "2+")]
struct Many {
    #[kafka(versions = "0+")]
    items: Vec<Everything>,
    unknown: UnknownTaggedFields,
}

/// See [`Many`].
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-4", flexible = "2+")]
struct Outer {
    #[kafka(versions = "0+")]
    list: Vec<Many>,
    unknown: UnknownTaggedFields,
}

#[test]
fn string_fields_are_utf8_in_every_reader() {
    // A `String` field (`owned`) rejects invalid UTF-8 in the typed read whatever the
    // limits; the metadata-driven decoder and the discard path of an over-long array must
    // reject it too, with the same kind, offset (the string's first byte) and path.
    fn key(e: &kafka_wire::DecodeError) -> (bool, usize, String) {
        (
            matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)),
            e.offset(),
            e.path().to_string(),
        )
    }
    // An array count as the wire writes it: int32, or unsigned varint of count + 1.
    fn count(n: u32, flexible: bool) -> Vec<u8> {
        if !flexible {
            return n.to_be_bytes().to_vec();
        }
        let (mut v, mut out) = (n + 1, Vec::new());
        while v >= 0x80 {
            out.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        out
    }
    for v in 0..=4i16 {
        let flexible = v >= 2;
        let mut x = sample(v);
        x.owned = "OWNED!".to_owned();
        let mut b = x.encode_to_vec(v).unwrap();
        let pos = b.windows(6).position(|w| w == b"OWNED!").unwrap();
        b[pos + 1] = 0xff; // "O\xffNED!": a lone continuation byte
        let b = Bytes::from(b);

        let typed = Everything::decode_exact(&b, v).unwrap_err();
        assert_eq!(
            key(&typed),
            (true, pos, "Everything.owned".to_owned()),
            "v{v}: {typed}"
        );
        let dynamic = kafka_wire::dynamic::decode(Everything::META, &b, v).unwrap_err();
        assert_eq!(key(&dynamic), key(&typed), "v{v} dynamic: {dynamic}");

        // `Outer { list: [Many { items: [x] }, ...] }`: with a `list` count of 1 every
        // element is read by the typed `read`; with a count as large as the input allows,
        // `list`'s later elements claim the input and `items` is read by the discard path.
        let mut inner = count(1, flexible);
        let at_inner = inner.len();
        inner.extend_from_slice(&b);
        if flexible {
            inner.push(0); // Many's tagged fields
        }
        for (what, big) in [("fits", false), ("over-long", true)] {
            let tail = inner.len() + usize::from(flexible);
            let n = if big { tail as u32 } else { 1 };
            let mut m = count(n, flexible);
            let at = m.len() + at_inner;
            m.extend_from_slice(&inner);
            if flexible {
                m.push(0); // Outer's tagged fields
            }
            let m = Bytes::from(m);
            let e = Outer::decode_exact(&m, v).unwrap_err();
            assert_eq!(
                key(&e),
                (true, at + pos, "Outer.list[0].items[0].owned".to_owned()),
                "v{v} {what}: {e}"
            );
            let d = kafka_wire::dynamic::decode(Outer::META, &m, v).unwrap_err();
            assert_eq!(key(&d), key(&e), "v{v} {what} dynamic: {d}");
        }
    }
}
