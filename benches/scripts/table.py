#!/usr/bin/env python3
"""Prints the latest criterion medians as the Markdown table of BENCHMARKS.md.

Run after `cargo bench -p kafka-wire-bench`: python3 benches/scripts/table.py
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "target", "criterion")
GROUPS = [
    "txn_offset_commit_v5_100x100",
    "add_partitions_to_txn_v5_request",
    "add_partitions_to_txn_v5_response",
    "initialize_share_group_state_v0_request",
    "seed_add_partitions_to_txn_v5",
    "seed_txn_offset_commit_v5",
    "seed_initialize_share_group_state_v0",
]
OPS = ["encode", "decode", "size", "frame_decode"]


def median_ns(group, bench):
    path = os.path.join(ROOT, group, bench, "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"]
    except FileNotFoundError:
        return None


def fmt(ns):
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def main():
    print("| input | op | kafka-wire | kafka-protocol | speed-up | memcpy floor |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for g in GROUPS:
        for op in OPS:
            ours = median_ns(g, f"{op}_kafka-wire")
            theirs = median_ns(g, f"{op}_kafka-protocol")
            if ours is None and theirs is None:
                continue
            floor = median_ns(g, "frame_memcpy" if op == "frame_decode" else "memcpy")
            ratio = f"{theirs / ours:.2f}×" if ours and theirs else "-"
            print(f"| {g} | {op} | {fmt(ours)} | {fmt(theirs)} | {ratio} | {fmt(floor)} |")


if __name__ == "__main__":
    sys.exit(main())
