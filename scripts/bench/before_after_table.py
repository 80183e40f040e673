#!/usr/bin/env python3
"""The before/after table of scripts/gpu/before_after.sh's results (a refactoring's check).

Usage: before_after_table.py RESULTS_DIR
DIC: points/s of each round (the median of bench-dic's repeats) and after/before per round.
Anchor cases: per case, auto's kernel median and the fastest variant's, before and after, and the
ratios after/before (> 1: slower after)."""
import json
import statistics
import sys
from pathlib import Path

res = Path(sys.argv[1])


def dic_rate(path):
    rows = json.loads(path.read_text())
    return statistics.median(r["points_per_second"] for r in rows if r.get("device") == "gpu")


print("| round | DIC before (points/s) | DIC after (points/s) | after / before |")
print("|---|---|---|---|")
for rnd in (1, 2):
    b, a = res / f"dic-before-{rnd}.json", res / f"dic-after-{rnd}.json"
    if b.exists() and a.exists():
        rb, ra = dic_rate(b), dic_rate(a)
        print(f"| {rnd} | {rb:.3e} | {ra:.3e} | {ra / rb:.3f} |")


def case_key(r):
    return (r["form"], r["mode"], r["norm"], r["output"], r["template"], r["window"], r["m"], r["n"])


def cases(path):
    by = {}
    for r in json.loads(path.read_text()):
        by.setdefault(case_key(r), []).append(r)
    return by


b, a = res / "anchors-before.json", res / "anchors-after.json"
if b.exists() and a.exists():
    cb, ca = cases(b), cases(a)
    print()
    print("| case | auto before (ms) | auto after (ms) | after / before | fastest before (ms) | "
          "fastest after (ms) | after / before |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for k in sorted(cb, key=str):
        if k not in ca:
            continue
        def auto(rows):
            t = [r["kernel_ms"] for r in rows if r["variant"] == "auto"]
            return t[0] if t else float("nan")
        def fastest(rows):
            t = [r["kernel_ms"] for r in rows if not r["variant"].startswith("auto")]
            return min(t) if t else float("nan")
        ab, aa, fb, fa = auto(cb[k]), auto(ca[k]), fastest(cb[k]), fastest(ca[k])
        ratios.append(aa / ab)
        name = f"{k[0]} {k[1]} {k[2]} {k[3]} {k[4]}x{k[5]} m{k[6]} n{k[7]}"
        print(f"| {name} | {ab:.4f} | {aa:.4f} | {aa / ab:.3f} | {fb:.4f} | {fa:.4f} | {fa / fb:.3f} |")
    every = []  # after/before of every variant on every case
    for k in cb:
        before = {r["variant"] + r["params"]: r["kernel_ms"] for r in cb[k]}
        for r in ca.get(k, []):
            v = r["variant"] + r["params"]
            if v in before and before[v] > 0:
                every.append(r["kernel_ms"] / before[v])
    if ratios:
        print()
        print(f"every variant on every case, after/before over {len(every)} pairs: median "
              f"{statistics.median(every):.3f}, 10th percentile "
              f"{sorted(every)[len(every) // 10]:.3f}, 90th {sorted(every)[9 * len(every) // 10]:.3f}")
        print(f"auto after/before over {len(ratios)} cases: median {statistics.median(ratios):.3f}, "
              f"min {min(ratios):.3f}, max {max(ratios):.3f}")
