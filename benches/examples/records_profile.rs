//! One record-batch operation in a loop, for instruction counts under callgrind:
//! `valgrind --tool=callgrind target/release/examples/records_profile large none read ours 10`
//! (workload large|tiny; codec none|gzip|snappy|lz4|zstd; op
//! read|read-nocrc|build|build-all|crc; lib ours|theirs; read-nocrc is ours only, build-all
//! is ours through `BatchBuilder::append_all` and theirs' only build).
//! Subtract a run with count 0 to remove the setup. `records_profile time [WORKLOAD [CODEC]]`
//! instead prints the median wall-clock time per operation of every pair (or of those
//! named), for a quick look on a busy box; `records_profile pair large|tiny [ROUNDS [N]]` the
//! uncompressed builds and their floors alternated in one process (see [`pair`]).

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

/// `records_profile pair WORKLOAD [ROUNDS [N]]`: the uncompressed builds (`append`,
/// `append_all`, kafka-protocol's encoder) and two floors (the keys and values appended to a
/// reused `Vec` with `extend_from_slice`, and that followed by one `crc32c` pass) alternated
/// round by round in one process, 20 builds a round; prints each one's minimum and median per
/// build and the ratios. Alternating in one process keeps the memory placement and the
/// neighbours' load the same for all of them; single-process medians moved by up to 50%
/// between processes here. `N` replaces the large workload's 1,000 records by `N` of the same
/// shape (50 keeps everything in L2).
fn pair(workload: &str, rounds: usize, n: Option<usize>) {
    let w = match (workload, n) {
        ("large", None) => large_records(),
        ("large", Some(n)) => kb_records(n),
        ("tiny", None) => tiny_records(),
        _ => {
            eprintln!("usage: records_profile pair large [ROUNDS [N]] | pair tiny [ROUNDS]");
            std::process::exit(2);
        }
    };
    let codec = Compression::None;
    check_records(&w, codec);
    let (mut v, mut m) = (Vec::new(), BytesMut::new());
    let time = |f: &mut dyn FnMut()| {
        let s = std::time::Instant::now();
        for _ in 0..20 {
            f();
        }
        s.elapsed().as_secs_f64() * 1e6 / 20.0
    };
    let copy = |v: &mut Vec<u8>| {
        v.clear();
        for (_, k, x) in &black_box(&w).records {
            v.extend_from_slice(k.as_deref().unwrap_or_default());
            v.extend_from_slice(x.as_deref().unwrap_or_default());
        }
    };
    let mut t = [(); 5].map(|_| Vec::with_capacity(rounds));
    for _ in 0..rounds {
        t[0].push(time(&mut || build_ours(black_box(&w), codec, &mut v)));
        t[1].push(time(&mut || build_ours_all(black_box(&w), codec, &mut v)));
        t[2].push(time(&mut || build_theirs(black_box(&w), codec, &mut m)));
        t[3].push(time(&mut || copy(&mut v)));
        t[4].push(time(&mut || {
            copy(&mut v);
            black_box(crc32c(&v));
        }));
    }
    let [a, b, c, d, e] = t.map(|mut x| {
        x.sort_by(f64::total_cmp);
        (x[0], x[x.len() / 2])
    });
    println!(
        "{} ({} records) build, min / median per build: append {:.1} / {:.1} us, append_all {:.1} / {:.1} us, kafka-protocol {:.1} / {:.1} us; ratio (append, append_all) min {:.2}x {:.2}x, median {:.2}x {:.2}x; floors: copy {:.1} / {:.1} us, copy then crc32c {:.1} / {:.1} us",
        w.name,
        w.records.len(),
        a.0,
        a.1,
        b.0,
        b.1,
        c.0,
        c.1,
        c.0 / a.0,
        c.0 / b.0,
        c.1 / a.1,
        c.1 / b.1,
        d.0,
        d.1,
        e.0,
        e.1
    );
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.first().map(String::as_str) == Some("pair") {
        let rounds = a.get(2).and_then(|n| n.parse().ok()).unwrap_or(101);
        let n = a.get(3).and_then(|n| n.parse().ok());
        return pair(a.get(1).map_or("large", String::as_str), rounds, n);
    }
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
