//! Both libraries encode every benchmark input to the same bytes, and the seed-page frames
//! have the sizes the pages give. Not timings: this keeps the benchmarks honest in CI.

use kafka_wire_bench::*;

#[test]
fn large_inputs_encode_identically() {
    let b = check_identical("toc", &txn_offset_commit_large());
    assert!((180_000..200_000).contains(&b.len()), "{}", b.len());
    check_identical("apt req", &add_partitions_request());
    check_identical("apt resp", &add_partitions_response());
    check_identical("isgs", &share_group_request());
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
