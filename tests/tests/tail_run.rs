//! A struct whose last fields form a fixed-width run and that declares no tagged field
//! writes its tagged section's count with that run (`StructCx::put_run_tags`), and falls back to
//! the ordinary section writer otherwise. Each branch is checked against bytes assembled by
//! hand from Kafka's rules: AddPartitionsToTxnResponse, whose partition result is
//! `partition_index` (int32) and `partition_error_code` (int16), flexible from v3 (compact
//! strings and counts, length + 1, and a tagged section: count, then tag, size and bytes per
//! field, all unsigned varints).

use kafka_wire::{EncodeErrorKind, KafkaMessage, Str, UnknownTaggedFields};
use kafka_wire_messages::*;

/// One topic "t" with one partition (index 5, error code 48), the partition holding
/// `unknown`.
fn response(unknown: UnknownTaggedFields) -> AddPartitionsToTxnResponse {
    AddPartitionsToTxnResponse {
        throttle_time_ms: 1,
        results_by_topic_v3_and_below: vec![AddPartitionsToTxnTopicResult {
            name: Str::from("t"),
            results_by_partition: vec![AddPartitionsToTxnPartitionResult {
                partition_index: 5,
                partition_error_code: 48,
                unknown_tagged_fields: unknown,
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn check(m: &AddPartitionsToTxnResponse, version: i16, expected: &[u8]) {
    let out = m.encode_to_vec(version).unwrap();
    assert_eq!(out, expected, "v{version}: bytes");
    assert_eq!(m.encoded_size(version), expected.len(), "v{version}: size");
    let back = AddPartitionsToTxnResponse::decode_exact(&out.into(), version).unwrap();
    assert_eq!(&back, m, "v{version}: decoded");
}

/// Flexible, no unknown tagged field: the run and the count 0 in one write.
#[test]
fn flexible_run_then_empty_section() {
    check(
        &response(UnknownTaggedFields::new()),
        3,
        &[
            0, 0, 0, 1, // throttle_time_ms
            2, // one topic (compact count)
            2, b't', // name (compact string)
            2,    // one partition
            0, 0, 0, 5, 0, 48, // partition_index, partition_error_code
            0,  // the partition's tagged section: empty
            0,  // the topic's
            0,  // the message's
        ],
    );
}

/// Flexible, an unknown tagged field on the partition: the run, then the section written by
/// the ordinary path (the zero written with the run is taken back).
#[test]
fn flexible_run_then_unknown_field() {
    let mut unknown = UnknownTaggedFields::new();
    unknown.push(7, vec![0xAB, 0xCD]);
    check(
        &response(unknown),
        3,
        &[
            0, 0, 0, 1, 2, 2, b't', 2, //
            0, 0, 0, 5, 0, 48, // the run
            1, 7, 2, 0xAB, 0xCD, // one field: tag 7, 2 bytes
            0, 0,
        ],
    );
}

/// Not flexible: the run alone, no section (the zero is taken back).
#[test]
fn classic_run_without_section() {
    check(
        &response(UnknownTaggedFields::new()),
        2,
        &[
            0, 0, 0, 1, // throttle_time_ms
            0, 0, 0, 1, // one topic (int32 count)
            0, 1, b't', // name (int16 length)
            0, 0, 0, 1, // one partition
            0, 0, 0, 5, 0, 48,
        ],
    );
}

/// Not flexible with an unknown tagged field set: refused, as Java cannot write it, and
/// nothing is left in the output.
#[test]
fn classic_run_with_unknown_field_is_refused() {
    let mut unknown = UnknownTaggedFields::new();
    unknown.push(7, vec![1]);
    let m = response(unknown);
    let mut out = vec![0xEE];
    let err = m.encode(&mut out, 2).unwrap_err();
    assert!(
        matches!(err.kind(), EncodeErrorKind::TaggedFieldsNotSupported { .. }),
        "unexpected error kind: {err}"
    );
    assert!(
        err.to_string().contains("unknown_tagged_fields"),
        "the error names the field: {err}"
    );
    assert_eq!(out, [0xEE], "all or nothing");
}
