//! Every input's encode, decode and size, kafka-wire against kafka-protocol, timed in the same
//! rounds: the status table's second method, for cells that criterion's separate timing of
//! the two libraries cannot decide on a shared machine.
//!
//! ```text
//! GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432 \
//!   taskset -c 1 target/release/examples/same_rounds [ROUNDS] [input ...]
//! ```
//!
//! Why: criterion times one library, then the other, seconds apart. On a machine whose other
//! guests share the caches, the same binary's cells move by 20-40% between processes and
//! minutes, so a 10 ns message or a cell near its target reads as a win in one run and a loss
//! in the next. Here each round times a batch of one library's operation and then a batch of
//! the other's (the order alternating), so both see the same machine state, and the figure
//! quoted is the median over the rounds of each round's own ratio (kafka-protocol's time over
//! ours: above 1 we are faster), with its interquartile range. The least time per operation
//! of each library over all rounds is printed beside it.
//!
//! The operations are the criterion benchmarks' (`benches/codec.rs`): encode into a reused,
//! cleared vector (one vector for both libraries), decode from shared bytes with the result
//! dropped inside the timing, the size computation, and whole request frames decoded
//! (`frame decode`, four inputs).

use std::hint::black_box;
use std::time::Instant;

use kafka_protocol::protocol::{Decodable, Encodable};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::KafkaMessage;
use kafka_wire_bench::*;

/// Nanoseconds per call over a batch of `k` calls of `f`.
fn batch(k: usize, f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..k {
        f();
    }
    t.elapsed().as_nanos() as f64 / k as f64
}

/// One cell: the least time per operation of each library, and the quartiles of the rounds'
/// ratios (theirs / ours).
struct Cell {
    least: [f64; 2],
    ratio: [f64; 3],
}

/// Times `ours` against `theirs` over `rounds` rounds of batches of about a millisecond.
fn compare(rounds: usize, ours: &mut dyn FnMut(), theirs: &mut dyn FnMut()) -> Cell {
    // Warm both up, then size the batch on the slower one.
    let slow = batch(50, ours).max(batch(50, theirs)).max(1.0);
    let k = ((1_000_000.0 / slow) as usize).clamp(1, 1_000_000);
    let mut least = [f64::MAX; 2];
    let mut ratios = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let mut t = [0.0; 2];
        let order = if r % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            t[i] = if i == 0 {
                batch(k, ours)
            } else {
                batch(k, theirs)
            };
            least[i] = least[i].min(t[i]);
        }
        ratios.push(t[1] / t[0]);
    }
    ratios.sort_by(f64::total_cmp);
    let q = |f: f64| ratios[((ratios.len() - 1) as f64 * f).round() as usize];
    Cell {
        least,
        ratio: [q(0.25), q(0.5), q(0.75)],
    }
}

fn print(name: &str, len: usize, op: &str, c: &Cell) {
    println!(
        "| {name} | {len} | {op} | {:.1} | {:.1} | {:.2}× | **{:.2}×** ({:.2}-{:.2}) |",
        c.least[0],
        c.least[1],
        c.least[1] / c.least[0],
        c.ratio[1],
        c.ratio[0],
        c.ratio[2],
    );
}

fn run<O, T>(name: &str, pair: Pair<O, T>, rounds: usize)
where
    O: KafkaMessage + PartialEq + core::fmt::Debug,
    T: Encodable + Decodable + PartialEq + core::fmt::Debug,
{
    let bytes = check_identical(name, &pair);
    let v = pair.version;
    let buf = std::cell::RefCell::new(Vec::with_capacity(bytes.len()));
    let cell = compare(
        rounds,
        &mut || {
            let mut b = buf.borrow_mut();
            b.clear();
            black_box(&pair.ours).encode(&mut *b, v).unwrap();
            black_box(&mut *b);
        },
        &mut || {
            let mut b = buf.borrow_mut();
            b.clear();
            black_box(&pair.theirs).encode(&mut *b, v).unwrap();
            black_box(&mut *b);
        },
    );
    print(name, bytes.len(), "encode", &cell);
    let cell = compare(
        rounds,
        &mut || drop(black_box(O::decode_exact(black_box(&bytes), v).unwrap())),
        &mut || {
            let mut input = black_box(&bytes).clone();
            drop(black_box(T::decode(&mut input, v).unwrap()));
        },
    );
    print(name, bytes.len(), "decode", &cell);
    let cell = compare(
        rounds,
        &mut || {
            black_box(black_box(&pair.ours).encoded_size(v));
        },
        &mut || {
            black_box(black_box(&pair.theirs).compute_size(v).unwrap());
        },
    );
    print(name, bytes.len(), "size", &cell);
}

/// Whole request frame decode (size prefix, header, body), as the criterion `frame_decode`
/// rows time it: kafka-wire's `RequestFrame::decode` against kafka-protocol's header decode
/// and `RequestKind` dispatch.
fn frame_run<T: kafka_protocol::protocol::Request>(
    name: &str,
    ours: impl Into<kafka_wire_messages::RequestBody>,
    theirs: &T,
    v: i16,
    rounds: usize,
) {
    let frame = request_frame_ours(ours, v);
    assert!(
        frame == request_frame_theirs(theirs, v),
        "{name}: frames differ"
    );
    let cell = compare(
        rounds,
        &mut || {
            drop(black_box(
                kafka_wire_messages::RequestFrame::decode(
                    black_box(&frame),
                    &DecodeOptions::DEFAULT,
                )
                .unwrap(),
            ))
        },
        &mut || drop(black_box(request_frame_decode_theirs(black_box(&frame)))),
    );
    print(name, frame.len(), "frame decode", &cell);
}

/// The CPU's model line and family/model numbers (figures are specific to the machine).
fn cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
            .and_then(|l| l.split_once(':'))
            .map_or("?", |(_, v)| v.trim())
            .to_string()
    };
    format!(
        "{} (family {}, model {})",
        field("model name"),
        field("cpu family"),
        field("model")
    )
}

fn main() {
    if !std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains("trim_threshold")) {
        eprintln!("note: GLIBC_TUNABLES sets no trim_threshold (benches/scripts/run.sh sets it)");
    }
    let a: Vec<String> = std::env::args().collect();
    let rounds = a
        .get(1)
        .map_or(101, |s| s.parse().expect("ROUNDS: a number"));
    let inputs: Vec<&str> = a.iter().skip(2).map(String::as_str).collect();
    println!("CPU: {}; {rounds} rounds per cell", cpu());
    println!();
    println!("| input | bytes | op | ours, least (ns) | kafka-protocol, least (ns) | ratio of the least | ratio, median of rounds (interquartile) |");
    println!("| --- | ---: | --- | ---: | ---: | ---: | ---: |");
    let mut found = inputs.is_empty();
    macro_rules! case {
        ($name:expr, $input:ident) => {
            if inputs.is_empty() || inputs.contains(&$name) {
                found = true;
                run($name, $input(), rounds);
            }
        };
    }
    for_each_input!(case);
    // Whole frames, on the inputs the criterion benchmarks decode as frames.
    macro_rules! frame {
        ($name:expr, $input:ident) => {
            if inputs.is_empty() || inputs.contains(&$name) {
                found = true;
                let p = $input();
                frame_run($name, p.ours, &p.theirs, p.version, rounds);
            }
        };
    }
    frame!("txn_offset_commit_v5_100x100", txn_offset_commit_large);
    frame!("seed_add_partitions_to_txn_v5", add_partitions_small);
    frame!("seed_txn_offset_commit_v5", txn_offset_commit_small);
    frame!("seed_initialize_share_group_state_v0", share_group_small);
    assert!(
        found,
        "input: one of the names in kafka_wire_bench::for_each_input"
    );
}
