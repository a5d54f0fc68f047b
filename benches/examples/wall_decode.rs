//! Wall time of one input's decode by kafka-wire, its hand-written decode floor and
//! kafka-protocol, in the same rounds, alternated (the order rotates each round), for a
//! loop pinned to one core: `taskset -c 1 target/release/examples/wall_decode CASE [ROUNDS]
//! [BATCH]`. Each round times `BATCH` decodes (each result dropped) of each library; the
//! least and the median per decode over the rounds are printed, with kafka-protocol's
//! ratio to each. Cases: `txn_offset_commit_v5_1x5000_meta_200`,
//! `txn_offset_commit_v2_1000x1_long_names`, `produce_v12_request_4x8`.

use std::hint::black_box;
use std::time::Instant;

use bytes::Bytes;
use kafka_protocol::protocol::Decodable;
use kafka_wire::KafkaMessage;
use kafka_wire_bench::*;

/// The least and the median of `xs`.
fn min_median(xs: &mut [f64]) -> (f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[0], xs[xs.len() / 2])
}

fn go<O, T>(pair: Pair<O, T>, floor: fn(&Bytes) -> Option<O>, rounds: usize, batch: usize)
where
    O: KafkaMessage + PartialEq + core::fmt::Debug,
    T: kafka_protocol::protocol::Encodable + Decodable + PartialEq + core::fmt::Debug,
{
    let bytes = check_identical("wall_decode", &pair);
    assert!(floor(&bytes).expect("the floor decodes") == pair.ours);
    let v = pair.version;
    let run = |lib: usize| {
        let t0 = Instant::now();
        for _ in 0..batch {
            match lib {
                0 => drop(black_box(O::decode_exact(black_box(&bytes), v).unwrap())),
                1 => drop(black_box(floor(black_box(&bytes)).unwrap())),
                _ => drop(black_box(
                    T::decode(&mut black_box(&bytes).clone(), v).unwrap(),
                )),
            }
        }
        t0.elapsed().as_secs_f64() * 1e6 / batch as f64
    };
    // Warm up each.
    for lib in 0..3 {
        run(lib);
    }
    let mut t = [vec![], vec![], vec![]];
    for r in 0..rounds {
        for k in 0..3 {
            let lib = (r + k) % 3;
            t[lib].push(run(lib));
        }
    }
    let [ours, floor, theirs] = t.map(|mut xs| min_median(&mut xs));
    for (name, (mn, md)) in [("ours", ours), ("floor", floor), ("kafka-protocol", theirs)] {
        println!(
            "{name:>14}: least {mn:8.2} us, median {md:8.2} us; kp / it: least {:.2}x, median {:.2}x",
            theirs.0 / mn,
            theirs.1 / md
        );
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let rounds = a.get(2).map_or(30, |s| s.parse().unwrap());
    let batch = a.get(3).map_or(20, |s| s.parse().unwrap());
    match a.get(1).map(String::as_str) {
        Some("txn_offset_commit_v5_1x5000_meta_200") => go(
            txn_offset_commit_wide(),
            txn_offset_commit_flexible_decode_floor,
            rounds,
            batch,
        ),
        Some("txn_offset_commit_v2_1000x1_long_names") => go(
            txn_offset_commit_v2_long_names(),
            txn_offset_commit_v2_decode_floor,
            rounds,
            batch,
        ),
        Some("produce_v12_request_4x8") => {
            go(produce_request(), produce_flexible_decode_floor, rounds, batch)
        }
        _ => panic!("case: txn_offset_commit_v5_1x5000_meta_200, txn_offset_commit_v2_1000x1_long_names or produce_v12_request_4x8"),
    }
}
