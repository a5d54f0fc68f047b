//! What every fuzz target checks, whatever the bytes:
//!
//! - decoding returns `Ok` or an error, never panics (a panic is libFuzzer's crash);
//! - the bytes allocated while decoding stay within `k·n + c`: `k` the message's allocation
//!   ratio at its version (`Field::alloc_ratio`), `n` the input length, `c` [`ALLOC_SLACK`]
//!   (a counting global allocator measures each decode);
//! - an error's offset lies inside the input and its `Display` works;
//! - whatever decodes re-encodes to the same bytes, `encoded_size` agrees, and the re-encoded
//!   bytes decode back to an equal value.

use std::fmt::Debug;

use bytes::Bytes;
use kafka_wire::{DecodeError, KafkaMessage, Version};

pub mod framing;
pub mod seeds;
#[cfg(feature = "messages")]
use kafka_wire::{RequestHeader, ResponseHeader};
#[cfg(feature = "messages")]
use kafka_wire_messages::{ApiKey, RequestBody, ResponseBody};

/// The counting allocator shared with the test suites: bytes asked of the system allocator
/// (allocations and the new size of reallocations), frees not subtracted.
#[global_allocator]
static GLOBAL: kafka_wire_counting_alloc::Counting = kafka_wire_counting_alloc::Counting;

/// Bytes per input byte for targets with no derived `k` (the records target, whose
/// decompression has its own limit).
pub const ALLOC_FACTOR: usize = 64;
/// `c` of the bound: an error's box and path, and the trailing bytes of the elements being
/// read that an array's claim counts twice.
pub const ALLOC_SLACK: usize = 4096;

/// Runs `f` and returns its result with the bytes allocated while it ran.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = kafka_wire_counting_alloc::total();
    let out = f();
    (out, kafka_wire_counting_alloc::total() - before)
}

/// Fails unless `allocated` bytes are within `k·len + c` for an input of `len` bytes.
pub fn check_alloc(k: usize, len: usize, allocated: usize) {
    assert!(
        allocated <= k * len + ALLOC_SLACK,
        "decoding {len} bytes allocated {allocated} bytes (k = {k})"
    );
}

/// `k` of `M` at `version`.
pub fn ratio<M: KafkaMessage>(version: Version) -> usize {
    M::alloc_ratio(kafka_wire::Cx::new(version))
}

#[cfg(feature = "messages")]
/// `k` of a request frame of `api` at `version`: the body's or the header's.
pub fn request_k(api: ApiKey, version: Version) -> usize {
    let hv = api.request_header_version(version);
    RequestBody::alloc_ratio(api, version).max(ratio::<RequestHeader>(hv))
}

#[cfg(feature = "messages")]
/// `k` of a response frame of `api` at `version`.
pub fn response_k(api: ApiKey, version: Version) -> usize {
    let hv = api.response_header_version(version);
    ResponseBody::alloc_ratio(api, version).max(ratio::<ResponseHeader>(hv))
}

#[cfg(feature = "messages")]
/// `k` of a whole request frame as `RequestFrame::decode` reads it: from the API key and
/// version it peeks (the header's alone when they are not declared).
pub fn request_frame_k(frame: &[u8]) -> usize {
    let header_only = ratio::<RequestHeader>(2);
    let (Some(k), Some(v)) = (frame.get(4..6), frame.get(6..8)) else {
        return header_only;
    };
    let key = i16::from_be_bytes([k[0], k[1]]);
    let v = i16::from_be_bytes([v[0], v[1]]);
    match ApiKey::from_i16(key) {
        Some(api) if api.request_versions().contains(v) => request_k(api, v),
        _ => header_only,
    }
}

/// Checks an error: offset inside the input, `Display` and `Debug` work.
pub fn check_error(e: &DecodeError, len: usize) {
    assert!(
        e.offset() <= len,
        "offset {} beyond input of {len}: {e}",
        e.offset()
    );
    let text = e.to_string();
    assert!(text.contains(" at byte "), "{text}");
    let _ = format!("{e:?}");
}

/// Splits a fuzz input into a version (first two bytes, big-endian) and the rest.
pub fn split_version(data: &[u8]) -> Option<(Version, &[u8])> {
    let (v, rest) = data.split_first_chunk::<2>()?;
    Some((i16::from_be_bytes(*v), rest))
}

/// Checks a re-encoding of decoded `input`: the same bytes, or fewer when a declared tagged
/// field carried its default (accepted, as Java's reader accepts it, and left out on encode,
/// as Java's writer leaves it out). The callers also check that `out` decodes to the same
/// value, which holds either way.
pub fn check_reencoded(out: &[u8], input: &[u8], what: &dyn Debug) {
    assert!(
        out == input || out.len() < input.len(),
        "re-encoded bytes differ for {what:?}"
    );
}

/// Decodes `body` as an `M` at `version` (the whole input), then checks the round trip.
pub fn check_message<M: KafkaMessage + PartialEq + Debug>(version: Version, body: &[u8]) {
    let buf = Bytes::copy_from_slice(body);
    let (res, allocated) = measure(|| M::decode_exact(&buf, version));
    check_alloc(ratio::<M>(version), body.len(), allocated);
    let m = match res {
        Ok(m) => m,
        Err(e) => return check_error(&e, body.len()),
    };
    let out = match m.encode_to_vec(version) {
        Ok(out) => out,
        Err(e) => panic!("decoded value does not encode: {e}: {m:?}"),
    };
    assert_eq!(m.encoded_size(version), out.len(), "encoded_size of {m:?}");
    check_reencoded(&out, body, &m);
    match M::decode_exact(&Bytes::from(out), version) {
        Ok(back) => assert_eq!(back, m),
        Err(e) => panic!("re-encoded bytes do not decode: {e}"),
    }
}

/// The metadata-driven decoder failed as the typed one did: same kind, offset and path.
pub fn same_error(dynamic: &DecodeError, typed: &DecodeError) {
    assert_eq!(
        dynamic.kind(),
        typed.kind(),
        "dynamic {dynamic} vs typed {typed}"
    );
    assert_eq!(
        dynamic.offset(),
        typed.offset(),
        "dynamic {dynamic} vs typed {typed}"
    );
    assert_eq!(
        dynamic.path().to_string(),
        typed.path().to_string(),
        "dynamic {dynamic} vs typed {typed}"
    );
}

/// A frame the metadata-driven decoder read encodes, through `dynamic::encode_frame_into`,
/// to the bytes the typed frame of the same input encodes to (`typed`, or the error it
/// gave), into a vector and into a slice of exactly that size.
pub fn same_frame(
    dynamic: &kafka_wire::dynamic::Frame,
    typed: Result<&[u8], &kafka_wire::EncodeError>,
) {
    let mut out = Vec::new();
    let res = kafka_wire::dynamic::encode_frame_into(&mut out, dynamic);
    match (res, typed) {
        (Ok(()), Ok(t)) => {
            assert_eq!(out, t, "dynamic and typed frames differ");
            let mut slice = vec![0u8; t.len()];
            let mut dst = &mut slice[..];
            kafka_wire::dynamic::encode_frame_into(&mut dst, dynamic)
                .expect("the frame fits its exact size");
            assert!(dst.is_empty() && slice == t, "slice encode differs");
        }
        (Err(d), Err(t)) => assert_eq!(d.kind(), t.kind(), "dynamic {d} vs typed {t}"),
        (d, t) => panic!("dynamic encode {d:?} vs typed {t:?}"),
    }
}

/// A frame decoded from re-encoded bytes equals the one they came from; a float64 NaN
/// (which no `PartialEq` finds equal to itself) is compared by its bytes instead: both
/// frames must then encode to the same bytes.
pub fn same_value<F: PartialEq + Debug>(back: &F, frame: &F)
where
    F: EncodeFrame,
{
    if back != frame {
        let (a, b) = (back.frame_bytes(), frame.frame_bytes());
        assert!(
            a.is_some() && a == b,
            "re-decoded {back:?} differs from {frame:?}"
        );
    }
}

/// The frame types' `to_vec`, for [`same_value`].
pub trait EncodeFrame {
    /// The encoded frame, `None` if it does not encode.
    fn frame_bytes(&self) -> Option<Vec<u8>>;
}

#[cfg(feature = "messages")]
impl EncodeFrame for kafka_wire_messages::RequestFrame {
    fn frame_bytes(&self) -> Option<Vec<u8>> {
        self.to_vec().ok()
    }
}

#[cfg(feature = "messages")]
impl EncodeFrame for kafka_wire_messages::ResponseFrame {
    fn frame_bytes(&self) -> Option<Vec<u8>> {
        self.to_vec().ok()
    }
}
