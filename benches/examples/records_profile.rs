//! One record-batch operation in a loop, for instruction counts under callgrind:
//! `valgrind --tool=callgrind target/release/examples/records_profile large none read ours 10`
//! (workload large|tiny; codec none|gzip|snappy|lz4|zstd; op read|build|crc; lib ours|theirs).
//! Subtract a run with count 0 to remove the setup.

use std::hint::black_box;

use bytes::BytesMut;
use kafka_wire::records::{crc32c, Compression};
use kafka_wire_bench::records::*;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [w, codec, op, lib, n] = &a[..] else {
        eprintln!("usage: records_profile large|tiny CODEC read|build|crc ours|theirs N");
        std::process::exit(2);
    };
    let w = if w == "large" {
        large_records()
    } else {
        tiny_records()
    };
    let codec = Compression::from_name(codec).expect("codec");
    let n: usize = n.parse().expect("count");
    let (ours, theirs) = check_records(&w, codec);
    let mut v = Vec::new();
    let mut m = BytesMut::new();
    let mut sum = 0usize;
    for _ in 0..n {
        match (op.as_str(), lib.as_str()) {
            ("read", "ours") => sum += read_ours(black_box(&ours)),
            ("read", "theirs") => sum += read_theirs(black_box(&theirs)),
            ("build", "ours") => build_ours(black_box(&w), codec, &mut v),
            ("build", "theirs") => build_theirs(black_box(&w), codec, &mut m),
            ("crc", _) => sum += crc32c(black_box(&ours)) as usize,
            _ => panic!("unknown op"),
        }
    }
    black_box(sum);
}
