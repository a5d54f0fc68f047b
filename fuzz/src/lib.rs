//! What every fuzz target checks, whatever the bytes:
//!
//! - decoding returns `Ok` or an error, never panics (a panic is libFuzzer's crash);
//! - the bytes allocated while decoding stay below [`ALLOC_FACTOR`] times the input plus
//!   [`ALLOC_SLACK`] (a counting global allocator measures each decode);
//! - an error's offset lies inside the input and its `Display` works;
//! - whatever decodes re-encodes to the same bytes, `encoded_size` agrees, and the re-encoded
//!   bytes decode back to an equal value.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Debug;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use kafka_wire::{DecodeError, KafkaMessage, Version};

/// Counts the bytes asked of the system allocator (allocations and the new size of
/// reallocations); frees are not subtracted, so this is the total allocated.
pub struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` unchanged; the counter has no effect on memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes a decode may allocate per input byte. Decoded structs are bigger than their wire
/// form (a 3-byte TxnOffsetCommit topic is a 96-byte struct) and vectors grow by doubling.
pub const ALLOC_FACTOR: usize = 64;
/// Fixed allowance per decode (an error's box and path, a first small vector).
pub const ALLOC_SLACK: usize = 4096;

/// Runs `f` and returns its result with the bytes allocated while it ran.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATED.load(Ordering::Relaxed);
    let out = f();
    (out, ALLOCATED.load(Ordering::Relaxed) - before)
}

/// Fails unless `allocated` bytes are within the bound for an input of `len` bytes.
pub fn check_alloc(len: usize, allocated: usize) {
    assert!(
        allocated <= ALLOC_FACTOR * len + ALLOC_SLACK,
        "decoding {len} bytes allocated {allocated} bytes"
    );
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

/// Decodes `body` as an `M` at `version` (the whole input), then checks the round trip.
pub fn check_message<M: KafkaMessage + PartialEq + Debug>(version: Version, body: &[u8]) {
    let buf = Bytes::copy_from_slice(body);
    let (res, allocated) = measure(|| M::decode_exact(&buf, version));
    check_alloc(body.len(), allocated);
    let m = match res {
        Ok(m) => m,
        Err(e) => return check_error(&e, body.len()),
    };
    assert_eq!(m.encoded_size(version), body.len(), "encoded_size of {m:?}");
    let out = match m.encode_to_vec(version) {
        Ok(out) => out,
        Err(e) => panic!("decoded value does not encode: {e}: {m:?}"),
    };
    assert_eq!(out, body, "re-encoded bytes differ for {m:?}");
    match M::decode_exact(&Bytes::from(out), version) {
        Ok(back) => assert_eq!(back, m),
        Err(e) => panic!("re-encoded bytes do not decode: {e}"),
    }
}
