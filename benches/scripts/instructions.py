#!/usr/bin/env python3
"""Instructions per operation under callgrind, for both libraries, on every input.

    cargo build --profile bench -p kafka-wire-bench --example profile
    python3 benches/scripts/instructions.py [--bin target/release/examples/profile] [case ...]

Each figure is (count at 11 iterations - count at 1 iteration) / 10, under run.sh's heap
settings (see callgrind.py).
"""
import argparse
import os
import re
import sys

import callgrind


def cases():
    with open(os.path.join(callgrind.HERE, "..", "src", "lib.rs")) as f:
        return re.findall(r'\$m!\(\s*"([^"]+)"', f.read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/examples/profile")
    ap.add_argument("--ops", default="encode,decode,size")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    todo = [(c, op) for c in (a.cases or cases()) for op in a.ops.split(",")]
    res = callgrind.both(a.bin, todo, a.jobs, 1, 11)
    callgrind.table(["input", "op"], todo, res)


if __name__ == "__main__":
    sys.exit(main())
