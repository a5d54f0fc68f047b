#!/bin/sh
# The whole benchmark suite in both profiles, one after the other, then the table of
# BENCHMARKS.md. Run from the workspace root: sh benches/scripts/run.sh [criterion filter]
#
# Heap setting: decode frees its whole result on every iteration. With glibc's defaults the
# top of the heap is trimmed (given back to the kernel) once it exceeds the trim threshold,
# and blocks above the mmap threshold are mapped and unmapped each time; both thresholds also
# move at run time. That changed decode times by up to 2x for both libraries. Here both are
# fixed: nothing under 256 MiB is trimmed, and nothing under 32 MiB (glibc's maximum) is
# mmapped, the steady state of a long-running process with a warm heap.
set -eu
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432
cargo bench -p kafka-wire-bench --bench codec -- --save-baseline release "$@"
cargo bench -p kafka-wire-bench --bench codec --profile bench-lto -- --save-baseline bench-lto "$@"
python3 benches/scripts/table.py
