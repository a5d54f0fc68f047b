//! The vectored encode (`KafkaMessage::encode_vectored`, `frame::encode_*_vectored`): long
//! `bytes`/`records` values referenced, not copied, and the segments standing for exactly the
//! bytes of the ordinary encode.

use std::io;

use bytes::{BufMut, Bytes};
use kafka_wire::frame::{encode_request, encode_request_vectored, write_request};
use kafka_wire::{
    Cx, DecodeError, EncodeError, EncodeErrorKind, Field, KafkaMessage, Reader, Records,
    RequestHeader, Str, UnknownTaggedFields, Vectored, VECTORED_MIN,
};

/// Every way a long value can appear: plain, nullable records, in an array, tagged.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-2", flexible = "2+")]
struct Payloads {
    #[kafka(versions = "0+")]
    id: i32,
    #[kafka(versions = "0+")]
    first: Bytes,
    #[kafka(versions = "0+", nullable = "0+")]
    records: Option<Records>,
    #[kafka(versions = "1+", ignorable)]
    many: Vec<Bytes>,
    #[kafka(versions = "0+")]
    name: Str,
    #[kafka(versions = "2+", tag = 0, tagged = "2+", ignorable)]
    extra: Bytes,
    unknown_tagged_fields: UnknownTaggedFields,
}

fn filled(len: usize, seed: u8) -> Bytes {
    (0..len).map(|i| seed.wrapping_add(i as u8)).collect()
}

fn payloads(name_len: usize) -> Payloads {
    Payloads {
        id: 7,
        first: filled(VECTORED_MIN, 1),
        records: Some(Records(filled(5000, 2))),
        many: vec![
            filled(VECTORED_MIN - 1, 3),
            Bytes::new(),
            filled(200_000, 4),
            filled(10, 5),
        ],
        name: Str::from("x".repeat(name_len)),
        extra: filled(3000, 6),
        unknown_tagged_fields: UnknownTaggedFields::new(),
    }
}

fn ordinary<M: KafkaMessage>(m: &M, version: i16) -> Vec<u8> {
    let mut out = Vec::new();
    m.encode(&mut out, version).unwrap();
    out
}

/// A hand-written vector (int32, then bytes as an int32 length and the bytes, version 0
/// classic): the head holds the id and the prefix, the value is the second segment.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "none")]
struct One {
    #[kafka(versions = "0+")]
    id: i32,
    #[kafka(versions = "0+")]
    payload: Bytes,
}

#[test]
fn segments_of_a_known_message() {
    let value = Bytes::from(vec![0xab; 1024]);
    let m = One {
        id: 7,
        payload: value.clone(),
    };
    let mut out = Vectored::new();
    m.encode_vectored(&mut out, 0).unwrap();
    let segments: Vec<&[u8]> = out.segments().collect();
    assert_eq!(segments.len(), 2);
    assert_eq!(segments[0], &[0, 0, 0, 7, 0, 0, 4, 0][..]);
    assert_eq!(segments[1], &value[..]);
    // Referenced: the segment is the caller's own buffer.
    assert_eq!(segments[1].as_ptr(), value.as_ptr());
    assert_eq!(
        (out.len(), out.copied_len(), out.referenced_count()),
        (1032, 8, 1)
    );
    // One byte shorter is copied.
    let m = One {
        id: 7,
        payload: Bytes::from(vec![0xab; 1023]),
    };
    let mut out = Vectored::new();
    m.encode_vectored(&mut out, 0).unwrap();
    assert_eq!((out.segments().count(), out.referenced_count()), (1, 0));
    assert!(out.to_vec() == ordinary(&m, 0));
}

#[test]
fn same_bytes_as_the_ordinary_encode_at_every_version() {
    for version in 0..=2 {
        let m = payloads(3);
        let mut out = Vectored::new();
        m.encode_vectored(&mut out, version).unwrap();
        let plain = ordinary(&m, version);
        assert!(out.to_vec() == plain, "version {version}");
        assert_eq!(out.len(), plain.len());
        assert_eq!(out.len(), m.encoded_size(version));
        // first and records at every version; the 200,000 from v1; the tagged one at v2.
        let expected = [2, 3, 4][version as usize];
        assert_eq!(out.referenced_count(), expected, "version {version}");
        assert!(out.segments().all(|s| !s.is_empty()));
        let joined: Vec<u8> = out.io_slices().iter().flat_map(|s| s.to_vec()).collect();
        assert!(joined == plain);
        if version == 2 {
            // Every field is on the wire at v2 (the decode is an independent check of it).
            assert!(Payloads::decode_exact(&Bytes::from(plain), version).unwrap() == m);
        }
    }
}

#[test]
fn appends_and_clears() {
    let (a, b) = (payloads(1), payloads(2));
    let mut out = Vectored::new();
    a.encode_vectored(&mut out, 2).unwrap();
    b.encode_vectored(&mut out, 1).unwrap();
    let mut plain = ordinary(&a, 2);
    plain.extend(ordinary(&b, 1));
    assert!(out.to_vec() == plain);
    out.clear();
    assert!(out.is_empty());
    assert_eq!(out.segments().count(), 0);
    b.encode_vectored(&mut out, 1).unwrap();
    assert!(out.to_vec() == ordinary(&b, 1));
}

#[test]
fn an_error_leaves_everything_as_it_was() {
    let mut out = Vectored::new();
    payloads(1).encode_vectored(&mut out, 2).unwrap();
    let before = out.clone();
    // The string after the long values is too long: the encode fails past them.
    let err = payloads(40_000).encode_vectored(&mut out, 2).unwrap_err();
    assert!(matches!(err.kind(), EncodeErrorKind::StringTooLong(40_000)));
    assert!(out == before);
    // And nothing is left diverting: an ordinary encode copies every value.
    let m = payloads(1);
    let plain = ordinary(&m, 2);
    assert_eq!(plain.len(), m.encoded_size(2));
    assert!(Payloads::decode_exact(&Bytes::from(plain), 2).unwrap() == m);
}

/// A field that encodes a message of its own into a fresh vector while the outer vectored
/// encode runs, then writes the result as bytes: the inner encode must copy its values
/// (it is not the vectored encode's buffer), the outer one may reference the result.
#[derive(Debug, Clone, PartialEq, Default)]
struct Nested(Option<Box<One>>);

// The hidden hooks every `Field` has: their defaults.
impl kafka_wire::__private::FieldHooks for Nested {}

impl Field for Nested {
    const KAFKA_TYPE: kafka_wire::KafkaType = kafka_wire::KafkaType::Bytes;
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        let inner = self
            .0
            .as_ref()
            .map_or(Ok(Vec::new()), |m| m.encode_to_vec(0))?;
        let mut v = Vec::new();
        if let Some(m) = &self.0 {
            m.encode(&mut v, 0)?;
        }
        assert_eq!(v, inner);
        Bytes::from(v).write(buf, cx)
    }
    fn size(&self, cx: Cx) -> usize {
        Bytes::from(self.0.as_ref().map_or(Vec::new(), |m| ordinary(&**m, 0))).size(cx)
    }
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        let b = Bytes::read(r, cx)?;
        let m = One::decode_exact(&b, 0)?;
        Ok(Nested(Some(Box::new(m))))
    }
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "none")]
struct Outer {
    #[kafka(versions = "0+")]
    inner: Nested,
    #[kafka(versions = "0+")]
    after: Bytes,
}

#[test]
fn encodes_into_other_buffers_meanwhile_are_not_diverted() {
    let m = Outer {
        inner: Nested(Some(Box::new(One {
            id: 1,
            payload: filled(4096, 9),
        }))),
        after: filled(2048, 8),
    };
    let mut out = Vectored::new();
    m.encode_vectored(&mut out, 0).unwrap();
    let plain = ordinary(&m, 0);
    assert!(out.to_vec() == plain);
    assert!(Outer::decode_exact(&Bytes::from(plain), 0).unwrap() == m);
    // The inner message as a whole, and `after`.
    assert_eq!(out.referenced_count(), 2);
}

/// A writer taking at most 7 bytes per call, and failing every third call with `Interrupted`.
struct Dribble {
    got: Vec<u8>,
    calls: usize,
}

impl io::Write for Dribble {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(3) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(7);
        self.got.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn write_to_writes_every_segment_through_short_writes() {
    let m = payloads(2);
    let mut out = Vectored::new();
    m.encode_vectored(&mut out, 2).unwrap();
    let mut w = Dribble {
        got: Vec::new(),
        calls: 0,
    };
    out.write_to(&mut w).unwrap();
    assert!(w.got == ordinary(&m, 2));
    // A writer that takes nothing is an error, not a loop.
    let mut full: &mut [u8] = &mut [0u8; 3];
    let e = out.write_to(&mut full).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::WriteZero);
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 0, request, versions = "0-2", flexible = "2+")]
struct FakeProduce {
    #[kafka(versions = "0+")]
    acks: i16,
    #[kafka(versions = "0+", nullable = "0+")]
    records: Option<Records>,
    unknown_tagged_fields: UnknownTaggedFields,
}

#[test]
fn frames_count_the_referenced_bytes() {
    for version in 0..=2 {
        let body = FakeProduce {
            acks: -1,
            records: Some(Records(filled(70_000, 3))),
            unknown_tagged_fields: UnknownTaggedFields::new(),
        };
        let header = RequestHeader {
            request_api_key: 0,
            request_api_version: version,
            correlation_id: 42,
            client_id: Some(Str::from("client")),
            ..Default::default()
        };
        let mut plain = Vec::new();
        encode_request(&mut plain, &header, &body).unwrap();
        let mut out = Vectored::new();
        encode_request_vectored(&mut out, &header, &body).unwrap();
        assert!(out.to_vec() == plain, "version {version}");
        assert_eq!(out.referenced_count(), 1);
        // The size prefix: everything after it, referenced bytes included.
        assert_eq!(
            i32::from_be_bytes(plain[..4].try_into().unwrap()) as usize,
            plain.len() - 4
        );
        let mut w = Dribble {
            got: Vec::new(),
            calls: 0,
        };
        write_request(&mut w, &header, &body).unwrap();
        assert!(w.got == plain);
        // A mismatched key fails, leaving `out` as it was.
        let bad = RequestHeader {
            request_api_key: 1,
            ..header
        };
        assert!(encode_request_vectored(&mut out, &bad, &body).is_err());
        assert!(out.to_vec() == plain);
    }
}

/// A field whose `write` panics after writing a long value into the buffer it was given.
#[derive(Debug, Clone, PartialEq, Default)]
struct PanicsAfterWriting;

// The hidden hooks every `Field` has: their defaults.
impl kafka_wire::__private::FieldHooks for PanicsAfterWriting {}

impl Field for PanicsAfterWriting {
    const KAFKA_TYPE: kafka_wire::KafkaType = kafka_wire::KafkaType::Bytes;
    fn write<B: BufMut + ?Sized>(&self, buf: &mut B, cx: Cx) -> Result<(), EncodeError> {
        filled(5000, 1).write(buf, cx)?;
        panic!("a user's field panics mid-encode");
    }
    fn size(&self, cx: Cx) -> usize {
        filled(5000, 1).size(cx)
    }
    fn read(r: &mut Reader<'_>, cx: Cx) -> Result<Self, DecodeError> {
        Bytes::read(r, cx).map(|_| PanicsAfterWriting)
    }
}

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "none")]
struct Panicky {
    #[kafka(versions = "0+")]
    before: Bytes,
    #[kafka(versions = "0+")]
    boom: PanicsAfterWriting,
}

#[test]
fn a_panic_mid_encode_leaves_everything_as_it_was() {
    let mut out = Vectored::new();
    let a = payloads(1);
    a.encode_vectored(&mut out, 2).unwrap();
    let before = out.clone();
    let m = Panicky {
        before: filled(3000, 2),
        boom: PanicsAfterWriting,
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = m.encode_vectored(&mut out, 0);
    }));
    assert!(caught.is_err());
    // The values referenced before the panic are still there, and nothing of the failed
    // message is: the same all-or-nothing as an encode error.
    assert!(out == before);
    assert!(out.to_vec() == ordinary(&a, 2));
    // Nothing is left diverting on this thread: an ordinary encode copies every value.
    let plain = ordinary(&a, 2);
    assert_eq!(plain.len(), a.encoded_size(2));
    a.encode_vectored(&mut out, 2).unwrap();
    let mut twice = ordinary(&a, 2);
    twice.extend(ordinary(&a, 2));
    assert!(out.to_vec() == twice);
}

/// Appends `payloads(1)` to its `Vectored` when the thread exits, after `SINK` is gone (its
/// destructor was registered later, so it runs first), and sends the result back.
struct AtExit {
    out: Vectored,
    done: std::sync::mpsc::Sender<Vectored>,
}

impl Drop for AtExit {
    fn drop(&mut self) {
        let mut out = core::mem::take(&mut self.out);
        let res = payloads(1).encode_vectored(&mut out, 2);
        assert!(res.is_ok());
        let _ = self.done.send(out);
    }
}

std::thread_local! {
    static AT_EXIT: std::cell::RefCell<Option<AtExit>> = const { std::cell::RefCell::new(None) };
}

#[test]
fn an_encode_in_a_thread_local_destructor_keeps_what_was_referenced() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // Registered first, so destroyed after the vectored encode's own thread-locals.
        AT_EXIT.with(|slot| {
            *slot.borrow_mut() = Some(AtExit {
                out: Vectored::new(),
                done: tx,
            })
        });
        let mut out = Vectored::new();
        payloads(2).encode_vectored(&mut out, 2).unwrap();
        assert_eq!(out.referenced_count(), 4);
        AT_EXIT.with(|slot| {
            if let Some(a) = slot.borrow_mut().as_mut() {
                a.out = out;
            }
        });
    })
    .join()
    .unwrap();
    let out = rx.recv().unwrap();
    let mut plain = ordinary(&payloads(2), 2);
    plain.extend(ordinary(&payloads(1), 2));
    assert_eq!(out.len(), plain.len());
    assert!(out.to_vec() == plain);
    // The values appended with the sink gone are copied, not referenced.
    assert_eq!(out.referenced_count(), 4);
}

/// A body of many `bytes` values, for frames larger than an int32 can size.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(api_key = 0, request, versions = "0", flexible = "none")]
struct ManyValues {
    #[kafka(versions = "0+")]
    values: Vec<Bytes>,
}

#[test]
fn a_frame_over_the_int32_maximum_fails_and_leaves_everything_as_it_was() {
    // One 1 MiB buffer referenced 2,100 times: 2.05 GiB referenced, a few KiB written.
    let mib = filled(1 << 20, 4);
    let body = ManyValues {
        values: vec![mib.clone(); 2100],
    };
    let header = RequestHeader {
        request_api_key: 0,
        request_api_version: 0,
        correlation_id: 9,
        client_id: None,
        ..Default::default()
    };
    let mut out = Vectored::new();
    payloads(1).encode_vectored(&mut out, 2).unwrap();
    let before = out.clone();
    let err = encode_request_vectored(&mut out, &header, &body).unwrap_err();
    // After the prefix: header v1 (key 2, version 2, correlation id 4, null client id 2),
    // count 4, then 2,100 values of a 4-byte length and 1 MiB.
    let size = 2 + 2 + 4 + 2 + 4 + 2100 * (4 + (1 << 20));
    assert!(size > i32::MAX as usize);
    assert_eq!(err.kind(), &EncodeErrorKind::LengthTooLarge(size));
    assert_eq!(err.path().to_string(), "size");
    assert!(out == before);
    // The body alone has no size prefix to overflow: it is referenced, not copied.
    body.encode_vectored(&mut out, 0).unwrap();
    assert_eq!(out.referenced_count(), before.referenced_count() + 2100);
    assert_eq!(out.len(), before.len() + 4 + 2100 * (4 + (1 << 20)));
    // A smaller frame of the same values is the ordinary encode's bytes.
    let small = ManyValues {
        values: vec![mib; 3],
    };
    let mut plain = Vec::new();
    encode_request(&mut plain, &header, &small).unwrap();
    out.clear();
    encode_request_vectored(&mut out, &header, &small).unwrap();
    assert!(out.to_vec() == plain);
}
