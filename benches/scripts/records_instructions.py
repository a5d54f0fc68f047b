#!/usr/bin/env python3
"""Instructions per record-batch operation under callgrind, for both libraries.

    cargo build --profile bench -p kafka-wire-bench --example records_profile
    python3 benches/scripts/records_instructions.py [--bin target/release/examples/records_profile]
        [--workloads large,tiny] [--codecs none] [--ops read,build]

Each figure is (count at 6 iterations - count at 1 iteration) / 5, so the set-up (building
the workload, the cross-check) cancels out. `crc` is CRC-32C over our uncompressed batch (the
same for both libraries' columns: it is one call into the `crc32c` crate). `read-nocrc` is
our read with the CRC check off, against kafka-protocol's read (which always checks it).

glibc's heap thresholds are fixed as run.sh fixes them for the wall-clock runs (the same
GLIBC_TUNABLES, read from run.sh; an explicit GLIBC_TUNABLES in the environment wins), so
heap trimming and re-mapping between iterations are not counted.
"""
import argparse
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(__file__)


def heap_env():
    """The environment with run.sh's GLIBC_TUNABLES, unless one is set already."""
    env = dict(os.environ)
    if "GLIBC_TUNABLES" not in env:
        with open(os.path.join(HERE, "run.sh")) as f:
            env["GLIBC_TUNABLES"] = re.search(r"GLIBC_TUNABLES=(\S+)", f.read()).group(1)
    return env


ENV = heap_env()


def count(binary, w, codec, op, lib, n):
    r = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         binary, w, codec, op, lib, str(n)],
        capture_output=True, text=True, check=True, env=ENV)
    return int(re.search(r"Collected : (\d+)", r.stderr).group(1))


def per_op(binary, w, codec, op, lib):
    if lib == "theirs" and op == "read-nocrc":
        op = "read"  # kafka-protocol always checks the CRC: compare with its only read
    return (count(binary, w, codec, op, lib, 6) - count(binary, w, codec, op, lib, 1)) / 5


def fmt(n):
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.1f}K" if n >= 1e4 else f"{n:.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/examples/records_profile")
    ap.add_argument("--workloads", default="large,tiny")
    ap.add_argument("--codecs", default="none")
    ap.add_argument("--ops", default="read,build")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    todo = [(w, c, op) for w in a.workloads.split(",") for c in a.codecs.split(",")
            for op in a.ops.split(",")]
    jobs = [(w, c, op, lib) for w, c, op in todo for lib in ("ours", "theirs")]
    with ThreadPoolExecutor(a.jobs) as ex:
        res = dict(zip(jobs, ex.map(lambda j: per_op(a.bin, *j), jobs)))
    print("| workload | codec | op | kafka-wire | kafka-protocol | ratio |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for w, c, op in todo:
        o, t = res[(w, c, op, "ours")], res[(w, c, op, "theirs")]
        print(f"| {w} | {c} | {op} | {fmt(o)} | {fmt(t)} | {t / o:.2f}× |")


if __name__ == "__main__":
    sys.exit(main())
