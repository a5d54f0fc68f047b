//! Record batches: kafka-wire's `records` module side by side with kafka-protocol's record
//! codec, on a 1 MB batch of 1 KB records and a batch of 10,000 tiny records, uncompressed
//! and with each codec; plus CRC-32C throughput.
//!
//! Run: `cargo bench -p kafka-wire-bench --bench records`. Before timing, each workload is
//! built by both libraries, the uncompressed batches are asserted identical, and each library
//! reads the other's batches to the same records. `build/kafka-wire` appends one record at a
//! time (`BatchBuilder::append`), `build_all/kafka-wire` all at once
//! (`BatchBuilder::append_all`), as kafka-protocol's encoder takes them.

use std::hint::black_box;
use std::time::Duration;

use bytes::BytesMut;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kafka_wire::records::{crc32c, Compression};
use kafka_wire_bench::records::*;

fn bench(c: &mut Criterion) {
    for w in [large_records(), tiny_records()] {
        for codec in Compression::ALL {
            let (ours, theirs) = check_records(&w, codec);
            let mut g = c.benchmark_group(format!("records/{}/{}", w.name, codec));
            g.throughput(Throughput::Bytes(ours.len() as u64));
            g.bench_function("read/kafka-wire", |b| {
                b.iter(|| read_ours(black_box(&ours)))
            });
            g.bench_function("read/kafka-protocol", |b| {
                b.iter(|| read_theirs(black_box(&theirs)))
            });
            let mut out = Vec::new();
            g.bench_function("build/kafka-wire", |b| {
                b.iter(|| build_ours(black_box(&w), codec, &mut out))
            });
            let mut out = Vec::new();
            g.bench_function("build_all/kafka-wire", |b| {
                b.iter(|| build_ours_all(black_box(&w), codec, &mut out))
            });
            let mut out = BytesMut::new();
            g.bench_function("build/kafka-protocol", |b| {
                b.iter(|| build_theirs(black_box(&w), codec, &mut out))
            });
            g.finish();
        }
    }
    // A Produce v8 frame carrying the 1 MB batch: ours built in place at the end of the
    // encoded request, theirs encoded and then copied into the request.
    let w = large_records();
    check_produce(&w);
    let mut g = c.benchmark_group(format!("records/{}/none/produce_v8", w.name));
    let mut out = Vec::new();
    g.bench_function("kafka-wire", |b| {
        b.iter(|| produce_ours(black_box(&w), &mut out))
    });
    let (mut batch, mut out) = (BytesMut::new(), BytesMut::new());
    g.bench_function("kafka-protocol", |b| {
        b.iter(|| produce_theirs(black_box(&w), &mut batch, &mut out))
    });
    g.finish();
    let data = vec![0x5au8; 1 << 20];
    let mut g = c.benchmark_group("records/crc32c");
    for (name, len) in [("1KiB", 1 << 10), ("64KiB", 64 << 10), ("1MiB", 1 << 20)] {
        let d = &data[..len];
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_function(name, |b| b.iter(|| crc32c(black_box(d))));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20);
    targets = bench
}
criterion_main!(benches);
