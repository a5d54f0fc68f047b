#!/bin/sh
# The whole benchmark suite in both profiles, one after the other, then the table of
# BENCHMARKS.md. Run from the workspace root: sh benches/scripts/run.sh [criterion filter]
#
# RUNS=N (default 1) repeats the pair of profiles N times, alternating them (release, bench-lto,
# release, ...), each run saved under its own criterion baseline (`release-2`, `bench-lto-2`,
# ...); the table then gives each cell's median ratio over the runs and their range. A single
# run does not decide a cell near its threshold: on this machine the same binaries moved some
# ratios across 2x between two runs 20 minutes apart.
#
# PER_INPUT=1 runs each input's benchmark group in its own process (both profiles, one input
# after the other), instead of every group in one process per profile.
#
# Heap setting: decode frees its whole result on every iteration. With glibc's defaults the
# top of the heap is trimmed (given back to the kernel) once it exceeds the trim threshold,
# and blocks above the mmap threshold are mapped and unmapped each time; both thresholds also
# move at run time. That changed decode times by up to 2x for both libraries. Here both are
# fixed: nothing under 256 MiB is trimmed, and nothing under 32 MiB (glibc's maximum) is
# mmapped, the steady state of a long-running process with a warm heap.
#
# SAME_ROUNDS: see the end of this script.
set -eu
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432
runs=${RUNS:-1}
i=1
while [ "$i" -le "$runs" ]; do
    # The first run keeps the plain baseline names, so that one run reads as before.
    suffix=$([ "$i" -eq 1 ] && echo "" || echo "-$i")
    if [ "${PER_INPUT:-0}" = 1 ]; then
        # Each input's group (its encode, decode, size, floors and frame rows) in a process
        # of its own, so that no input is timed on the heap the inputs before it left (the
        # v2 1000x1 decode moved by up to 1.4x with what ran before it; BENCHMARKS.md,
        # "Heap setting"). An argument keeps the inputs whose name contains it.
        for name in $(python3 -c 'import re,sys; print(" ".join(re.findall(r"\$m!\(\s*\"([^\"]+)\"", open("benches/src/lib.rs").read())))'); do
            case "$name" in *"${1:-}"*) ;; *) continue ;; esac
            cargo bench -p kafka-wire-bench --bench codec -- --save-baseline "release$suffix" "^$name/"
            cargo bench -p kafka-wire-bench --bench codec --profile bench-lto -- --save-baseline "bench-lto$suffix" "^$name/"
        done
    else
        cargo bench -p kafka-wire-bench --bench codec -- --save-baseline "release$suffix" "$@"
        cargo bench -p kafka-wire-bench --bench codec --profile bench-lto -- --save-baseline "bench-lto$suffix" "$@"
    fi
    i=$((i + 1))
done
python3 benches/scripts/table.py --runs "$runs"
# The second method: every input's cells timed with kafka-protocol in the same rounds
# (benches/scripts/same_rounds.sh: examples/same_rounds.rs, pinned to one core, in both
# profiles); SAME_ROUNDS=0 skips it, SAME_ROUNDS=N sets the rounds per cell (default 101),
# SAME_ROUNDS_PROCESSES=N the processes per profile (default 1 here; the status tables of
# BENCHMARKS.md use 3). Criterion times the two libraries apart, and on a shared machine a
# cell near its target can read either way from one run to the next; the median of the
# rounds' own ratios does not move with the machine's state.
rounds=${SAME_ROUNDS:-101}
if [ "$rounds" != 0 ]; then
    echo
    echo "Same rounds:"
    ROUNDS=$rounds PROCESSES=${SAME_ROUNDS_PROCESSES:-1} sh benches/scripts/same_rounds.sh
fi
