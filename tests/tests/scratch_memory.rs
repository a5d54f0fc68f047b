//! The memory an encode keeps after it returns: the per-thread scratch vector that staged
//! encodes (any buffer but a `Vec<u8>`) and `encode_to_vec` write through holds at
//! most `kafka_wire::SCRATCH_KEEP` bytes between encodes, however large the last message.
//! Measured with an allocator that counts the bytes this thread holds live.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use kafka_wire::{KafkaMessage, Records, SCRATCH_KEEP};
use kafka_wire_messages::{PartitionProduceData, ProduceRequest, TopicProduceData};

/// Counts the bytes live in allocations made by the current thread (freed ones subtracted),
/// so tests running in parallel do not see each other's.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn add(n: isize) {
    let _ = LIVE.try_with(|c| c.set(c.get() + n));
}

// SAFETY: every method forwards to `System` unchanged; counting touches no memory it returns.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn live() -> isize {
    LIVE.with(Cell::get)
}

/// A Produce v3 request carrying one opaque record set of `len` bytes: the message is a
/// little longer than `len`.
fn produce(len: usize) -> ProduceRequest {
    ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: vec![TopicProduceData {
            name: "t".into(),
            partition_data: vec![PartitionProduceData {
                records: Some(Records::from(vec![7u8; len])),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn the_scratch_vector_keeps_at_most_scratch_keep_bytes_after_any_encode() {
    // Warm this thread's scratch slot and anything else lazily set up by a first encode.
    let warm = produce(16);
    drop(warm.encode_to_vec(3).unwrap());

    // A message four times the cap, through both paths that use the scratch vector: the
    // vector grows to hold it and is freed afterwards, not kept.
    let big = produce(4 * SCRATCH_KEEP);
    let base = live();
    let bytes = big.encode_to_vec(3).unwrap();
    assert!(bytes.len() > 4 * SCRATCH_KEEP);
    drop(bytes);
    let kept = live() - base;
    assert!(
        kept <= 0,
        "encode_to_vec of a 16 MiB message kept {kept} bytes"
    );

    let mut out = vec![0u8; 4 * SCRATCH_KEEP + 4096];
    let base = live();
    let mut slice: &mut [u8] = &mut out;
    big.encode(&mut slice, 3).unwrap();
    let kept = live() - base;
    assert!(
        kept <= 0,
        "a staged encode of a 16 MiB message kept {kept} bytes"
    );

    // A message just under the cap is kept for reuse (that is the point of the vector),
    // and the next encode of it allocates nothing more than its result.
    let mid = produce(SCRATCH_KEEP - 4096);
    let base = live();
    drop(mid.encode_to_vec(3).unwrap());
    let kept = live() - base;
    assert!(
        kept > 0 && kept as usize <= SCRATCH_KEEP,
        "a message under the cap: {kept} bytes kept (at most {SCRATCH_KEEP})"
    );
    let base = live();
    drop(mid.encode_to_vec(3).unwrap());
    assert_eq!(live() - base, 0, "the second encode reused the kept vector");
}
