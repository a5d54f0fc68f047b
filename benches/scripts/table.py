#!/usr/bin/env python3
"""Prints the criterion medians of both profiles side by side as a Markdown table.

Run after benches/scripts/run.sh (which saves the baselines `release` and `bench-lto`):
python3 benches/scripts/table.py

With `--runs N` (after `RUNS=N sh benches/scripts/run.sh`, which also saves `release-2`,
`bench-lto-2`, ... up to N), each cell shows the medians of the first run and, as the ratio,
the median of the N runs' ratios with their range (min-max): each run's pair of medians was
taken minutes apart, so the ratio of one run is the unit that is compared, not pooled times.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(__file__)
ROOT = os.path.join(HERE, "..", "..", "target", "criterion")
PROFILES = ["release", "bench-lto"]
OPS = ["encode", "encode_floor", "encode_vectored", "decode", "decode_floor", "size", "frame_decode"]
# The operation of kafka-protocol each of ours is compared with: theirs has no vectored
# encode and no floors, so those are compared with their ordinary encode and decode.
THEIRS = {"encode_vectored": "encode", "encode_floor": "encode", "decode_floor": "decode"}
LABELS = {
    "frame_decode": "frame decode",
    "encode_vectored": "encode (vectored)",
    # Not kafka-wire: the hand-written floor (benches/src/lib.rs), in kafka-wire's column.
    "encode_floor": "encode floor (hand-written)",
    "decode_floor": "decode floor (hand-written)",
}


def groups():
    """The inputs in the order of `for_each_input!` in benches/src/lib.rs."""
    with open(os.path.join(HERE, "..", "src", "lib.rs")) as f:
        return re.findall(r'\$m!\(\s*"([^"]+)"', f.read())


def load(group, bench, baseline, name):
    path = os.path.join(ROOT, group, bench, baseline, name)
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def median_ns(group, bench, baseline):
    e = load(group, bench, baseline, "estimates.json")
    return e["median"]["point_estimate"] if e else None


def size_bytes(group, bench, baseline):
    b = load(group, bench, baseline, "benchmark.json")
    t = b and b.get("throughput")
    return t.get("Bytes") if t else None


def fmt(ns):
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def baselines(profile, runs):
    return [profile] + [f"{profile}-{i}" for i in range(2, runs + 1)]


def ratio_cell(g, op, profile, runs):
    """The ratio text of one cell: one run's ratio, or the median of several with their range."""
    ratios = []
    for b in baselines(profile, runs):
        ours = median_ns(g, f"{op}_kafka-wire", b)
        theirs = median_ns(g, f"{THEIRS.get(op, op)}_kafka-protocol", b)
        if ours and theirs:
            ratios.append(theirs / ours)
    if not ratios:
        return "-"
    ratios.sort()
    n = len(ratios)
    mid = ratios[n // 2] if n % 2 else (ratios[n // 2 - 1] + ratios[n // 2]) / 2
    if n == 1:
        return f"**{mid:.2f}×**"
    return f"**{mid:.2f}×** ({ratios[0]:.2f}-{ratios[-1]:.2f}, {n} runs)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1)
    runs = ap.parse_args().runs
    head = "| input | bytes | op |"
    rule = "| --- | ---: | --- |"
    for p in PROFILES:
        head += f" {p}: kafka-wire | kafka-protocol | ratio |"
        rule += " ---: | ---: | ---: |"
    print(head)
    print(rule)
    for g in groups():
        for op in OPS:
            bench = f"{op}_kafka-wire"
            row = ""
            found = False
            size = None
            for p in PROFILES:
                ours = median_ns(g, bench, p)
                theirs = median_ns(g, f"{THEIRS.get(op, op)}_kafka-protocol", p)
                size = size or size_bytes(g, bench, p)
                found = found or ours is not None
                ratio = ratio_cell(g, op, p, runs)
                row += f" {fmt(ours)} | {fmt(theirs)} | {ratio} |"
            if found:
                label = LABELS.get(op, op)
                print(f"| {g} | {size or '-'} | {label} |{row}")


if __name__ == "__main__":
    sys.exit(main())
