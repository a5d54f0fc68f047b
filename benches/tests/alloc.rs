//! Allocation counts, measured with a counting global allocator (not timings):
//!
//! - `encoded_size` allocates nothing;
//! - `encode` into a buffer that already has room allocates nothing;
//! - decode allocates exactly once per non-empty array of structs or strings: strings,
//!   bytes and arrays of fixed-width integers (`FixedArray`) share the input.
//!
//! kafka-protocol's counts on the same inputs are printed for BENCHMARKS.md
//! (`cargo test -p kafka-wire-bench --test alloc -- --nocapture`).

use bytes::Bytes;
use kafka_protocol::protocol::{Decodable, Encodable};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::KafkaMessage;
use kafka_wire_bench::*;
use kafka_wire_messages as kw;

#[global_allocator]
static GLOBAL: kafka_wire_counting_alloc::Counting = kafka_wire_counting_alloc::Counting;

/// Allocations made by `f` on this thread (its result is dropped outside the count).
fn allocs<R>(f: impl FnOnce() -> R) -> usize {
    let (r, counts) = kafka_wire_counting_alloc::measure(|| std::hint::black_box(f()));
    drop(r);
    counts.allocations
}

/// Checks the three claims for one input; `arrays` is its number of non-empty arrays.
/// Prints kafka-protocol's counts on the same input, for the report.
fn check<O, T>(name: &str, pair: Pair<O, T>, arrays: usize)
where
    O: KafkaMessage + PartialEq + core::fmt::Debug,
    T: Encodable + Decodable + PartialEq + core::fmt::Debug,
{
    let bytes = check_identical(name, &pair);
    let v = pair.version;

    assert_eq!(allocs(|| pair.ours.encoded_size(v)), 0, "{name}: size");
    let mut buf = Vec::with_capacity(bytes.len());
    assert_eq!(
        allocs(|| pair.ours.encode(&mut buf, v).unwrap()),
        0,
        "{name}: encode into a buffer with room"
    );
    buf.clear();
    assert_eq!(
        allocs(|| pair.ours.encode(&mut buf, v).unwrap()),
        0,
        "{name}: encode into a reused buffer"
    );
    assert_eq!(buf, bytes);
    let ours = allocs(|| O::decode_exact(&bytes, v).unwrap());
    assert_eq!(
        ours, arrays,
        "{name}: decode, one per non-empty array of structs"
    );

    let theirs_size = allocs(|| pair.theirs.compute_size(v).unwrap());
    buf.clear();
    let theirs_encode = allocs(|| pair.theirs.encode(&mut buf, v).unwrap());
    let theirs_decode = allocs(|| T::decode(&mut bytes.clone(), v).unwrap());
    println!(
        "{name} ({} bytes): kafka-wire size 0, encode 0, decode {ours}; \
         kafka-protocol size {theirs_size}, encode {theirs_encode}, decode {theirs_decode}",
        bytes.len()
    );
}

#[test]
fn txn_offset_commit_100x100() {
    // topics + one partitions array per topic
    check(
        "txn_offset_commit_v5_100x100",
        txn_offset_commit_large(),
        1 + 100,
    );
}

#[test]
fn add_partitions_to_txn() {
    // transactions + topics per transaction (the partitions, `[]int32`, share the input)
    check(
        "add_partitions_to_txn_v5_request",
        add_partitions_request(),
        1 + 8,
    );
    check(
        "add_partitions_to_txn_v5_response",
        add_partitions_response(),
        1 + 8 + 80,
    );
}

#[test]
fn initialize_share_group_state() {
    check(
        "initialize_share_group_state_v0_request",
        share_group_request(),
        1 + 20,
    );
}

#[test]
fn seed_instances() {
    // transactions, topics (the partitions share the input)
    check("seed_add_partitions_to_txn_v5", add_partitions_small(), 2);
    check("seed_txn_offset_commit_v5", txn_offset_commit_small(), 2);
    check(
        "seed_initialize_share_group_state_v0",
        share_group_small(),
        2,
    );
}

#[test]
fn whole_frame_decode_adds_nothing_for_the_header() {
    // client id "" and no tagged fields: the header allocates nothing.
    let p = txn_offset_commit_large();
    let frame: Bytes = request_frame_ours(p.ours, p.version);
    // A `Bytes` made from a `Vec` allocates its shared reference count the first time it is
    // sliced: once per buffer, by the bytes crate, not once per decode.
    let first = allocs(|| {
        kw::RequestFrame::decode(&frame, &DecodeOptions::DEFAULT)
            .unwrap()
            .frame
    });
    assert_eq!(first, 101 + 1);
    let n = allocs(|| {
        kw::RequestFrame::decode(&frame, &DecodeOptions::DEFAULT)
            .unwrap()
            .frame
    });
    assert_eq!(n, 101);
}
