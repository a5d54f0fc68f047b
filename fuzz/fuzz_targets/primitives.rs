//! Kafka's primitive encodings: the first input byte picks the type (low 4 bits) and the
//! context (0x10 compact, 0x20 nullable, 0x40 version 1 instead of 0); the rest is read from
//! the start. Whatever a read accepts must re-encode to exactly the bytes it consumed.
#![no_main]

use bytes::{Bytes, BytesMut};
use kafka_wire::primitives::{put_uvarint, put_uvarlong, put_varint, put_varlong};
use kafka_wire::{Cx, DecodeError, Field, Reader, Records, Str, Uuid};
use kafka_wire_fuzz::{check_alloc, check_error, measure};
use libfuzzer_sys::fuzz_target;

/// Reads a `T`, then checks its encoding is the consumed prefix of the input.
fn field<T: Field>(buf: &Bytes, cx: Cx) {
    let mut r = Reader::new(buf);
    let (res, allocated) = measure(|| T::read(&mut r, cx));
    check_alloc(T::alloc_ratio(cx), buf.len(), allocated);
    match res {
        Err(e) => check_error(&e, buf.len()),
        Ok(v) => {
            let used = r.position();
            let mut out = Vec::new();
            if let Err(e) = v.write(&mut out, cx) {
                panic!("read value does not write: {e}");
            }
            assert_eq!(out, &buf[..used]);
            assert_eq!(v.size(cx), used);
        }
    }
}

/// Reads a varint with `read`, checks `put` writes back the consumed bytes.
fn varint<T>(
    buf: &Bytes,
    read: impl FnOnce(&mut Reader<'_>) -> Result<T, DecodeError>,
    put: impl FnOnce(&mut BytesMut, T),
) {
    let mut r = Reader::new(buf);
    match read(&mut r) {
        Err(e) => check_error(&e, buf.len()),
        Ok(v) => {
            let used = r.position();
            let mut out = BytesMut::new();
            put(&mut out, v);
            assert_eq!(&out[..], &buf[..used]);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let buf = Bytes::copy_from_slice(rest);
    let cx = Cx {
        version: i16::from(pick & 0x40 != 0),
        compact: pick & 0x10 != 0,
        nullable: pick & 0x20 != 0,
        tagged: false,
    };
    match pick & 0x0f {
        0 => varint(&buf, |r| r.read_uvarint(), |b, v| put_uvarint(b, v)),
        1 => varint(&buf, |r| r.read_uvarlong(), |b, v| put_uvarlong(b, v)),
        2 => varint(&buf, |r| r.read_varint(), |b, v| put_varint(b, v)),
        3 => varint(&buf, |r| r.read_varlong(), |b, v| put_varlong(b, v)),
        4 => field::<bool>(&buf, cx),
        5 => field::<Option<Str>>(&buf, cx),
        6 => field::<Option<Bytes>>(&buf, cx),
        7 => field::<Option<Vec<i32>>>(&buf, cx),
        8 => field::<Vec<Str>>(&buf, cx),
        9 => field::<Uuid>(&buf, cx),
        10 => field::<i16>(&buf, cx),
        11 => field::<u32>(&buf, cx),
        12 => field::<f64>(&buf, cx),
        13 => field::<Option<Records>>(&buf, cx),
        14 => field::<String>(&buf, cx),
        _ => field::<Vec<Option<Bytes>>>(&buf, cx),
    }
});
