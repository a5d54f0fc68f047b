//! Heap allocations per decode, both libraries, every input:
//! `cargo run --profile bench -p kafka-wire-bench --example allocs [case ...]`.
//!
//! A counting global allocator around the system one; each figure is one decode of the
//! input (after one decode to warm up), result dropped. Counts, not time: pair it with
//! callgrind's inclusive cost of malloc/free to see what share of a decode they take.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use bytes::Bytes;
use kafka_protocol::protocol::{Decodable, Encodable};
use kafka_wire::KafkaMessage;
use kafka_wire_bench::*;

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static REALLOCS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` unchanged; counting touches no memory it returns.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(l.size(), Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(l.size(), Relaxed);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        REALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(new.saturating_sub(l.size()), Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// (allocations, reallocations, bytes requested) of one call of `f`.
fn count(f: impl FnOnce()) -> (usize, usize, usize) {
    let before = (
        ALLOCS.load(Relaxed),
        REALLOCS.load(Relaxed),
        BYTES.load(Relaxed),
    );
    f();
    (
        ALLOCS.load(Relaxed) - before.0,
        REALLOCS.load(Relaxed) - before.1,
        BYTES.load(Relaxed) - before.2,
    )
}

fn run<O, T>(name: &str, pair: Pair<O, T>)
where
    O: KafkaMessage + PartialEq + core::fmt::Debug,
    T: Encodable + Decodable + PartialEq + core::fmt::Debug,
{
    let bytes: Bytes = check_identical("allocs", &pair);
    let v = pair.version;
    let ours = || drop(std::hint::black_box(O::decode_exact(&bytes, v).unwrap()));
    let theirs = || {
        drop(std::hint::black_box(
            T::decode(&mut bytes.clone(), v).unwrap(),
        ))
    };
    ours();
    theirs();
    let (o, t) = (count(ours), count(theirs));
    println!(
        "| {name} | {} | {} / {} / {} | {} / {} / {} |",
        bytes.len(),
        o.0,
        o.1,
        o.2,
        t.0,
        t.1,
        t.2
    );
}

fn main() {
    let want: Vec<String> = std::env::args().skip(1).collect();
    println!("| input | bytes | kafka-wire allocs / reallocs / bytes | kafka-protocol allocs / reallocs / bytes |");
    println!("| --- | ---: | ---: | ---: |");
    macro_rules! case {
        ($name:expr, $input:ident) => {
            if want.is_empty() || want.iter().any(|w| w == $name) {
                run($name, $input());
            }
        };
    }
    for_each_input!(case);
}
