//! One record-batch operation in a loop, for instruction counts under callgrind:
//! `valgrind --tool=callgrind target/release/examples/records_profile large none read ours 10`
//! (workload large|tiny; codec none|gzip|snappy|lz4|zstd; op
//! read|read-nocrc|build|build-all|crc; lib ours|theirs; read-nocrc is ours only, build-all
//! is ours through `BatchBuilder::append_all` and theirs' only build).
//! Subtract a run with count 0 to remove the setup. `records_profile time [WORKLOAD [CODEC]]`
//! instead prints the median wall-clock time per operation of every pair (or of those
//! named), for a quick look on a busy box.

use std::hint::black_box;

use bytes::BytesMut;
use kafka_wire::records::{crc32c, Compression};
use kafka_wire_bench::records::*;

/// Median of `rounds` timings of `iters` calls of `f`, in microseconds per call.
fn median_us(rounds: usize, iters: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..rounds)
        .map(|_| {
            let s = std::time::Instant::now();
            for _ in 0..iters {
                f();
            }
            s.elapsed().as_secs_f64() * 1e6 / iters as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[rounds / 2]
}

fn time_all(workload: Option<&str>, only: Option<&str>) {
    for (name, w) in [("large", large_records()), ("tiny", tiny_records())] {
        if workload.is_some_and(|n| n != name) {
            continue;
        }
        for codec in Compression::ALL {
            if only.is_some_and(|c| c != codec.name()) {
                continue;
            }
            let (ours, theirs) = check_records(&w, codec);
            let r_o = median_us(15, 10, || {
                black_box(read_ours(black_box(&ours)));
            });
            let r_t = median_us(15, 10, || {
                black_box(read_theirs(black_box(&theirs)));
            });
            let mut v = Vec::new();
            let b_o = median_us(15, 10, || build_ours(black_box(&w), codec, &mut v));
            let b_a = median_us(15, 10, || build_ours_all(black_box(&w), codec, &mut v));
            let mut m = BytesMut::new();
            let b_t = median_us(15, 10, || build_theirs(black_box(&w), codec, &mut m));
            println!(
                "{} {codec}: read {r_o:.1} us vs {r_t:.1} us ({:.2}x), build {b_o:.1} us vs {b_t:.1} us ({:.2}x), build_all {b_a:.1} us ({:.2}x)",
                w.name,
                r_t / r_o,
                b_t / b_o,
                b_t / b_a
            );
        }
    }
    if workload.is_some() {
        return;
    }
    let data = vec![0x5au8; 1 << 20];
    for (name, len) in [
        ("1 KiB", 1usize << 10),
        ("64 KiB", 64 << 10),
        ("1 MiB", 1 << 20),
    ] {
        let d = &data[..len];
        let us = median_us(15, (50 << 20) / len, || {
            black_box(crc32c(black_box(d)));
        });
        println!(
            "crc32c {name}: {us:.3} us = {:.2} GB/s",
            len as f64 / us / 1e3
        );
    }
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.first().map(String::as_str) == Some("time") {
        return time_all(a.get(1).map(String::as_str), a.get(2).map(String::as_str));
    }
    let [w, codec, op, lib, n] = &a[..] else {
        eprintln!(
            "usage: records_profile large|tiny CODEC read|read-nocrc|build|crc ours|theirs N"
        );
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
            // Ours without the CRC check (kafka-protocol always checks it).
            ("read-nocrc", "ours") => sum += read_ours_with(black_box(&ours), false),
            ("read", "theirs") => sum += read_theirs(black_box(&theirs)),
            ("build", "ours") => build_ours(black_box(&w), codec, &mut v),
            ("build-all", "ours") => build_ours_all(black_box(&w), codec, &mut v),
            ("build-all", "theirs") => build_theirs(black_box(&w), codec, &mut m),
            ("build", "theirs") => build_theirs(black_box(&w), codec, &mut m),
            ("crc", _) => sum += crc32c(black_box(&ours)) as usize,
            _ => panic!("unknown op"),
        }
    }
    black_box(sum);
}
