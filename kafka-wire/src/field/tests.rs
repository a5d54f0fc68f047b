//! The field codecs against Kafka's wire forms, laid out by hand from the encoding rules.

use bytes::Bytes;

use crate::error::{DecodeError, DecodeErrorKind, EncodeErrorKind};
use crate::field::prefix::{put_prefix, Prefix};
use crate::field::{Cx, Field, FieldHooks, NullableField, Sealed};
use crate::types::{Records, Str, Uuid};
use crate::Reader;

fn enc<T: Field>(v: &T, cx: Cx) -> Vec<u8> {
    let mut out = Vec::new();
    v.write(&mut out, cx).unwrap();
    assert_eq!(out.len(), v.size(cx), "size() must match write()");
    out
}

#[test]
fn short_strings_are_copied_long_ones_shared() {
    // Up to 23 bytes a decoded string holds no reference on the input (the input stays
    // unique); from 24 it shares it. Every prefix form, and a string at the input's very
    // start (no byte before it to copy from) and at its very end (too few after it).
    for len in [0usize, 1, 7, 8, 22, 23, 24, 200] {
        let text: String = (0..len)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let nullable = Cx {
            nullable: true,
            ..COMPACT
        };
        let mut forms: Vec<(Vec<u8>, Cx)> = Vec::new();
        // Kafka's compact prefix: len + 1 as an unsigned varint (one or two bytes here).
        let n = len + 1;
        let mut compact = if n < 0x80 {
            vec![n as u8]
        } else {
            vec![(n & 0x7f) as u8 | 0x80, (n >> 7) as u8]
        };
        compact.extend_from_slice(text.as_bytes());
        forms.push((compact.clone(), COMPACT));
        forms.push((compact, nullable));
        let mut classic = (len as i16).to_be_bytes().to_vec();
        classic.extend_from_slice(text.as_bytes());
        forms.push((classic, CLASSIC));
        for (wire, cx) in forms {
            for pad in [0usize, 30] {
                // `pad` bytes before the prefix and after the string.
                let mut input = vec![0xee; pad];
                input.extend_from_slice(&wire);
                input.extend(core::iter::repeat_n(0xdd, pad));
                let buf = Bytes::from(input);
                let mut r = Reader::at(&buf, pad);
                let s = if cx.nullable {
                    Str::read_nullable(&mut r, cx).unwrap().unwrap()
                } else {
                    Str::read(&mut r, cx).unwrap()
                };
                assert_eq!(r.position(), pad + wire.len());
                assert_eq!(s.as_bytes(), text.as_bytes(), "len {len} pad {pad}");
                assert_eq!(s.len(), len);
                assert_eq!(buf.is_unique(), len <= 23, "len {len} pad {pad}");
                drop(s);
                assert!(buf.is_unique());
            }
        }
    }
}

fn dec<T: Field>(bytes: &[u8], cx: Cx) -> Result<T, DecodeError> {
    dec_with(bytes, cx, &crate::DecodeLimits::DEFAULT)
}

fn dec_with<T: Field>(
    bytes: &[u8],
    cx: Cx,
    limits: &crate::DecodeLimits,
) -> Result<T, DecodeError> {
    let b = Bytes::copy_from_slice(bytes);
    let mut r = Reader::with_limits(&b, limits);
    let v = T::read(&mut r, cx)?;
    assert!(r.is_empty(), "left {} bytes", r.remaining());
    Ok(v)
}

const STRICT: crate::DecodeLimits = crate::DecodeLimits::DEFAULT.strict_utf8(true);

const CLASSIC: Cx = Cx::new(0);
const COMPACT: Cx = Cx {
    version: 3,
    compact: true,
    nullable: false,
    tagged: false,
};
const NULLABLE: Cx = Cx {
    nullable: true,
    ..CLASSIC
};
const COMPACT_NULLABLE: Cx = Cx {
    nullable: true,
    ..COMPACT
};

// Expected bytes written from the encoding rules (ARCHITECTURE.md), not from this code.
#[test]
fn fixed_widths_are_big_endian() {
    assert_eq!(enc(&-2i8, CLASSIC), [0xfe]);
    assert_eq!(enc(&0x0102i16, CLASSIC), [1, 2]);
    assert_eq!(enc(&0xfffeu16, CLASSIC), [0xff, 0xfe]);
    assert_eq!(enc(&-1i32, CLASSIC), [0xff; 4]);
    assert_eq!(enc(&0x8000_0000u32, CLASSIC), [0x80, 0, 0, 0]);
    assert_eq!(enc(&1i64, CLASSIC), [0, 0, 0, 0, 0, 0, 0, 1]);
    assert_eq!(enc(&1.0f64, CLASSIC), [0x3f, 0xf0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(enc(&true, CLASSIC), [1]);
    assert_eq!(
        enc(&Uuid::from_halves(1, 2), CLASSIC),
        [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2]
    );
    assert_eq!(
        dec::<i32>(&[0x7f, 0xff, 0xff, 0xff], CLASSIC).unwrap(),
        i32::MAX
    );
    assert_eq!(dec::<u16>(&[0xff, 0xff], CLASSIC).unwrap(), u16::MAX);
    assert!(dec::<bool>(&[2], CLASSIC).is_err());
    let e = dec::<i64>(&[0; 7], CLASSIC).unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::Truncated {
            needed: 8,
            available: 7
        }
    );
}

/// Compact length prefixes around the uvarint's size boundaries, laid out by hand from
/// the unsigned varint rule (7 bits a byte, low first, high bit set on every byte but the
/// last; the value is the length plus one): one byte up to 126, two from 127 to 16,382,
/// three from 16,383. Shared by the string, bytes and array tests below.
const COMPACT_BOUNDARIES: [(usize, &[u8]); 8] = [
    (0, &[0x01]),
    (126, &[0x7f]),
    (127, &[0x80, 0x01]),
    (128, &[0x81, 0x01]),
    (200, &[0xc9, 0x01]),
    (300, &[0xad, 0x02]),
    (16_382, &[0xff, 0x7f]),
    (16_383, &[0x80, 0x80, 0x01]),
];

/// Compact lengths of two varint bytes (strings of 127 to 16,382 bytes) take the
/// inlined path; three bytes, non-canonical forms and short inputs the general one. The
/// prefixes are laid out by hand from the unsigned varint rule (7 bits a byte, low
/// first, high bit set on every byte but the last; the value is the length plus one).
#[test]
fn compact_strings_with_long_prefixes() {
    for (len, prefix) in COMPACT_BOUNDARIES {
        for unit in ["x", "é"] {
            let text = unit.repeat(len / unit.len());
            let body = [text.as_bytes(), &vec![b'y'; len % unit.len()]].concat();
            let wire = [prefix, &body].concat();
            let got = dec::<Str>(&wire, COMPACT).unwrap();
            assert_eq!(got.as_bytes(), &body[..], "length {len}");
            assert_eq!(enc(&got, COMPACT), wire, "length {len}");
        }
    }
    // Non-canonical two-byte form of 1 (an empty string): refused, not read as empty.
    let e = dec::<Str>(&[0x81, 0x00], COMPACT).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::NonCanonicalVarint);
    // A two-byte length past the input.
    let e = dec::<Str>(&[0xc9, 0x01, b'a', b'b'], COMPACT).unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LengthExceedsInput {
            declared: 200,
            remaining: 2
        }
    );
    assert_eq!(e.offset(), 0);
    // Invalid UTF-8 after a two-byte length: kept as it came by default (the slow path
    // too), reported where the bytes start under strict_utf8.
    let mut wire = vec![0x80, 0x01];
    wire.extend(vec![b'a'; 126]);
    wire.push(0xff);
    let got = dec::<Str>(&wire, COMPACT).unwrap();
    assert_eq!(got.as_bytes(), &wire[2..]);
    assert_eq!(enc(&got, COMPACT), wire);
    let e = dec_with::<Str>(&wire, COMPACT, &STRICT).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)));
    assert_eq!(e.offset(), 2);
    let e = dec::<String>(&wire, COMPACT).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)));
    assert_eq!(e.offset(), 2);
}

/// Bytes and arrays take the same prefixes as strings: a compact length of two varint
/// bytes (127 to 16,382) inline, three bytes through the general writer; classic int32.
/// Prefixes laid out by hand from the unsigned varint rule (the value is the length plus
/// one).
#[test]
fn compact_prefixes_of_bytes_and_arrays() {
    for (len, prefix) in COMPACT_BOUNDARIES {
        let b = Bytes::from(vec![7u8; len]);
        assert_eq!(enc(&b, COMPACT), [prefix, &b[..]].concat(), "bytes {len}");
        let a = vec![true; len];
        let body = vec![1u8; len];
        assert_eq!(
            enc(&a, COMPACT),
            [prefix, &body[..]].concat(),
            "array {len}"
        );
        let classic = (len as i32).to_be_bytes();
        assert_eq!(enc(&a, CLASSIC), [&classic[..], &body[..]].concat());
    }
    assert_eq!(enc::<Option<Vec<bool>>>(&None, NULLABLE), [0xff; 4]);
    assert_eq!(enc::<Option<Bytes>>(&None, COMPACT_NULLABLE), [0]);
}

/// Fixed-width arrays: each element's big-endian bytes in order, and `size` (count times
/// width, without a loop) agrees with what is written, at every length.
#[test]
fn fixed_width_arrays_and_their_sizes() {
    fn check<T: Field + Copy>(make: impl Fn(usize) -> T, be: impl Fn(T) -> Vec<u8>) {
        for n in [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 100] {
            let items: Vec<T> = (0..n).map(&make).collect();
            let mut want = vec![0, 0, 0, n as u8];
            for x in &items {
                want.extend(be(*x));
            }
            assert_eq!(enc(&items, CLASSIC), want, "{n} elements");
        }
    }
    check(|i| (i as i8).wrapping_sub(50), |x| x.to_be_bytes().to_vec());
    check(
        |i| (i as i16).wrapping_mul(997).wrapping_sub(3000),
        |x| x.to_be_bytes().to_vec(),
    );
    check(
        |i| (i as u16).wrapping_mul(659),
        |x| x.to_be_bytes().to_vec(),
    );
    check(
        |i| (i as i32).wrapping_mul(0x0101_0101).wrapping_sub(7),
        |x| x.to_be_bytes().to_vec(),
    );
    check(
        |i| (i as u32).wrapping_mul(0x0302_0100),
        |x| x.to_be_bytes().to_vec(),
    );
    check(
        |i| (i as i64) << 40 | i as i64,
        |x| x.to_be_bytes().to_vec(),
    );
    check(|i| i as f64 * -1.5, |x| x.to_be_bytes().to_vec());
}

/// Compact arrays at the prefix's width boundaries: uvarint(n + 1) is one byte up to 126
/// elements, two from 127 to 16,382, three from 16,383; `enc` checks `size` against the
/// bytes written.
#[test]
fn compact_array_prefix_boundaries() {
    for (n, prefix) in COMPACT_BOUNDARIES {
        let items: Vec<i32> = (0..n as i32).map(|i| i.wrapping_mul(-7_919)).collect();
        let mut want = prefix.to_vec();
        for x in &items {
            want.extend(x.to_be_bytes());
        }
        assert_eq!(enc(&items, COMPACT), want, "{n} elements");
        assert_eq!(
            dec::<Vec<i32>>(&want, COMPACT).unwrap(),
            items,
            "{n} elements"
        );
    }
}

/// `put_prefix` called directly with a short compact length still writes the canonical
/// one-byte uvarint (its fast callers never pass one; the decoder refuses the padded form).
#[test]
fn put_prefix_short_compact_length_is_canonical() {
    for (n, want) in [
        (0usize, &[1u8][..]),
        (5, &[6]),
        (126, &[0x7f]),
        (127, &[0x80, 1]),
    ] {
        let mut out = Vec::new();
        put_prefix(&mut out, Prefix::I32, Some(n), true).unwrap();
        assert_eq!(out, want, "{n}");
    }
}

#[test]
fn strings_classic_and_compact() {
    let s = Str::from("hé");
    assert_eq!(enc(&s, CLASSIC), [0, 3, b'h', 0xc3, 0xa9]);
    assert_eq!(enc(&s, COMPACT), [4, b'h', 0xc3, 0xa9]);
    assert_eq!(enc(&Str::new(), COMPACT), [1]);
    assert_eq!(enc::<Option<Str>>(&None, NULLABLE), [0xff, 0xff]);
    assert_eq!(enc::<Option<Str>>(&None, COMPACT_NULLABLE), [0]);
    assert_eq!(dec::<Str>(&[4, b'h', 0xc3, 0xa9], COMPACT).unwrap(), "hé");
    assert_eq!(dec::<Option<Str>>(&[0], COMPACT_NULLABLE).unwrap(), None);
    assert_eq!(dec::<Option<Str>>(&[0xff, 0xff], NULLABLE).unwrap(), None);
    // Null where the version does not allow it.
    let e = dec::<Option<Str>>(&[0xff, 0xff], CLASSIC).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::UnexpectedNull { version: 0 });
    let e = dec::<Str>(&[0], COMPACT).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::UnexpectedNull { version: 3 });
    // Lengths below -1, above the input, above 0x7fff; invalid UTF-8.
    let e = dec::<Str>(&[0xff, 0xfe], CLASSIC).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::NegativeLength(-2));
    let e = dec::<Str>(&[0, 5, b'a'], CLASSIC).unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LengthExceedsInput {
            declared: 5,
            remaining: 1
        }
    );
    assert_eq!(e.offset(), 0);
    // uvarint 0x8001 = 32769 => length 32768 > 0x7fff
    let e = dec::<Str>(&[0x81, 0x80, 0x02], COMPACT).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::StringTooLong(32768));
    // Invalid UTF-8: kept by default, an error under strict_utf8 and for `String`.
    let got = dec::<Str>(&[0, 1, 0xff], CLASSIC).unwrap();
    assert_eq!(got.as_bytes(), [0xff]);
    assert_eq!(enc(&got, CLASSIC), [0, 1, 0xff]);
    for e in [
        dec_with::<Str>(&[0, 1, 0xff], CLASSIC, &STRICT).unwrap_err(),
        dec_with::<Option<Str>>(&[0, 1, 0xff], NULLABLE, &STRICT).unwrap_err(),
        dec::<String>(&[0, 1, 0xff], CLASSIC).unwrap_err(),
        dec::<Option<String>>(&[0, 1, 0xff], NULLABLE).unwrap_err(),
    ] {
        assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8(_)));
        assert_eq!(e.offset(), 2);
    }
    assert_eq!(
        dec_with::<Str>(&[0, 2, b'h', b'i'], CLASSIC, &STRICT).unwrap(),
        "hi"
    );
    // Encode-side cap.
    let long = Str::from("x".repeat(0x8000));
    let mut out = Vec::new();
    let e = long.write(&mut out, COMPACT).unwrap_err();
    assert_eq!(e.kind(), &EncodeErrorKind::StringTooLong(0x8000));
    assert!(Str::from("x".repeat(0x7fff))
        .write(&mut out, CLASSIC)
        .is_ok());
    let e = None::<Str>.write(&mut out, CLASSIC).unwrap_err();
    assert_eq!(e.kind(), &EncodeErrorKind::NullNotAllowed { version: 0 });
}

#[test]
fn classic_bytes_fast_and_slow_paths_agree() {
    // Java's `readInt` length then the bytes; -1 is null. The inlined path takes a
    // non-negative length within the input and the limit; everything else is reported
    // by the slow path as before.
    let nullable = Cx {
        nullable: true,
        ..CLASSIC
    };
    for len in [0usize, 1, 200, 70_000] {
        let body: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let wire = [&(len as i32).to_be_bytes()[..], &body].concat();
        assert_eq!(dec::<Bytes>(&wire, CLASSIC).unwrap(), body, "length {len}");
        assert_eq!(dec::<Records>(&wire, nullable).unwrap().0, body);
        assert_eq!(enc(&Bytes::from(body), CLASSIC), wire);
    }
    assert_eq!(dec::<Option<Bytes>>(&[0xff; 4], nullable).unwrap(), None);
    let e = dec::<Bytes>(&[0xff; 4], CLASSIC).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::UnexpectedNull { version: 0 });
    let e = dec::<Bytes>(&[0xff, 0xff, 0xff, 0xfe], CLASSIC).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (&DecodeErrorKind::NegativeLength(-2), 0)
    );
    let e = dec::<Bytes>(&[0, 0, 0, 3, 1, 2], CLASSIC).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (
            &DecodeErrorKind::LengthExceedsInput {
                declared: 3,
                remaining: 2
            },
            0
        )
    );
    let limits = crate::DecodeLimits::new().max_bytes_len(2);
    let e = dec_with::<Bytes>(&[0, 0, 0, 3, 1, 2, 3], CLASSIC, &limits).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (
            &DecodeErrorKind::LimitExceeded {
                limit: crate::Limit::BytesLen,
                value: 3,
                max: 2
            },
            0
        )
    );
}

#[test]
fn compact_bytes_with_long_prefixes() {
    // Kafka's unsigned varint of length + 1 (LEB128): one, two and three bytes.
    for (len, prefix) in COMPACT_BOUNDARIES {
        let body: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let wire = [prefix, &body].concat();
        let got = dec::<Bytes>(&wire, COMPACT).unwrap();
        assert_eq!(got, body, "length {len}");
        assert_eq!(enc(&got, COMPACT), wire, "length {len}");
        let got = dec::<Records>(&wire, COMPACT_NULLABLE).unwrap();
        assert_eq!(got.0, body, "length {len}");
    }
    assert_eq!(dec::<Option<Bytes>>(&[0], COMPACT_NULLABLE).unwrap(), None);
    let e = dec::<Bytes>(&[0x81, 0x00], COMPACT).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::NonCanonicalVarint);
    let e = dec::<Bytes>(&[0xc9, 0x01, 1, 2], COMPACT).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (
            &DecodeErrorKind::LengthExceedsInput {
                declared: 200,
                remaining: 2
            },
            0
        )
    );
    let wire = [&[0x80, 0x01][..], &[7; 127]].concat();
    let limits = crate::DecodeLimits::new().max_bytes_len(126);
    let e = dec_with::<Bytes>(&wire, COMPACT, &limits).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (
            &DecodeErrorKind::LimitExceeded {
                limit: crate::Limit::BytesLen,
                value: 127,
                max: 126
            },
            0
        )
    );
}

#[test]
fn bytes_and_arrays() {
    let b = Bytes::from_static(&[9, 8]);
    assert_eq!(enc(&b, CLASSIC), [0, 0, 0, 2, 9, 8]);
    assert_eq!(enc(&b, COMPACT), [3, 9, 8]);
    assert_eq!(enc::<Option<Bytes>>(&None, NULLABLE), [0xff; 4]);
    let a = vec![1i32, -1];
    assert_eq!(
        enc(&a, CLASSIC),
        [0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]
    );
    assert_eq!(enc(&a, COMPACT), [3, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]);
    assert_eq!(enc::<Option<Vec<i32>>>(&None, COMPACT_NULLABLE), [0]);
    let strs = vec![Str::from("a"), Str::from("")];
    // Elements follow the field's compactness, as in Java's generated writers.
    assert_eq!(enc(&strs, COMPACT), [3, 2, b'a', 1]);
    assert_eq!(dec::<Vec<Str>>(&[3, 2, b'a', 1], COMPACT).unwrap(), strs);
    // A huge count is rejected before allocating.
    let e = dec::<Vec<i64>>(&[0x7f, 0xff, 0xff, 0xff], CLASSIC).unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::LengthExceedsInput {
            declared: 0x7fff_ffff,
            remaining: 0
        }
    );
    // Fixed-width elements are read in one piece: big-endian each, in order.
    assert_eq!(
        dec::<Vec<i32>>(&[0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe], CLASSIC).unwrap(),
        [1, -2]
    );
    assert_eq!(
        dec::<Vec<i16>>(&[4, 0x7f, 0xff, 0x80, 0, 0, 3], COMPACT).unwrap(),
        [i16::MAX, i16::MIN, 3]
    );
    assert_eq!(
        dec::<Vec<i64>>(&[2, 0, 0, 0, 0, 0, 0, 1, 0], COMPACT).unwrap(),
        [256]
    );
    assert_eq!(dec::<Vec<u16>>(&[1], COMPACT).unwrap(), Vec::<u16>::new());
    // The failing element is named in the path.
    let e = dec::<Vec<i32>>(&[0, 0, 0, 2, 0, 0, 0, 1, 0], CLASSIC).unwrap_err();
    assert_eq!(e.path().to_string(), "[1]");
    assert_eq!(e.offset(), 8);
}

/// Strings through the vector path (`write_vec`: a short inline string as one
/// fixed-size store, then truncated) against Kafka's wire form assembled by hand (an
/// int16 length, or the length plus one as a one-byte varint in flexible versions, then
/// the bytes), for every length around the inline limit, inline and shared alike, null,
/// after bytes already in the vector and into vectors that must grow or have room for
/// exactly the string (which must not grow).
#[test]
fn strings_through_the_vector_path() {
    for n in 0..=30usize {
        let text: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let leaked: &'static str = Box::leak(text.clone().into_boxed_str());
        let inline = Str::copy_from(&text);
        let shared = Str::from_static(leaked);
        assert_eq!(inline.small().inline_raw().is_some(), n <= 23);
        for (cx, mut want) in [
            (COMPACT, vec![n as u8 + 1]),
            (CLASSIC, (n as u16).to_be_bytes().to_vec()),
        ] {
            want.extend_from_slice(text.as_bytes());
            for s in [&inline, &shared] {
                let exact = 3 + want.len();
                for (prior, cap) in [(0, 0), (3, 64), (5, 6), (3, exact)] {
                    let mut out = Vec::with_capacity(cap);
                    out.extend_from_slice(&[9, 8, 7, 6, 5][..prior]);
                    s.write_vec(&mut out, cx, Sealed::TOKEN).unwrap();
                    if (prior, cap) == (3, exact) {
                        assert_eq!(out.capacity(), exact, "never grown");
                    }
                    assert_eq!(out.get(..prior), Some(&[9, 8, 7, 6, 5][..prior]));
                    assert_eq!(out.get(prior..), Some(&want[..]), "{n} {cx:?}");
                    let mut opt = Vec::new();
                    Some(s.clone())
                        .write_vec(&mut opt, cx, Sealed::TOKEN)
                        .unwrap();
                    assert_eq!(opt, want);
                }
            }
        }
    }
    let mut out = Vec::new();
    let null = Cx {
        nullable: true,
        ..CLASSIC
    };
    None::<Str>
        .write_vec(&mut out, null, Sealed::TOKEN)
        .unwrap();
    None::<Str>
        .write_vec(
            &mut out,
            Cx {
                compact: true,
                ..null
            },
            Sealed::TOKEN,
        )
        .unwrap();
    assert_eq!(out, [0xff, 0xff, 0]);
    assert!(None::<Str>
        .write_vec(&mut out, CLASSIC, Sealed::TOKEN)
        .is_err());
}
