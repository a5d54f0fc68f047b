#!/bin/sh
# The same-rounds status of BENCHMARKS.md: examples/same_rounds (every input's encode, decode
# and size, and whole request frames, timed with kafka-protocol in alternating rounds) in
# PROCESSES processes per profile (default 3), the profiles alternated, pinned to one core,
# with run.sh's heap setting; then the tables of medians over the processes
# (benches/scripts/same_rounds_table.py). Run from the workspace root:
#
#     sh benches/scripts/same_rounds.sh [inputs...]
#
# ROUNDS=N sets the rounds per cell (default 101). Each process's own output is kept in
# target/same_rounds/ (`release.1`, `bench-lto.1`, ...).
set -eu
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432
processes=${PROCESSES:-3}
rounds=${ROUNDS:-101}
out=target/same_rounds
mkdir -p "$out"
for profile in release bench-lto; do
    cargo build -q -p kafka-wire-bench --example same_rounds --profile "$profile"
done
i=1
while [ "$i" -le "$processes" ]; do
    for profile in release bench-lto; do
        taskset -c 1 "target/$profile/examples/same_rounds" "$rounds" "$@" > "$out/$profile.$i"
    done
    i=$((i + 1))
done
head -n 1 "$out/release.1"
echo
python3 benches/scripts/same_rounds_table.py "$out" "$processes"
