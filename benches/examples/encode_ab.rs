//! Encode, ours against kafka-protocol's, alternated in one process: the wall-clock check of
//! what instruction counts say, without criterion between the two.
//!
//! ```text
//! GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432 \
//!   taskset -c 1 target/bench-lto/examples/encode_ab [ROUNDS] [case ...]
//! ```
//!
//! The case `copy` adds, for every input named (all of them if none is), the plain copy of its encoded bytes (one
//! `extend_from_slice`) in kafka-wire's place: the floor any encoder of that input pays.
//!
//! Each round times a batch of encodes per library and buffer policy, in turn, so both
//! libraries see the same machine state; the minimum per encode over the rounds is printed,
//! with the median of the rounds' own ratios (each round's pair saw the same load, so the
//! median holds up on a busy machine where the two minima may come from different rounds)
//! and the page faults taken per encode. Buffer policies, the same for both libraries:
//! `reuse` (one vector for both libraries, cleared: the criterion benchmarks' policy), `fresh` (a new empty
//! vector per encode, grown by the encoder and freed) and `sized` (a new vector with room for
//! the encoded bytes per encode).

use std::hint::black_box;
use std::time::Instant;

use kafka_protocol::protocol::{Decodable, Encodable};
use kafka_wire::KafkaMessage;
use kafka_wire_bench::*;

/// Minor page faults of this process so far (`/proc/self/stat`, field 10), 0 where absent.
fn minflt() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // The command name may hold spaces: fields are counted after its closing ')'.
            let rest = s.rsplit_once(')')?.1;
            rest.split_whitespace().nth(7)?.parse().ok()
        })
        .unwrap_or(0)
}

/// One library's encode into the given vector.
type Encode<'a> = &'a dyn Fn(&mut Vec<u8>);

#[derive(Clone, Copy, PartialEq)]
enum Policy {
    Reuse,
    Fresh,
    Sized,
}

/// Nanoseconds per encode of a batch of `k`, and the page faults it took.
fn batch(
    k: usize,
    len: usize,
    policy: Policy,
    buf: &mut Vec<u8>,
    enc: &dyn Fn(&mut Vec<u8>),
) -> (f64, u64) {
    let f0 = minflt();
    let t = Instant::now();
    for _ in 0..k {
        match policy {
            Policy::Reuse => {
                buf.clear();
                enc(buf);
                black_box(&mut *buf);
            }
            Policy::Fresh => {
                let mut v = Vec::new();
                enc(&mut v);
                black_box(&mut v);
            }
            Policy::Sized => {
                let mut v = Vec::with_capacity(len);
                enc(&mut v);
                black_box(&mut v);
            }
        }
    }
    let ns = t.elapsed().as_nanos() as f64 / k as f64;
    (ns, minflt() - f0)
}

fn run<O, T>(name: &str, pair: Pair<O, T>, rounds: usize)
where
    O: KafkaMessage + PartialEq + core::fmt::Debug,
    T: Encodable + Decodable + PartialEq + core::fmt::Debug,
{
    let v = pair.version;
    let ours = |b: &mut Vec<u8>| black_box(&pair.ours).encode(b, v).unwrap();
    let theirs = |b: &mut Vec<u8>| black_box(&pair.theirs).encode(b, v).unwrap();
    compare(
        name,
        &check_identical(name, &pair),
        rounds,
        [&ours, &theirs],
    );
}

/// Times `libs[0]` (kafka-wire's side) against `libs[1]` (kafka-protocol's), both writing
/// `bytes`, under each buffer policy.
fn compare(name: &str, bytes: &[u8], rounds: usize, libs: [Encode<'_>; 2]) {
    // About 2 ms per batch.
    let k = (2_000_000 / (bytes.len() + 200)).clamp(10, 100_000);
    for policy in [Policy::Reuse, Policy::Fresh, Policy::Sized] {
        let (mut best, mut faults) = ([f64::MAX; 2], [0u64; 2]);
        let mut ratios = Vec::with_capacity(rounds);
        let mut bufs = [
            Vec::with_capacity(bytes.len()),
            Vec::with_capacity(bytes.len()),
        ];
        // `reuse`: both libraries write into the same vector, as the criterion benchmarks'
        // encodes do: a large copy's speed depends on where its destination lies (Produce:
        // whichever library had the other vector took up to 1.6 µs more per encode). For
        // that check, ENCODE_AB_APART=1 gives each library a vector of its own, and
        // ENCODE_AB_APART=swap gives each the other's.
        let apart = std::env::var("ENCODE_AB_APART").ok();
        if apart.as_deref() == Some("swap") {
            bufs.swap(0, 1);
        }
        let own = |i: usize| if apart.is_some() { i } else { 0 };
        for r in 0..rounds {
            // Alternate which library goes first.
            let order: [usize; 2] = if r % 2 == 0 { [0, 1] } else { [1, 0] };
            let mut round = [0.0; 2];
            for i in order {
                let (ns, f) = batch(k, bytes.len(), policy, &mut bufs[own(i)], libs[i]);
                best[i] = best[i].min(ns);
                round[i] = ns;
                faults[i] += f;
            }
            ratios.push(round[1] / round[0]);
        }
        ratios.sort_by(f64::total_cmp);
        let median = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
        let per = (rounds * k) as f64;
        println!(
            "{name:45} {:5} {:6} B  ours {:9.1} ns  theirs {:9.1} ns  ratio {:5.2} (median of rounds {:5.2})  faults/encode {:.3} / {:.3}",
            match policy {
                Policy::Reuse => "reuse",
                Policy::Fresh => "fresh",
                Policy::Sized => "sized",
            },
            bytes.len(),
            best[0],
            best[1],
            best[1] / best[0],
            median,
            faults[0] as f64 / per,
            faults[1] as f64 / per,
        );
    }
}

fn main() {
    if !std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains("trim_threshold")) {
        eprintln!("note: GLIBC_TUNABLES sets no trim_threshold (benches/scripts/run.sh sets it)");
    }
    let a: Vec<String> = std::env::args().collect();
    let rounds = a.get(1).map_or(101, |s| s.parse().unwrap());
    let cases: Vec<&str> = a.iter().skip(2).map(String::as_str).collect();
    macro_rules! case {
        ($name:expr, $input:ident) => {
            if cases.is_empty() || cases.contains(&$name) {
                run($name, $input(), rounds);
            }
        };
    }
    for_each_input!(case);
    // The copy floor of every input: its encoded bytes appended with one `extend_from_slice`,
    // as kafka-wire's side. No encoder writes the bytes in less (Produce: both libraries
    // near it means the copy of the records is the time, not the encoders).
    if cases.contains(&"copy") {
        macro_rules! copy {
            ($name:expr, $input:ident) => {
                // Every input with `copy` alone, else those named beside it.
                if cases.len() == 1 || cases.contains(&$name) {
                    let pair = $input();
                    let bytes = check_identical($name, &pair);
                    let copy = |b: &mut Vec<u8>| b.extend_from_slice(black_box(&bytes[..]));
                    let theirs =
                        |b: &mut Vec<u8>| black_box(&pair.theirs).encode(b, pair.version).unwrap();
                    compare(
                        &format!("{} (copy)", $name),
                        &bytes,
                        rounds,
                        [&copy, &theirs],
                    );
                }
            };
        }
        for_each_input!(copy);
    }
    // The hand-written copy floor of the flexible TxnOffsetCommit inputs, as kafka-wire's side.
    for (name, pair) in [
        ("txn_offset_commit_v5_100x100", txn_offset_commit_large()),
        (
            "txn_offset_commit_v5_100x100_meta_m",
            txn_offset_commit_meta(),
        ),
        (
            "txn_offset_commit_v5_1x5000_meta_200",
            txn_offset_commit_wide(),
        ),
    ] {
        if cases.is_empty() || cases.contains(&name) {
            let bytes = check_identical(name, &pair);
            let floor =
                |b: &mut Vec<u8>| txn_offset_commit_flexible_floor(black_box(&pair.ours), b);
            let mut check = Vec::new();
            floor(&mut check);
            assert!(check == bytes, "{name}: the floor writes other bytes");
            let theirs = |b: &mut Vec<u8>| black_box(&pair.theirs).encode(b, pair.version).unwrap();
            compare(
                &format!("{name} (floor)"),
                &bytes,
                rounds,
                [&floor, &theirs],
            );
        }
    }
}
