//! kafka-wire side by side with kafka-protocol, on identical messages (see the crate's
//! library), with a memcpy of the same byte count as the floor.
//!
//! Run: `cargo bench -p kafka-wire-bench` (add a filter such as `-- txn_offset_commit` to run
//! one group). Before anything is timed, each input is encoded by both libraries and the bytes
//! are asserted identical.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use kafka_protocol::protocol::{Decodable, Encodable, Request};
use kafka_wire::frame::DecodeOptions;
use kafka_wire::KafkaMessage;
use kafka_wire_bench::*;
use kafka_wire_messages as kw;

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// memcpy of `len` bytes into a buffer that already has room: the floor for both directions.
fn memcpy(g: &mut Group<'_>, id: &str, len: usize) {
    let src = vec![0x5au8; len];
    let mut dst = vec![0u8; len];
    g.bench_function(id, |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        })
    });
}

/// encode (into a reused buffer), decode (from shared bytes, result dropped in the loop) and
/// size, for both libraries, plus the memcpy floor.
fn body_benches<O, T>(c: &mut Criterion, name: &str, pair: Pair<O, T>)
where
    O: KafkaMessage + PartialEq + core::fmt::Debug,
    T: Encodable + Decodable + PartialEq + core::fmt::Debug,
{
    let bytes = check_identical(name, &pair);
    let v = pair.version;
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(bytes.len() as u64));

    let mut buf = Vec::with_capacity(bytes.len());
    g.bench_function("encode/kafka-wire", |b| {
        b.iter(|| {
            buf.clear();
            black_box(&pair.ours).encode(&mut buf, v).unwrap();
            black_box(&mut buf);
        })
    });
    // The same vector for both libraries: a large copy's speed depends on where its
    // destination lies, and with a vector each, Produce's encode ratio followed which
    // library drew the slower address (0.77x one way, 1.5x swapped; git log -p BENCHMARKS.md).
    g.bench_function("encode/kafka-protocol", |b| {
        b.iter(|| {
            buf.clear();
            black_box(&pair.theirs).encode(&mut buf, v).unwrap();
            black_box(&mut buf);
        })
    });
    // The vectored encode where there are long `bytes`/`records` values to reference (a
    // different operation: the output is segments, not one buffer).
    if name.starts_with("produce") {
        let mut out = kafka_wire::Vectored::new();
        pair.ours.encode_vectored(&mut out, v).unwrap();
        assert!(out.to_vec() == bytes, "{name}: vectored encode differs");
        g.bench_function("encode_vectored/kafka-wire", |b| {
            b.iter(|| {
                out.clear();
                black_box(&pair.ours).encode_vectored(&mut out, v).unwrap();
                black_box(&mut out);
            })
        });
    }
    g.bench_function("decode/kafka-wire", |b| {
        b.iter(|| O::decode_exact(black_box(&bytes), v).unwrap())
    });
    g.bench_function("decode/kafka-protocol", |b| {
        b.iter(|| {
            let mut input = black_box(&bytes).clone();
            T::decode(&mut input, v).unwrap()
        })
    });
    g.bench_function("size/kafka-wire", |b| {
        b.iter(|| black_box(&pair.ours).encoded_size(v))
    });
    g.bench_function("size/kafka-protocol", |b| {
        b.iter(|| black_box(&pair.theirs).compute_size(v).unwrap())
    });
    memcpy(&mut g, "memcpy", bytes.len());
    g.finish();
}

/// The hand-written copy floor of a TxnOffsetCommit input
/// ([`txn_offset_commit_flexible_floor`], or [`txn_offset_commit_classic_floor`] for a
/// classic version): what writing the same bytes with the plainest code costs, for comparing
/// both libraries' encodes against.
fn floor_bench(
    c: &mut Criterion,
    name: &str,
    pair: Pair<kw::TxnOffsetCommitRequest, kafka_protocol::messages::TxnOffsetCommitRequest>,
) {
    let bytes = check_identical(name, &pair);
    let v = pair.version;
    let write = |m: &kw::TxnOffsetCommitRequest, out: &mut Vec<u8>| {
        if v >= 3 {
            txn_offset_commit_flexible_floor(m, out)
        } else {
            txn_offset_commit_classic_floor(m, v, out)
        }
    };
    let mut buf = Vec::with_capacity(bytes.len());
    write(&pair.ours, &mut buf);
    assert!(buf == bytes, "{name}: the floor writes other bytes");
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("encode_floor/kafka-wire", |b| {
        b.iter(|| {
            buf.clear();
            write(black_box(&pair.ours), &mut buf);
            black_box(&mut buf);
        })
    });
    g.finish();
}

/// The hand-written decode floor of an input (`floor`, see `txn_offset_commit_v2_decode_floor`
/// in the crate's library): the plainest code building the same value as kafka-wire's decode,
/// checked against it before it is timed; reported against kafka-protocol's decode.
fn decode_floor_bench<O, T>(
    c: &mut Criterion,
    name: &str,
    pair: Pair<O, T>,
    floor: fn(&bytes::Bytes) -> Option<O>,
) where
    O: KafkaMessage + PartialEq + core::fmt::Debug,
    T: Encodable + Decodable + PartialEq + core::fmt::Debug,
{
    let bytes = check_identical(name, &pair);
    assert!(
        floor(&bytes).expect("the floor decodes") == pair.ours,
        "{name}: the decode floor builds another value"
    );
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("decode_floor/kafka-wire", |b| {
        b.iter(|| floor(black_box(&bytes)).unwrap())
    });
    g.finish();
}

/// Whole request frame decode (size prefix, header, body): kafka-wire's dispatch API
/// (`RequestFrame::decode`, which picks the API from the header) against kafka-protocol's
/// header decode followed by its `RequestKind` dispatch.
fn frame_benches<T>(
    c: &mut Criterion,
    name: &str,
    ours: impl Into<kw::RequestBody>,
    theirs: &T,
    v: i16,
) where
    T: Request,
{
    let frame = request_frame_ours(ours, v);
    assert_eq!(
        frame,
        request_frame_theirs(theirs, v),
        "{name}: frames differ"
    );
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(frame.len() as u64));
    g.bench_function("frame_decode/kafka-wire", |b| {
        b.iter(|| kw::RequestFrame::decode(black_box(&frame), &DecodeOptions::DEFAULT).unwrap())
    });
    g.bench_function("frame_decode/kafka-protocol", |b| {
        b.iter(|| request_frame_decode_theirs(black_box(&frame)))
    });
    memcpy(&mut g, "frame_memcpy", frame.len());
    g.finish();
}

fn bodies(c: &mut Criterion) {
    macro_rules! bench {
        ($name:expr, $input:ident) => {
            body_benches(c, $name, $input());
        };
    }
    for_each_input!(bench);
    floor_bench(c, "txn_offset_commit_v5_100x100", txn_offset_commit_large());
    floor_bench(
        c,
        "txn_offset_commit_v5_100x100_meta_m",
        txn_offset_commit_meta(),
    );
    floor_bench(
        c,
        "txn_offset_commit_v5_1x5000_meta_200",
        txn_offset_commit_wide(),
    );
    floor_bench(
        c,
        "txn_offset_commit_v2_1000x1_long_names",
        txn_offset_commit_v2_long_names(),
    );
    decode_floor_bench(
        c,
        "txn_offset_commit_v2_1000x1_long_names",
        txn_offset_commit_v2_long_names(),
        txn_offset_commit_v2_decode_floor,
    );
    decode_floor_bench(
        c,
        "txn_offset_commit_v5_1x5000_meta_200",
        txn_offset_commit_wide(),
        txn_offset_commit_flexible_decode_floor,
    );
    decode_floor_bench(
        c,
        "produce_v12_request_4x8",
        produce_request(),
        produce_flexible_decode_floor,
    );
}

/// Whole-frame decode, on the large TxnOffsetCommit and the seed pages' smallest instances.
fn frames(c: &mut Criterion) {
    let p = txn_offset_commit_large();
    frame_benches(
        c,
        "txn_offset_commit_v5_100x100",
        p.ours,
        &p.theirs,
        p.version,
    );
    let p = add_partitions_small();
    frame_benches(
        c,
        "seed_add_partitions_to_txn_v5",
        p.ours,
        &p.theirs,
        p.version,
    );
    let p = txn_offset_commit_small();
    frame_benches(c, "seed_txn_offset_commit_v5", p.ours, &p.theirs, p.version);
    let p = share_group_small();
    frame_benches(
        c,
        "seed_initialize_share_group_state_v0",
        p.ours,
        &p.theirs,
        p.version,
    );
}

/// Short enough that both profiles run in a few minutes each (benches/scripts/run.sh).
fn config() -> Criterion {
    // Decode frees everything it allocated on every iteration; whether glibc then gives the
    // top of the heap back to the kernel (and maps it again on the next decode) moved decode
    // times by up to 2x, for both libraries. run.sh fixes the thresholds; say so when unset.
    if !std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains("trim_threshold")) {
        eprintln!(
            "note: GLIBC_TUNABLES sets no trim_threshold; decode times depend on glibc's \
             heap trimming (benches/scripts/run.sh sets it)"
        );
    }
    // 2,000 bootstrap resamples instead of 100,000: the median is what is reported, and the
    // default analysis took longer than the measurement on a loaded 2-core machine.
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1000))
        .sample_size(30)
        .nresamples(2000)
}

criterion_group! {
    name = benches;
    config = config();
    targets = bodies, frames
}
criterion_main!(benches);
