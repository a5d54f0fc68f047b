//! Both libraries encode every benchmark input to the same bytes, and the seed-page frames
//! have the sizes the pages give. Not timings: this keeps the benchmarks honest in CI.

use kafka_wire_bench::*;

#[test]
fn every_input_encodes_identically() {
    macro_rules! check {
        ($name:expr, $input:ident) => {
            check_identical($name, &$input());
        };
    }
    for_each_input!(check);
    let b = check_identical("toc", &txn_offset_commit_large());
    assert!((180_000..200_000).contains(&b.len()), "{}", b.len());
}

/// The sizes the shapes have, worked out from the wire rules by hand.
#[test]
fn shapes_have_the_intended_sizes() {
    // v0: transactional id "" (2) + group id "" (2) + producer id (8) + epoch (2) + topics (4).
    assert_eq!(
        check_identical("empty", &txn_offset_commit_v0_empty()).len(),
        18
    );
    // + topic name "" (2) + partitions count (4) + index (4) + offset (8) + metadata "" (2).
    assert_eq!(
        check_identical("one", &txn_offset_commit_v0_one()).len(),
        38
    );
    // 1000 topics: name 2 + 60, count 4, partition 4 + 8 + 4 + metadata 2 + 12 ("checkpoint-0").
    let b = check_identical("v2", &txn_offset_commit_v2_long_names());
    let header = 2 + 24 + 2 + 23 + 8 + 2 + 4;
    assert_eq!(b.len(), header + 1000 * (62 + 4 + 16 + 2 + 12));
    // 5000 partitions, each with 200 bytes of metadata (compact length 2 bytes: 201 > 127).
    let b = check_identical("wide", &txn_offset_commit_wide());
    assert!(b.len() > 5000 * (16 + 2 + 200 + 1), "{}", b.len());
    // 32 batches of 16 records, each record about 250 bytes (key 12, value 220, framing).
    let b = check_identical("produce", &produce_request());
    assert!(
        (32 * 16 * 240..32 * 16 * 260).contains(&b.len()),
        "{}",
        b.len()
    );
    // Partition: error 2, index 4, leader 4, epoch 4, replicas 1 + 12, ISR 1 + 12 (1 + 8 on
    // every fifth), offline 1, tags 1: 42 or 38. Topic: error 2, name 1 + 40, id 16,
    // internal 1, partition count 1, authorized operations 4, tags 1: 66. Broker: id 4,
    // host 1 + 47, port 4, rack 1 + 10, tags 1: 68. Top: throttle 4, broker count 1,
    // cluster id 1 + 37, controller 4, topic count 2, tags 1: 50.
    let b = check_identical("metadata", &metadata_response());
    assert_eq!(b.len(), 4000 * 42 + 1000 * 38 + 500 * 66 + 50 * 68 + 50);
}

#[test]
fn seed_frames_have_the_pages_sizes() {
    let p = add_partitions_small();
    check_identical("apt", &p);
    let f = request_frame_ours(p.ours.clone(), p.version);
    assert_eq!(f, request_frame_theirs(&p.theirs, p.version));
    assert_eq!(f.len(), 38);

    let p = txn_offset_commit_small();
    check_identical("toc", &p);
    let f = request_frame_ours(p.ours.clone(), p.version);
    assert_eq!(f, request_frame_theirs(&p.theirs, p.version));
    assert_eq!(f.len(), 56);

    let p = share_group_small();
    check_identical("isgs", &p);
    let f = request_frame_ours(p.ours.clone(), p.version);
    assert_eq!(f, request_frame_theirs(&p.theirs, p.version));
    assert_eq!(f.len(), 53);

    let p = txn_offset_commit_large();
    let f = request_frame_ours(p.ours.clone(), p.version);
    assert_eq!(f, request_frame_theirs(&p.theirs, p.version));
}

/// The records benchmark's Produce row: our frame with the batch built in place at its end
/// and kafka-protocol's (batch encoded, then copied into the request) are the same bytes.
#[test]
fn produce_in_place_frame_matches_kafka_protocol() {
    kafka_wire_bench::records::check_produce(&kafka_wire_bench::records::large_records());
}

/// The hand-written copy floors write kafka-protocol's bytes (so the floor they give in
/// BENCHMARKS.md is a floor for the same output), at every version they cover.
#[test]
fn copy_floors_write_kafka_protocols_bytes() {
    use kafka_protocol::protocol::Encodable as _;
    fn theirs(
        p: &Pair<
            kafka_wire_messages::TxnOffsetCommitRequest,
            kafka_protocol::messages::TxnOffsetCommitRequest,
        >,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        p.theirs.encode(&mut out, p.version).unwrap();
        out
    }
    for p in [
        txn_offset_commit_large(),
        txn_offset_commit_meta(),
        txn_offset_commit_wide(),
    ] {
        let mut out = Vec::new();
        txn_offset_commit_flexible_floor(&p.ours, &mut out);
        assert!(out == theirs(&p), "flexible floor, v{}", p.version);
    }
    // v2 (leader epoch written), and v0 (none): the classic floor.
    for p in [
        txn_offset_commit_v2_long_names(),
        txn_offset_commit_v0_one(),
        txn_offset_commit_v0_empty(),
    ] {
        let mut out = Vec::new();
        txn_offset_commit_classic_floor(&p.ours, p.version, &mut out);
        assert!(out == theirs(&p), "classic floor, v{}", p.version);
    }
}

/// The hand-written decode floors build the value both libraries decode (kafka-wire's value,
/// which `check_identical` compared with kafka-protocol's), and stop at a cut input.
#[test]
fn decode_floors_build_the_decoded_value() {
    let p = txn_offset_commit_v2_long_names();
    let b = check_identical("v2", &p);
    assert!(txn_offset_commit_v2_decode_floor(&b) == Some(p.ours.clone()));
    assert!(txn_offset_commit_v2_decode_floor(&b.slice(..b.len() - 1)).is_none());
    // Into a value of another shape (more topics, another partition count), then into the
    // value it left: the same value each time.
    let mut m = txn_offset_commit_large().ours;
    txn_offset_commit_v2_decode_floor_into(&b, &mut m).unwrap();
    assert!(m == p.ours);
    txn_offset_commit_v2_decode_floor_into(&b, &mut m).unwrap();
    assert!(m == p.ours);
    let empty = check_identical("empty", &txn_offset_commit_v0_empty());
    txn_offset_commit_v2_decode_floor_into(&empty, &mut m).unwrap();
    assert!(m.topics.is_empty());

    let p = txn_offset_commit_wide();
    let b = check_identical("wide", &p);
    assert!(txn_offset_commit_flexible_decode_floor(&b) == Some(p.ours));
    assert!(txn_offset_commit_flexible_decode_floor(&b.slice(..b.len() - 1)).is_none());
    let p = txn_offset_commit_large();
    let b = check_identical("large", &p);
    assert!(txn_offset_commit_flexible_decode_floor(&b) == Some(p.ours));

    let p = produce_request();
    let b = check_identical("produce", &p);
    let floor = produce_flexible_decode_floor(&b).unwrap();
    assert!(floor == p.ours);
    // The records are slices of the input, not copies.
    let r = floor.topic_data[0].partition_data[0]
        .records
        .as_ref()
        .unwrap();
    let (start, end) = (b.as_ptr() as usize, b.as_ptr() as usize + b.len());
    assert!((start..end).contains(&(r.0.as_ptr() as usize)));
    assert!(produce_flexible_decode_floor(&b.slice(..b.len() - 1)).is_none());
}
