//! One operation in a loop, for instruction counts under callgrind:
//! `valgrind --tool=callgrind target/release/examples/profile txn_offset_commit_v5_100x100 decode ours 20`
//! (cases: the names in `kafka_wire_bench::for_each_input`)
//! (ops: encode, decode, size, frame (whole request frame, ours only), vectored (ours:
//! `encode_vectored`, theirs: encode), bytesmut (encode into a reused `BytesMut`), split
//! (wall time of decode and of drop apart, printed; not for callgrind), none; and
//! for the TxnOffsetCommit inputs of 1 KB or more `floor`, the hand-written copy floor, lib
//! ignored; for TxnOffsetCommit v2 1000x1, v5 1x5000 and Produce `decode_floor` (ours: the
//! hand-written decode floor, theirs: their decode) and for v2 `decode_floor_into` (ours:
//! the floor decoding into one value that keeps its vectors, theirs: their decode).
//! With `PROFILE_LEAST=1` in the environment, every pass is timed and the least and median
//! wall-clock times are printed: `PROFILE_LEAST=1 taskset -c 1 target/release/examples/profile
//! txn_offset_commit_v5_100x100 size ours 20000`.

use std::hint::black_box;

use bytes::Bytes;
use kafka_protocol::protocol::{Decodable, Encodable};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::KafkaMessage;
use kafka_wire_bench::*;

fn run<O, T>(pair: Pair<O, T>, op: &str, lib: &str, n: usize)
where
    O: KafkaMessage + PartialEq + core::fmt::Debug,
    T: Encodable + Decodable + PartialEq + core::fmt::Debug,
{
    let bytes: Bytes = check_identical("profile", &pair);
    // The whole request frame (for op "frame"; requests only).
    let frame = match O::META.api {
        Some(a) if op == "frame" => request_frame_ours(
            kafka_wire_messages::RequestBody::decode(
                kafka_wire_messages::ApiKey::from_i16(a.key).unwrap(),
                pair.version,
                &mut kafka_wire::Reader::new(&bytes),
            )
            .unwrap(),
            pair.version,
        ),
        _ => Bytes::new(),
    };
    let v = pair.version;
    if op == "split" {
        return split(&bytes, v, lib, n, O::decode_exact, |b, v| {
            T::decode(&mut b.clone(), v)
        });
    }
    let mut buf = Vec::with_capacity(bytes.len());
    let mut vectored = kafka_wire::Vectored::new();
    let mut bm = bytes::BytesMut::with_capacity(bytes.len());
    // With `PROFILE_LEAST` set, each pass is timed and the least and the median are printed
    // (wall clock, for comparing two builds of a loop-bound operation; not for callgrind).
    let timed = std::env::var_os("PROFILE_LEAST").is_some();
    let mut times = Vec::with_capacity(if timed { n } else { 0 });
    for _ in 0..n {
        let t0 = timed.then(std::time::Instant::now);
        match (op, lib) {
            ("encode", "ours") => {
                buf.clear();
                black_box(&pair.ours).encode(&mut buf, v).unwrap();
            }
            ("encode", "theirs") => {
                buf.clear();
                black_box(&pair.theirs).encode(&mut buf, v).unwrap();
            }
            // The vectored encode (long bytes referenced, not copied) against their encode.
            ("vectored", "ours") => {
                vectored.clear();
                black_box(&pair.ours)
                    .encode_vectored(&mut vectored, v)
                    .unwrap();
            }
            ("vectored", "theirs") => {
                buf.clear();
                black_box(&pair.theirs).encode(&mut buf, v).unwrap();
            }
            // Encode into a `BytesMut`, cleared and reused.
            ("bytesmut", "ours") => {
                bm.clear();
                black_box(&pair.ours).encode(&mut bm, v).unwrap();
            }
            ("bytesmut", "theirs") => {
                bm.clear();
                black_box(&pair.theirs).encode(&mut bm, v).unwrap();
            }
            ("decode", "ours") => drop(black_box(O::decode_exact(&bytes, v).unwrap())),
            ("decode", "theirs") => {
                drop(black_box(T::decode(&mut bytes.clone(), v).unwrap()));
            }
            ("size", "ours") => drop(black_box(pair.ours.encoded_size(v))),
            ("size", "theirs") => drop(black_box(pair.theirs.compute_size(v).unwrap())),
            ("frame", "ours") => {
                drop(black_box(
                    kafka_wire_messages::RequestFrame::decode(&frame, &DecodeOptions::DEFAULT)
                        .unwrap(),
                ));
            }
            ("none", _) => {}
            _ => panic!(
                "op: encode|vectored|bytesmut|decode|size|frame|split|none, lib: ours|theirs"
            ),
        }
        black_box(&mut buf);
        if let Some(t0) = t0 {
            times.push(t0.elapsed().as_nanos());
        }
    }
    if timed && !times.is_empty() {
        times.sort_unstable();
        println!(
            "{op} {lib}: least {} ns, median {} ns over {n} passes",
            times[0],
            times[times.len() / 2]
        );
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n = a.get(4).map_or(10, |s| s.parse().unwrap());
    let (case, op, lib) = (a[1].as_str(), a[2].as_str(), a[3].as_str());
    if op == "floor" {
        return floor(case, n);
    }
    if op.starts_with("decode_floor") {
        prelude(&std::env::var("PROFILE_PRELUDE").unwrap_or_default());
        return decode_floor(case, op, lib, n);
    }
    macro_rules! case {
        ($name:expr, $input:ident) => {
            if case == $name {
                return run($input(), op, lib, n);
            }
        };
    }
    prelude(&std::env::var("PROFILE_PRELUDE").unwrap_or_default());
    for_each_input!(case);
    panic!("case: one of the names in kafka_wire_bench::for_each_input");
}

/// A used heap, for measuring how heap history moves an operation: the comma-separated
/// inputs of `PROFILE_PRELUDE` are each built, cross-checked and decoded 20 times by both
/// libraries (the results dropped) before the operation runs, as when the benchmark binary
/// runs them first in one process. Its instructions are the same at 1 and 11 iterations,
/// so `instructions.py`'s difference leaves them out.
fn prelude(cases: &str) {
    for c in cases.split(',').filter(|c| !c.is_empty()) {
        let mut found = false;
        macro_rules! case {
            ($name:expr, $input:ident) => {
                if c == $name {
                    found = true;
                    run($input(), "decode", "ours", 20);
                    run($input(), "decode", "theirs", 20);
                }
            };
        }
        for_each_input!(case);
        assert!(found, "PROFILE_PRELUDE: {c} is not an input");
    }
}

/// Wall time of decoding and of dropping the result, apart: the least of `n` rounds each,
/// for a loop pinned to one core (`taskset -c 1`); the sum is what the decode benchmark times.
fn split<A, B, EA: core::fmt::Debug, EB: core::fmt::Debug>(
    bytes: &Bytes,
    v: i16,
    lib: &str,
    n: usize,
    ours: impl Fn(&Bytes, i16) -> Result<A, EA>,
    theirs: impl Fn(&Bytes, i16) -> Result<B, EB>,
) {
    fn time<M>(n: usize, decode: impl Fn() -> M) -> (f64, f64) {
        let (mut dec, mut drop_) = (f64::MAX, f64::MAX);
        for _ in 0..n {
            let t0 = std::time::Instant::now();
            let m = black_box(decode());
            let t1 = std::time::Instant::now();
            drop(m);
            let t2 = std::time::Instant::now();
            dec = dec.min((t1 - t0).as_secs_f64());
            drop_ = drop_.min((t2 - t1).as_secs_f64());
        }
        (dec * 1e6, drop_ * 1e6)
    }
    let (d, r) = match lib {
        "ours" => time(n, || ours(black_box(bytes), v).unwrap()),
        _ => time(n, || theirs(black_box(bytes), v).unwrap()),
    };
    println!(
        "{lib}: decode {d:.1} us, drop {r:.1} us, sum {:.1} us (least of {n})",
        d + r
    );
}

/// The hand-written copy floor of a TxnOffsetCommit input, `n` times: the classic one for
/// v2 1000×1, the flexible one for the others.
fn floor(case: &str, n: usize) {
    if case == "txn_offset_commit_v2_1000x1_long_names" {
        let pair = txn_offset_commit_v2_long_names();
        let bytes = check_identical("floor", &pair);
        let mut buf = Vec::with_capacity(bytes.len());
        txn_offset_commit_classic_floor(&pair.ours, pair.version, &mut buf);
        assert!(buf == bytes, "floor writes other bytes");
        for _ in 0..n {
            buf.clear();
            txn_offset_commit_classic_floor(black_box(&pair.ours), pair.version, &mut buf);
            black_box(&mut buf);
        }
        return;
    }
    let pair = match case {
        "txn_offset_commit_v5_1x5000_meta_200" => txn_offset_commit_wide(),
        "txn_offset_commit_v5_100x100" => txn_offset_commit_large(),
        "txn_offset_commit_v5_100x100_meta_m" => txn_offset_commit_meta(),
        _ => panic!("floor: a TxnOffsetCommit input of 1 KB or more"),
    };
    let bytes = check_identical("floor", &pair);
    let mut buf = Vec::with_capacity(bytes.len());
    txn_offset_commit_flexible_floor(&pair.ours, &mut buf);
    assert!(buf == bytes, "floor writes other bytes");
    for _ in 0..n {
        buf.clear();
        txn_offset_commit_flexible_floor(black_box(&pair.ours), &mut buf);
        black_box(&mut buf);
    }
}

/// The hand-written decode floor of `case` (`lib` "ours"), or kafka-protocol's decode
/// ("theirs"), `n` times; the floor's value is checked against ours first.
fn decode_floor(case: &str, op: &str, lib: &str, n: usize) {
    fn go<O, T>(pair: Pair<O, T>, floor: fn(&Bytes) -> Option<O>, lib: &str, n: usize)
    where
        O: KafkaMessage + PartialEq + core::fmt::Debug,
        T: Encodable + Decodable + PartialEq + core::fmt::Debug,
    {
        let bytes = check_identical("decode_floor", &pair);
        assert!(
            floor(&bytes).expect("the floor decodes") == pair.ours,
            "the floor decodes another value"
        );
        for _ in 0..n {
            match lib {
                "theirs" => theirs_decode::<T>(&bytes, pair.version),
                _ => drop(black_box(floor(black_box(&bytes)).unwrap())),
            }
        }
    }
    /// kafka-protocol's decode of `bytes`, as every arm times it.
    fn theirs_decode<T: Decodable>(bytes: &Bytes, version: i16) {
        drop(black_box(
            T::decode(&mut black_box(bytes).clone(), version).unwrap(),
        ));
    }
    type Theirs = kafka_protocol::messages::TxnOffsetCommitRequest;
    match (case, op) {
        ("txn_offset_commit_v2_1000x1_long_names", "decode_floor") => go(
            txn_offset_commit_v2_long_names(),
            txn_offset_commit_v2_decode_floor,
            lib,
            n,
        ),
        ("txn_offset_commit_v2_1000x1_long_names", "decode_floor_into") => {
            let pair = txn_offset_commit_v2_long_names();
            let bytes = check_identical("decode_floor_into", &pair);
            let mut m = kafka_wire_messages::TxnOffsetCommitRequest::default();
            txn_offset_commit_v2_decode_floor_into(&bytes, &mut m).unwrap();
            assert!(m == pair.ours, "the floor decodes another value");
            for _ in 0..n {
                match lib {
                    "theirs" => theirs_decode::<Theirs>(&bytes, pair.version),
                    _ => txn_offset_commit_v2_decode_floor_into(black_box(&bytes), &mut m).unwrap(),
                }
                black_box(&mut m);
            }
        }
        ("txn_offset_commit_v5_1x5000_meta_200", "decode_floor") => go(
            txn_offset_commit_wide(),
            txn_offset_commit_flexible_decode_floor,
            lib,
            n,
        ),
        ("produce_v12_request_4x8", "decode_floor") => {
            go(produce_request(), produce_flexible_decode_floor, lib, n)
        }
        _ => panic!("{op}: TxnOffsetCommit v2 1000x1, v5 1x5000 or Produce 4x8 (into: v2 only)"),
    }
}
