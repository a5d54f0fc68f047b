#!/usr/bin/env python3
"""Aggregates several processes of examples/same_rounds into the status tables of BENCHMARKS.md.

    python3 benches/scripts/same_rounds_table.py DIR N

DIR holds the output of N processes per profile, named `release.1` .. `release.N` and
`bench-lto.1` .. `bench-lto.N` (benches/scripts/same_rounds.sh writes them). For each cell:
each library's least time per operation over the N processes, and the median of the N
processes' median ratios (kafka-protocol's time over ours) with the N in brackets. Bold marks
a median under the target: decode 3x, encode 2x, size 1.5x for inputs of 1 KB or more, 1x
under that. A process is the unit compared: within one, the rounds alternate the two
libraries; between processes, code and heap placement move both.
"""
import re
import sys

PROFILES = ["release", "bench-lto"]
TARGETS = {"decode": 3.0, "encode": 2.0, "size": 1.5}


def load(path):
    """The cells of one process: {(input, op): (bytes, ours least, theirs least, median ratio)},
    in the order printed."""
    cells = {}
    for line in open(path, encoding="utf-8"):
        c = [x.strip() for x in line.split("|")]
        if len(c) < 8 or not c[2].replace(",", "").isdigit():
            continue
        m = re.search(r"([\d.]+)×", c[7])
        if m is None:
            continue
        cells[(c[1], c[3])] = (int(c[2].replace(",", "")), float(c[4]), float(c[5]), float(m.group(1)))
    return cells


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, n = sys.argv[1], int(sys.argv[2])
    runs = {p: [load(f"{root}/{p}.{i}") for i in range(1, n + 1)] for p in PROFILES}
    order = list(runs[PROFILES[0]][0])

    def cells(key):
        out = []
        for p in PROFILES:
            rs = [r[key] for r in runs[p]]
            ratios = sorted(x[3] for x in rs)
            out.append((min(x[1] for x in rs), min(x[2] for x in rs), median(ratios), ratios))
        return out

    head = "| input | bytes | {op}release: ours / kafka-protocol, least (ns) | release: ratio, median ({n} processes) | bench-lto: ours / kafka-protocol, least (ns) | bench-lto: ratio, median ({n} processes) |"

    def row(key, with_op):
        size = runs[PROFILES[0]][0][key][0]
        target = TARGETS.get(key[1], 1.0) if size >= 1000 else 1.0
        out = [key[0], f"{size:,}"] + ([key[1]] if with_op else [])
        for ours, theirs, med, ratios in cells(key):
            mark = "**" if with_op and med < target else ""
            out += [f"{ours:,.1f} / {theirs:,.1f}", f"{mark}{med:.2f}×{mark} ({ratios[0]:.2f}-{ratios[-1]:.2f})"]
        return "| " + " | ".join(out) + " |"

    ops = [k for k in order if k[1] in TARGETS]
    others = [k for k in order if k[1] not in TARGETS]
    print(head.format(op="op | ", n=n))
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
    for key in ops:
        print(row(key, True))
    # The other rows (whole request frames): no target, one table per kind.
    for kind in dict.fromkeys(k[1] for k in others):
        print()
        print(f"{kind}:")
        print()
        print(head.format(op="", n=n))
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for key in others:
            if key[1] == kind:
                print(row(key, False))

if __name__ == "__main__":
    main()
