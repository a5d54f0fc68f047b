//! One counting global allocator for the test suites, benchmarks' tests and fuzz targets
//! that bound memory: a binary installs it and reads the counts it needs.
//!
//! ```text
//! #[global_allocator]
//! static GLOBAL: kafka_wire_counting_alloc::Counting = kafka_wire_counting_alloc::Counting;
//!
//! let (value, counts) = kafka_wire_counting_alloc::measure(|| decode(&bytes));
//! assert!(counts.bytes <= k * bytes.len() + c);
//! ```
//!
//! Per thread (so tests running in parallel do not see each other's): the allocations made
//! (`alloc`, `alloc_zeroed` and `realloc` each count one), the bytes asked for (a
//! reallocation counts its new size; frees are not subtracted) and the bytes live (frees
//! subtracted). For the whole process: the bytes live and the bytes asked for, for
//! measurements that span threads (a tokio runtime's, a fuzz target's).
//!
//! Every method forwards to `System` unchanged; the counters touch no memory they hand out.
//! This file holds the workspace's only `unsafe` outside `records/fused.rs`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

/// The allocator: install it with `#[global_allocator]` in the binary that measures.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counting;

/// What one thread's allocations add up to (see the crate's documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: usize,
    /// Bytes asked for: each allocation's size, each reallocation's new size.
    pub bytes: usize,
    /// Bytes live: allocated less freed (negative when the thread frees what others made).
    pub live: isize,
}

impl Counts {
    /// What happened between `before` and `self`.
    fn since(self, before: Counts) -> Counts {
        Counts {
            allocations: self.allocations - before.allocations,
            bytes: self.bytes - before.bytes,
            live: self.live - before.live,
        }
    }
}

thread_local! {
    static THREAD: Cell<Counts> = const {
        Cell::new(Counts { allocations: 0, bytes: 0, live: 0 })
    };
}

static LIVE: AtomicIsize = AtomicIsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);

/// Records one call: `asked` bytes allocated, `live` the change in bytes live.
fn note(allocation: bool, asked: usize, live: isize) {
    LIVE.fetch_add(live, Ordering::Relaxed);
    TOTAL.fetch_add(asked, Ordering::Relaxed);
    // `try_with`: an allocation made while the thread's locals are torn down is not counted
    // for the thread rather than aborting.
    let _ = THREAD.try_with(|c| {
        let mut n = c.get();
        n.allocations += usize::from(allocation);
        n.bytes += asked;
        n.live += live;
        c.set(n);
    });
}

// SAFETY: every method forwards to `System` with the caller's arguments and returns what it
// returns; counting reads and writes only this crate's counters.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(true, layout.size(), layout.size() as isize);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(true, layout.size(), layout.size() as isize);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(false, 0, -(layout.size() as isize));
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(true, new_size, new_size as isize - layout.size() as isize);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// This thread's counts so far.
pub fn thread() -> Counts {
    THREAD.with(Cell::get)
}

/// Runs `f` and returns its result with what this thread allocated meanwhile (the result
/// is still live: drop it outside to leave its frees out).
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Counts) {
    let before = thread();
    let out = f();
    (out, thread().since(before))
}

/// Bytes live in the whole process (allocated less freed, every thread).
pub fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// Bytes asked of the allocator by the whole process so far (every thread; frees not
/// subtracted).
pub fn total() -> usize {
    TOTAL.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    #[test]
    fn counts_this_threads_allocations_and_frees() {
        let live_before = live();
        let (v, c) = measure(|| {
            let mut v = Vec::<u8>::with_capacity(100);
            v.reserve(1000); // a reallocation to at least 1,000 bytes
            v
        });
        assert_eq!(c.allocations, 2, "{c:?}");
        assert!(c.bytes >= 1100, "{c:?}");
        assert_eq!(c.live, v.capacity() as isize);
        assert!(live() >= live_before + 1000);
        let total_before = total();
        let ((), freed) = measure(|| drop(v));
        assert_eq!(freed.allocations, 0);
        assert_eq!(freed.bytes, 0);
        assert!(freed.live <= -1000, "{freed:?}");
        assert!(total() >= total_before);
    }
}
