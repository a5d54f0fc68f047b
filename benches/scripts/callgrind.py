"""What instructions.py and records_instructions.py share: callgrind instruction counts of a
profiling example run under run.sh's heap settings, per operation, for both libraries.

Each figure is (count at `hi` iterations - count at `lo` iterations) / (hi - lo), so the
set-up (building the input, the cross-check) cancels out. Load-independent, unlike wall time.

glibc's heap thresholds are fixed as run.sh fixes them for the wall-clock runs (the same
GLIBC_TUNABLES, read from run.sh; an explicit GLIBC_TUNABLES in the environment wins): with
the defaults, an operation that frees its whole result trims the heap and maps it again, and
those instructions (heap consolidation, the mmap/munmap calls) would be counted too.
"""
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = ("ours", "theirs")


def heap_env():
    """The environment with run.sh's GLIBC_TUNABLES, unless one is set already."""
    env = dict(os.environ)
    if "GLIBC_TUNABLES" not in env:
        with open(os.path.join(HERE, "run.sh")) as f:
            env["GLIBC_TUNABLES"] = re.search(r"GLIBC_TUNABLES=(\S+)", f.read()).group(1)
    return env


ENV = heap_env()


def count(binary, args, n):
    """Instructions of `binary args... n` under callgrind."""
    r = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         binary, *args, str(n)],
        capture_output=True, text=True, check=True, env=ENV)
    return int(re.search(r"Collected : (\d+)", r.stderr).group(1))


def per_op(binary, args, lo, hi):
    return (count(binary, args, hi) - count(binary, args, lo)) / (hi - lo)


def both(binary, todo, jobs, lo, hi, args=lambda key, lib: (*key, lib)):
    """{(key, lib): instructions per operation} for every key of `todo` and both libraries;
    `args(key, lib)` gives the example's arguments before the iteration count."""
    runs = [(key, lib) for key in todo for lib in LIBS]
    with ThreadPoolExecutor(jobs) as ex:
        return dict(zip(runs, ex.map(lambda r: per_op(binary, args(*r), lo, hi), runs)))


def fmt(n):
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.1f}K" if n >= 1e4 else f"{n:.0f}"


def table(columns, todo, res):
    """A markdown table: the key's columns, then kafka-wire, kafka-protocol and their ratio."""
    print("| " + " | ".join(columns) + " | kafka-wire | kafka-protocol | ratio |")
    print("| " + " | ".join("---" for _ in columns) + " | ---: | ---: | ---: |")
    for key in todo:
        o, t = res[(key, "ours")], res[(key, "theirs")]
        print("| " + " | ".join(key) + f" | {fmt(o)} | {fmt(t)} | {t / o:.2f}× |")
