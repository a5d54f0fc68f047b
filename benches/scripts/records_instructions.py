#!/usr/bin/env python3
"""Instructions per record-batch operation under callgrind, for both libraries.

    cargo build --profile bench -p kafka-wire-bench --example records_profile
    python3 benches/scripts/records_instructions.py [--bin target/release/examples/records_profile]
        [--workloads large,tiny] [--codecs none] [--ops read,build]

Each figure is (count at 6 iterations - count at 1 iteration) / 5, under run.sh's heap
settings (see callgrind.py). `crc` is CRC-32C over our uncompressed batch (the same for both
libraries' columns: it is one call of our `crc32c`). `read-nocrc` is our read with the CRC
check off, against kafka-protocol's read (which always checks it). `build-all` is our build
through `BatchBuilder::append_all` (all records in one call), against kafka-protocol's
build. Callgrind does not run AVX-512, so the builder's CRC folded while copying (AVX-512
VPCLMULQDQ) is not what it counts: under valgrind the builder takes its one-pass CRC path.
"""
import argparse
import sys

import callgrind


def args(key, lib):
    w, codec, op = key
    if lib == "theirs" and op == "read-nocrc":
        op = "read"  # kafka-protocol always checks the CRC: compare with its only read
    if lib == "theirs" and op == "build-all":
        op = "build"  # kafka-protocol's encoder always takes all records at once
    return (w, codec, op, lib)


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
    res = callgrind.both(a.bin, todo, a.jobs, 1, 6, args)
    callgrind.table(["workload", "codec", "op"], todo, res)


if __name__ == "__main__":
    sys.exit(main())
