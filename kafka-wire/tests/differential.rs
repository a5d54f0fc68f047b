//! The typed codec (generated code) against the metadata-driven one (`kafka_wire::dynamic`),
//! on test-only structs built to hit the combinations where two implementations of the wire
//! rules drift apart: a tagged range that starts after the flexible range, nullable ranges
//! narrower than the field's versions, ignorable and non-ignorable fields that some versions
//! lack, nested flexible structs, unknown tagged fields at every level, and arrays of
//! fixed-width integers kept as their wire bytes (`FixedArray`) at every width, and the same
//! nesting declared `outline` (each field a call, arrays of structs through the element loops
//! shared by every `outline` type).
//!
//! Each struct gets at least 100,000 mutated inputs (random legal values, encoded, then bytes
//! flipped, replaced, inserted, deleted or cut): both codecs must accept the same inputs and
//! re-encode them to the same bytes, or fail with the same error kind, byte offset and field
//! path. Decoded values are also re-encoded at every other version, where both must again
//! give the same bytes or the same error.
//!
//! The same structs are also compared as whole request frames (size prefix, header, body),
//! mutated, under random [`DecodeLimits`] and with or without trailing bytes allowed: the
//! typed frame decoder (`frame::decode_request`) and the metadata-driven one
//! (`dynamic::decode_request_frame`) must give the same header, body and
//! ignored byte count, or the same error.

use bytes::Bytes;
use kafka_wire::dynamic::{self, StructValue};
use kafka_wire::frame::{self, DecodeOptions};
use kafka_wire::{
    ApiMessage, Bytes as KBytes, Cx, DecodeLimits, Field, FixedArray, KafkaMessage, Reader,
    RequestHeader, Str, StructMeta, UnknownTaggedFields, Version,
};

#[path = "common/random.rs"]
mod random;
use random::Rng;

/// Tagged fields whose tagged versions start after the flexible versions (the case where
/// the two codecs once reported a misplaced tag at different offsets), and a field that is
/// regular in early versions and tagged later.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 1000, request, versions = "0-4", flexible = "1+")]
struct LateTag {
    /// In every version.
    #[kafka(versions = "0+")]
    a: i8,
    /// Regular in v0-1, tagged from v2.
    #[kafka(versions = "0+", tag = 0, tagged = "2+")]
    mixed: i32,
    /// Tagged from v3 only, though the struct is flexible from v1.
    #[kafka(versions = "3+", tag = 1, tagged = "3+", default = "-1")]
    late: i32,
    /// A tagged string from v4.
    #[kafka(versions = "4+", tag = 2, tagged = "4+")]
    name: Str,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

/// Nullable ranges narrower than the versions; absent fields, ignorable or not.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 1001, request, versions = "0-5", flexible = "3+")]
struct Narrow {
    /// Nullable from v2 only.
    #[kafka(versions = "0+", nullable = "2+")]
    name: Option<Str>,
    /// In v1-3 only, not ignorable: a non-default value elsewhere is an encode error.
    #[kafka(versions = "1-3")]
    mid: i32,
    /// From v2, ignorable.
    #[kafka(versions = "2+", ignorable)]
    numbers: Vec<i32>,
    /// A nullable array from v4.
    #[kafka(versions = "0+", nullable = "4+")]
    names: Option<Vec<Str>>,
    /// Nullable bytes from v1, null by default, absent in v0 (not ignorable).
    #[kafka(versions = "1+", nullable = "1+", default = "null")]
    blob: Option<KBytes>,
    /// Two fixed-width fields in every version.
    #[kafka(versions = "0+")]
    x: i64,
    /// The second.
    #[kafka(versions = "0+", default = "7")]
    y: u16,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

/// Declares the innermost struct, `$name`, with the struct attributes `$($attr)*`: once
/// inlined ([`Leaf`]) and once `outline` ([`OutLeaf`]), the same fields.
macro_rules! leaf {
    ($(#[$attr:meta])* $name:ident) => {
        #[derive(KafkaMessage, Debug, Clone, PartialEq)]
        $(#[$attr])*
        struct $name {
            /// A number.
            #[kafka(versions = "0+")]
            n: i16,
            /// A tagged nullable string.
            #[kafka(
                versions = "2+",
                tag = 0,
                tagged = "2+",
                nullable = "2+",
                default = "null"
            )]
            note: Option<Str>,
            /// Unknown tagged fields.
            unknown_tagged_fields: UnknownTaggedFields,
        }
    };
}

leaf!(
    /// The innermost struct.
    #[kafka(versions = "0+", flexible = "2+")]
    Leaf
);

/// A middle struct.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "2+")]
struct Mid {
    /// A nested struct.
    #[kafka(versions = "0+")]
    leaf: Leaf,
    /// A number.
    #[kafka(versions = "0+")]
    x: i64,
    /// Tagged from v3.
    #[kafka(versions = "3+", tag = 0, tagged = "3+")]
    late: Str,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

/// Nested flexible structs, in arrays, nullable and tagged.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 1002, request, versions = "0-3", flexible = "2+")]
struct Outer {
    /// An array of structs.
    #[kafka(versions = "0+")]
    items: Vec<Mid>,
    /// A nullable struct from v2, absent in v0.
    #[kafka(versions = "1+", nullable = "2+")]
    one: Option<Mid>,
    /// A tagged struct.
    #[kafka(versions = "2+", tag = 0, tagged = "2+")]
    tagged_mid: Mid,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

leaf!(
    /// [`Leaf`] declared `outline` (each field a call to its type's out-of-line template).
    #[kafka(versions = "0+", flexible = "2+", outline)]
    OutLeaf
);

/// [`Mid`] declared `outline`, with a nullable array of `outline` structs.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "2+", outline)]
struct OutMid {
    /// A nested struct.
    #[kafka(versions = "0+")]
    leaf: OutLeaf,
    /// A number.
    #[kafka(versions = "0+")]
    x: i64,
    /// An array of structs, nullable from v1.
    #[kafka(versions = "0+", nullable = "1+")]
    leaves: Option<Vec<OutLeaf>>,
    /// Tagged from v3.
    #[kafka(versions = "3+", tag = 0, tagged = "3+")]
    late: Str,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

/// [`Outer`] with every struct `outline`: its arrays of structs (plain, nullable, tagged,
/// nested) go through the element loops compiled once for every `outline` type
/// (`FieldHooks::OUTLINED`) rather than one loop per element type.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 1004, request, versions = "0-3", flexible = "2+", outline)]
struct OutOuter {
    /// An array of structs.
    #[kafka(versions = "0+")]
    items: Vec<OutMid>,
    /// A nullable struct from v2, absent in v0.
    #[kafka(versions = "1+", nullable = "2+")]
    one: Option<OutMid>,
    /// A tagged struct.
    #[kafka(versions = "2+", tag = 0, tagged = "2+")]
    tagged_mid: OutMid,
    /// A tagged array of structs.
    #[kafka(versions = "2+", tag = 1, tagged = "2+")]
    tagged_leaves: Vec<OutLeaf>,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

/// An element of [`Fixed::parts`]: a partition's replica list, as Metadata carries it.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "2+")]
struct FixedPart {
    /// A number.
    #[kafka(versions = "0+")]
    index: i32,
    /// Kept as the input's bytes.
    #[kafka(versions = "0+")]
    replicas: FixedArray<i32>,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

/// Arrays of fixed-width integers kept as their wire bytes (`FixedArray`, which reads a
/// whole array at once and falls back to `Vec`'s reader when the input is short) at every
/// width, next to a `Vec` of the same type: plain, nullable from v1, absent before v1,
/// tagged, and inside an array of structs (where an over-long outer count leaves them no
/// room).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 1003, request, versions = "0-2", flexible = "2+")]
struct Fixed {
    /// `[]int8`.
    #[kafka(versions = "0+")]
    small: FixedArray<i8>,
    /// `[]int16`, nullable from v1.
    #[kafka(versions = "0+", nullable = "1+")]
    shorts: Option<FixedArray<i16>>,
    /// `[]uint16`.
    #[kafka(versions = "0+")]
    ports: FixedArray<u16>,
    /// `[]int32`.
    #[kafka(versions = "0+")]
    ids: FixedArray<i32>,
    /// The same type read element by element.
    #[kafka(versions = "0+")]
    ids_vec: Vec<i32>,
    /// `[]int64` from v1.
    #[kafka(versions = "1+", ignorable)]
    longs: FixedArray<i64>,
    /// `[]uint32`.
    #[kafka(versions = "0+")]
    wide: FixedArray<u32>,
    /// Structs holding one each.
    #[kafka(versions = "0+")]
    parts: Vec<FixedPart>,
    /// A tagged nullable one.
    #[kafka(
        versions = "2+",
        tag = 0,
        tagged = "2+",
        nullable = "2+",
        default = "null"
    )]
    tagged: Option<FixedArray<i32>>,
    /// Unknown tagged fields.
    unknown_tagged_fields: UnknownTaggedFields,
}

/// Mutated inputs per struct.
const INPUTS: usize = 100_000;

fn typed_bytes<M: KafkaMessage>(m: &M, v: Version) -> Result<Vec<u8>, kafka_wire::EncodeError> {
    m.encode_to_vec(v)
}

/// One random edit of `b`.
fn mutate(b: &mut Vec<u8>, rng: &mut Rng) {
    let at = rng.below(b.len() as u64 + 1) as usize;
    match rng.below(6) {
        0 if at < b.len() => b[at] ^= 1 << rng.below(8),
        1 if at < b.len() => b[at] = rng.next() as u8,
        // Small values: counts, lengths, tags and markers live there.
        2 if at < b.len() => b[at] = rng.below(4) as u8,
        3 => b.insert(at, rng.below(3) as u8),
        4 if at < b.len() => {
            b.remove(at);
        }
        _ => b.truncate(at),
    }
}

/// Runs the comparison for `M` over `versions`; returns how many inputs each codec accepted.
fn compare<M: KafkaMessage + PartialEq + std::fmt::Debug>(
    versions: std::ops::RangeInclusive<Version>,
    seed: u64,
) -> usize {
    let meta: &'static StructMeta = M::META;
    let mut rng = Rng::new(seed);
    let mut accepted = 0;
    let vs: Vec<Version> = versions.collect();
    for i in 0..INPUTS {
        let v = vs[i % vs.len()];
        let value = random::value_of(meta, v, &mut rng);
        let good = dynamic::encode(&value, v).expect("a random legal value encodes");
        let typed = M::decode_exact(&Bytes::from(good.clone()), v).expect("typed decodes it");
        assert_eq!(typed_bytes(&typed, v).unwrap(), good, "v{v}: {value:?}");
        let mut b = good;
        for _ in 0..1 + rng.below(3) {
            mutate(&mut b, &mut rng);
        }
        let b = Bytes::from(b);
        let limits = random_limits(&mut rng, b.len());
        same_as_discard::<M>(&b, v, &limits);
        same_as_dropped::<M>(&b, v, &limits);
        same_skipping_callers(meta, &b, v, &limits);
        let t = M::decode_exact(&b, v);
        let d = dynamic::decode(meta, &b, v);
        match (t, d) {
            (Ok(t), Ok(d)) => {
                accepted += 1;
                same_encodings(&t, &d, &vs, &b);
            }
            (Err(t), Err(d)) => assert_eq!(t, d, "{} v{v} {b:?}", meta.name),
            (t, d) => panic!("{} v{v} {b:?}: typed {t:?} vs dynamic {d:?}", meta.name),
        }
    }
    accepted
}

/// The reader of array elements past what the input can hold (`FieldHooks::read_discard`, which
/// reads a derived struct by its metadata and keeps nothing) consumes what the generated
/// `read` consumes, or fails with the same error, under the same (random) limits: tight
/// lengths and counts, and `strict_utf8`, whose branch of the discard readers the default
/// limits never take.
fn same_as_discard<M: KafkaMessage>(b: &Bytes, v: Version, limits: &DecodeLimits) {
    let mut r = Reader::with_limits(b, limits);
    let typed = M::read(&mut r, Cx::new(v)).map(drop);
    let mut d = Reader::with_limits(b, limits);
    let discard = kafka_wire::__private::read_discard::<M>(&mut d, Cx::new(v));
    let name = M::META.name;
    assert_eq!(typed, discard, "{name} v{v} {limits:?} {b:?}");
    assert_eq!(r.position(), d.position(), "{name} v{v} {limits:?} {b:?}");
}

/// The same in the real discard context: `M` as the only element of an inner array that an
/// over-long outer array (`Vec<Vec<M>>`, count as large as the input allows) leaves no
/// room for, so the array reader drops it (`claimed = usize::MAX`). Its error must be the
/// one a plain reading of the same bytes (an outer count of 1) gives; when the plain reading
/// succeeds, the dropped one fails only after it, at the outer array's second element.
fn same_as_dropped<M: KafkaMessage>(b: &Bytes, v: Version, limits: &DecodeLimits) {
    let nested = |outer: u32| {
        let mut x = outer.to_be_bytes().to_vec();
        x.extend(1u32.to_be_bytes());
        x.extend_from_slice(b);
        Bytes::from(x)
    };
    let plain = nested(1);
    let mut r = Reader::with_limits(&plain, limits);
    let typed = Vec::<Vec<M>>::read(&mut r, Cx::new(v)).map(drop);
    let long = nested(u32::try_from(b.len() + 4).unwrap_or(u32::MAX));
    let mut d = Reader::with_limits(&long, limits);
    let dropped = Vec::<Vec<M>>::read(&mut d, Cx::new(v)).map(drop);
    let name = M::META.name;
    let in_first = |e: &kafka_wire::DecodeError| e.path().to_string().starts_with("[0]");
    match dropped {
        Ok(()) => panic!("{name} v{v} {b:?}: an over-long array decoded ({typed:?})"),
        // Failed inside element 0: as the plain reading.
        Err(d) if in_first(&d) => assert_eq!(typed, Err(d), "{name} v{v} {limits:?} {b:?}"),
        // The outer count refused by `max_array_len`: nothing read.
        Err(d) if d.offset() == 0 => {}
        // Past element 0: the plain reading read it without error too.
        Err(d) => assert!(
            !typed.as_ref().is_err_and(in_first),
            "{name} v{v} {limits:?} {b:?}: plain {typed:?}, dropped {d:?}"
        ),
    }
}

/// Every caller of the one skipping reader (`rules::skip`) stops where a full reading
/// stops, with its error: `dynamic::walk_from` without a sink (which skips the whole
/// struct), the same walk with a trace (which reads every value to show it), and the JSON
/// writer (which skips the regular fields to find the tagged ones, then skips the declared
/// tagged payloads it has already written), each against `dynamic::decode_from`, which the
/// tests above hold to the typed codec. The discard path, the fourth caller, is
/// `same_as_discard`. The JSON writer reads with the default limits, so it is compared only
/// under them.
fn same_skipping_callers(meta: &'static StructMeta, b: &Bytes, v: Version, limits: &DecodeLimits) {
    let read = |limits: &DecodeLimits| {
        let mut r = Reader::with_limits(b, limits);
        let res = dynamic::decode_from(meta, &mut r, v, None).map(drop);
        (res, r.position())
    };
    let (full, end) = read(limits);
    let mut r = Reader::with_limits(b, limits);
    let skipped = dynamic::walk_from(meta, &mut r, v, None);
    assert_eq!(skipped, full, "walk v{v} {limits:?} {b:?}");
    if full.is_ok() {
        assert_eq!(r.position(), end, "walk v{v} {limits:?} {b:?}");
    }
    let mut trace = dynamic::Trace::new();
    let mut r = Reader::with_limits(b, limits);
    let traced = dynamic::walk_from(meta, &mut r, v, Some(&mut trace as &mut dyn dynamic::Sink));
    assert_eq!(traced, full, "traced walk v{v} {limits:?} {b:?}");
    let (full, end) = read(&DecodeLimits::new());
    match dynamic::write_json(meta, b, 0, v, &mut std::io::sink(), None) {
        Ok(at) => assert_eq!((Ok(()), at), (full, end), "json v{v} {b:?}"),
        Err(dynamic::WriteJsonError::Decode(e)) => assert_eq!(Err(e), full, "json v{v} {b:?}"),
        Err(e) => panic!("json v{v} {b:?}: {e}"),
    }
}

/// Both codecs encode a decoded value alike at every version: same bytes or same error.
fn same_encodings<M: KafkaMessage>(t: &M, d: &StructValue, vs: &[Version], input: &Bytes) {
    for &w in vs {
        let typed = typed_bytes(t, w);
        let dynamic = dynamic::encode(d, w);
        match (typed, dynamic) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "v{w} from {input:?}"),
            (Err(a), Err(b)) => assert_eq!(a, b, "v{w} from {input:?}"),
            (a, b) => panic!("v{w} from {input:?}: typed {a:?} vs dynamic {b:?}"),
        }
    }
}

/// Mutated frames per struct.
const FRAMES: usize = 30_000;

/// Random limits: each one tight (near the sizes the random values have) one time in four,
/// Kafka's default otherwise; the frame size limit near the frame's own size.
fn random_limits(rng: &mut Rng, frame_len: usize) -> DecodeLimits {
    let mut l = DecodeLimits::new();
    if rng.below(4) == 0 {
        l = l.max_array_len(rng.below(4) as usize);
    }
    if rng.below(4) == 0 {
        l = l.max_string_len(rng.below(6) as usize);
    }
    if rng.below(4) == 0 {
        l = l.max_bytes_len(rng.below(6) as usize);
    }
    if rng.below(4) == 0 {
        l = l.max_unknown_tagged_fields(rng.below(3) as usize);
    }
    if rng.below(4) == 0 {
        l = l.max_unknown_tagged_bytes(rng.below(8) as usize);
    }
    if rng.below(8) == 0 {
        l = l.max_frame_size((frame_len + rng.below(3) as usize).saturating_sub(5));
    }
    // Mutated strings are often not UTF-8: both codecs keep them by default and must reject
    // them alike (kind, offset, path) when asked to check.
    if rng.below(4) == 0 {
        l = l.strict_utf8(true);
    }
    l
}

/// Sets a frame's size prefix to the bytes after it.
fn refit(b: &mut [u8]) {
    if b.len() >= 4 {
        let n = (b.len() - 4) as u32;
        b[..4].copy_from_slice(&n.to_be_bytes());
    }
}

/// Whole request frames of `M`, mutated, decoded by both codecs under random limits, with
/// and without trailing bytes allowed; returns how many both accepted.
fn compare_frames<M: ApiMessage + PartialEq + std::fmt::Debug>(
    versions: std::ops::RangeInclusive<Version>,
    seed: u64,
) -> usize {
    let meta: &'static StructMeta = M::META;
    let mut rng = Rng::new(seed);
    let mut accepted = 0;
    let vs: Vec<Version> = versions.collect();
    for i in 0..FRAMES {
        let v = vs[i % vs.len()];
        let body = dynamic::encode(&random::value_of(meta, v, &mut rng), v).unwrap();
        let client_id = match rng.below(3) {
            0 => None,
            n => Some(Str::from("c".repeat(n as usize * 2))),
        };
        let header = RequestHeader::new(M::API_KEY, v, rng.next() as i32, client_id);
        let mut b = vec![0; 4];
        b.extend(header.encode_to_vec(M::header_version(v)).unwrap());
        b.extend(body);
        if rng.below(4) == 0 {
            // Bytes after the body, inside the frame.
            b.extend(std::iter::repeat_n(0, 1 + rng.below(3) as usize));
        }
        refit(&mut b);
        // Mutations anywhere, the size prefix usually fitted again afterwards (a prefix
        // that does not fit only ever gives the two frame length errors).
        for _ in 0..rng.below(3) {
            mutate(&mut b, &mut rng);
        }
        if rng.below(10) != 0 {
            refit(&mut b);
        }
        let b = Bytes::from(b);
        let options = DecodeOptions::new()
            .with_limits(random_limits(&mut rng, b.len()))
            .with_trailing_bytes(rng.below(2) == 0);
        let t = frame::decode_request::<M>(&b, &options);
        let d = dynamic::decode_request_frame(
            &b,
            |k| (k == M::API_KEY).then_some(meta),
            None,
            &options,
        );
        match (t, d) {
            (Ok(t), Ok(d)) => {
                accepted += 1;
                assert_eq!(t.trailing_bytes, d.trailing_bytes, "{b:?}");
                let (th, tb) = t.frame;
                let fv = d.frame.api_version;
                let hv = M::header_version(fv);
                assert_eq!(
                    th.encode_to_vec(hv).unwrap(),
                    dynamic::encode(&d.frame.header, hv).unwrap(),
                    "{} header {b:?}",
                    meta.name
                );
                same_encodings(&tb, &d.frame.body, &[fv], &b);
            }
            (Err(t), Err(d)) => assert_eq!(t, d, "{} {options:?} {b:?}", meta.name),
            (t, d) => panic!(
                "{} {options:?} {b:?}: typed {t:?} vs dynamic {d:?}",
                meta.name
            ),
        }
    }
    accepted
}

#[test]
fn frames_with_limits_and_trailing_bytes() {
    for ok in [
        compare_frames::<LateTag>(0..=4, 11),
        compare_frames::<Narrow>(0..=5, 12),
        compare_frames::<Outer>(0..=3, 13),
        compare_frames::<Fixed>(0..=2, 14),
        compare_frames::<OutOuter>(0..=3, 15),
    ] {
        assert!(ok > FRAMES / 20, "too few mutated frames decode: {ok}");
    }
}

#[test]
fn tagged_range_after_flexible_range() {
    let ok = compare::<LateTag>(0..=4, 1);
    assert!(ok > INPUTS / 20, "too few mutated inputs decode: {ok}");
}

#[test]
fn narrow_nullable_and_absent_fields() {
    let ok = compare::<Narrow>(0..=5, 2);
    assert!(ok > INPUTS / 20, "too few mutated inputs decode: {ok}");
}

#[test]
fn nested_flexible_structs_with_unknown_tags_everywhere() {
    let ok = compare::<Outer>(0..=3, 3);
    assert!(ok > INPUTS / 50, "too few mutated inputs decode: {ok}");
}

#[test]
fn outline_structs_and_their_shared_element_loops() {
    let ok = compare::<OutOuter>(0..=3, 5);
    assert!(ok > INPUTS / 50, "too few mutated inputs decode: {ok}");
    // An `outline` message's own `encoded_size` (one copy of its `size`): the bytes the
    // metadata-driven encoder writes, and 0 outside the versions, as the provided method.
    let mut rng = Rng::new(6);
    for i in 0..2_000 {
        let v = (i % 4) as Version;
        let value = random::value_of(OutOuter::META, v, &mut rng);
        let good = dynamic::encode(&value, v).expect("a random legal value encodes");
        let typed = OutOuter::decode_exact(&Bytes::from(good.clone()), v).expect("decodes");
        assert_eq!(typed.encoded_size(v), good.len(), "v{v}: {value:?}");
        assert_eq!(typed.encoded_size(4), 0);
    }
}

#[test]
fn fixed_width_arrays_kept_as_wire_bytes() {
    let ok = compare::<Fixed>(0..=2, 4);
    assert!(ok > INPUTS / 50, "too few mutated inputs decode: {ok}");
}

/// The case the review found: at v3, a declared tag that is only tagged from v4 is reported
/// at the tag's own byte by both codecs.
#[test]
fn misplaced_tag_is_reported_at_the_tag() {
    // a = 1; tagged section: 1 entry, tag 2 (`name`, tagged from v4), size 1, "" (compact).
    let b = Bytes::from_static(&[0x01, 0x01, 0x02, 0x01, 0x01]);
    let t = LateTag::decode_exact(&b, 3).unwrap_err();
    let d = dynamic::decode(LateTag::META, &b, 3).unwrap_err();
    assert_eq!(t, d);
    assert_eq!(t.offset(), 2);
    assert_eq!(t.path().to_string(), "LateTag.name");
}

/// Tagged sections come out in ascending tag order with unknown tags among the declared
/// ones, as Java's generated writer puts them (`RawTaggedFieldWriter.writeRawTags` before a
/// declared tag, the rest at the end). Derived structs have tags contiguous from 0, so only
/// hand-built metadata can leave a gap: declared tag 2 here, with unknown tags 0 and 5.
#[test]
fn unknown_tags_go_out_among_declared_ones_in_ascending_order() {
    use kafka_wire::{FieldMeta, KafkaType, VersionRange};
    static FIELDS: [FieldMeta; 1] =
        [
            FieldMeta::new("two", "Two", KafkaType::Int8, VersionRange::at_least(0), "")
                .with_tag(2, VersionRange::at_least(0)),
        ];
    static GAP: StructMeta = StructMeta::new(
        "Gap",
        VersionRange::at_least(0),
        VersionRange::at_least(0),
        "",
        &FIELDS,
    )
    .with_unknown_tagged_field("unknown_tagged_fields");
    // Java's order: count 3; tag 0 (1 byte: 0xaa); tag 2 (int8 7); tag 5 (2 bytes: 0xbb 0xcc).
    let java: &[u8] = &[3, 0, 1, 0xaa, 2, 1, 7, 5, 2, 0xbb, 0xcc];
    let mut unknown = UnknownTaggedFields::new();
    unknown.push(0, &[0xaa][..]);
    unknown.push(5, &[0xbb, 0xcc][..]);
    let value = StructValue {
        meta: &GAP,
        fields: vec![dynamic::Value::Int8(7)],
        unknown,
    };
    assert_eq!(dynamic::encode(&value, 0).unwrap(), java);
    // And Java's bytes read back to the same value and re-encode unchanged.
    let back = dynamic::decode(&GAP, &Bytes::from_static(java), 0).unwrap();
    assert_eq!(back, value);
    assert_eq!(back.unknown, value.unknown);
    assert_eq!(dynamic::encode(&back, 0).unwrap(), java);
}

/// The typed codec's side of the same rule: declared tag 0, unknown tags 1 and 3 after it,
/// in both codecs, from hand-built bytes in Java's order.
#[test]
fn typed_and_dynamic_write_unknown_tags_in_ascending_order() {
    // Leaf at v2: n = 5 (int16); tagged section: 3 entries: tag 0 (`note`, compact string
    // "a"), tag 1 (0x01), tag 3 (0x02 0x03).
    let java = Bytes::from_static(&[0, 5, 3, 0, 2, 2, b'a', 1, 1, 1, 3, 2, 2, 3]);
    let t = Leaf::decode_exact(&java, 2).unwrap();
    assert_eq!(t.unknown_tagged_fields.len(), 2);
    assert_eq!(t.encode_to_vec(2).unwrap(), java);
    let d = dynamic::decode(Leaf::META, &java, 2).unwrap();
    assert_eq!(dynamic::encode(&d, 2).unwrap(), java);
}
