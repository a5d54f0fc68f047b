//! The memory an encode keeps after it returns: the per-thread scratch vector that staged
//! encodes (any buffer but a `Vec<u8>`) and `encode_to_vec` write through holds at
//! most `kafka_wire::__private::SCRATCH_KEEP` bytes between encodes, however large the last message.
//! Measured with an allocator that counts the bytes this thread holds live.

use kafka_wire::__private::SCRATCH_KEEP;
use kafka_wire::{KafkaMessage, Records};
use kafka_wire_messages::{PartitionProduceData, ProduceRequest, TopicProduceData};

#[global_allocator]
static GLOBAL: kafka_wire_counting_alloc::Counting = kafka_wire_counting_alloc::Counting;

/// The bytes this thread holds live (its frees subtracted).
fn live() -> isize {
    kafka_wire_counting_alloc::thread().live
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
