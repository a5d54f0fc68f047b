#!/usr/bin/env python3
"""Instructions per operation under callgrind, for both libraries, on every input.

    cargo build --profile bench -p kafka-wire-bench --example profile
    python3 benches/scripts/instructions.py [--bin target/release/examples/profile] [case ...]

Each figure is (count at 11 iterations - count at 1 iteration) / 10, so the set-up (building
the input, the cross-check) cancels out. Load-independent, unlike wall time.

glibc's heap thresholds are fixed as run.sh fixes them for the wall-clock runs (the same
GLIBC_TUNABLES, read from run.sh; an explicit GLIBC_TUNABLES in the environment wins): with
the defaults, a decode that frees its whole result trims the heap and maps it again, and
those instructions (heap consolidation, the mmap/munmap calls) would be counted too.
"""
import argparse
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(__file__)


def cases():
    with open(os.path.join(HERE, "..", "src", "lib.rs")) as f:
        return re.findall(r'\$m!\(\s*"([^"]+)"', f.read())


def heap_env():
    """The environment with run.sh's GLIBC_TUNABLES, unless one is set already."""
    env = dict(os.environ)
    if "GLIBC_TUNABLES" not in env:
        with open(os.path.join(HERE, "run.sh")) as f:
            env["GLIBC_TUNABLES"] = re.search(r"GLIBC_TUNABLES=(\S+)", f.read()).group(1)
    return env


ENV = heap_env()


def count(binary, case, op, lib, n):
    r = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         binary, case, op, lib, str(n)],
        capture_output=True, text=True, check=True, env=ENV)
    return int(re.search(r"Collected : (\d+)", r.stderr).group(1))


def per_op(binary, case, op, lib):
    return (count(binary, case, op, lib, 11) - count(binary, case, op, lib, 1)) / 10


def fmt(n):
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.1f}K" if n >= 1e4 else f"{n:.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/examples/profile")
    ap.add_argument("--ops", default="encode,decode,size")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    todo = [(c, op) for c in (a.cases or cases()) for op in a.ops.split(",")]
    jobs = [(c, op, lib) for c, op in todo for lib in ("ours", "theirs")]
    with ThreadPoolExecutor(a.jobs) as ex:
        res = dict(zip(jobs, ex.map(lambda j: per_op(a.bin, *j), jobs)))
    print("| input | op | kafka-wire | kafka-protocol | ratio |")
    print("| --- | --- | ---: | ---: | ---: |")
    for c, op in todo:
        o, t = res[(c, op, "ours")], res[(c, op, "theirs")]
        print(f"| {c} | {op} | {fmt(o)} | {fmt(t)} | {t / o:.2f}× |")


if __name__ == "__main__":
    sys.exit(main())
