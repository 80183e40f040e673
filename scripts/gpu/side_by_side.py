#!/usr/bin/env python3
"""Side-by-side table of one GPU run: ours (xcorr bench JSON) vs the anchors (anchor_bench.py JSON,
same run) vs the thesis' code on the same H200 (shared/data/thesis-h200-2026-11-21.json).

Usage: side_by_side.py BENCH.json ANCHORS.json THESIS.json
Times are kernel-only / device-resident medians in ms. `auto` is the tuned choice (auto_tuned rows:
measured once per device and size, cached); the model prior's choice is shown beside it.
Two comparisons with the thesis: `auto (ms)` is each run timed on its own (launch latency included);
`back-to-back` is total / 20 of 20 runs launched without waiting, the thesis' own method (its
src/stopwatch.hpp times every kernel as CUDA events around a loop of back-to-back launches,
CUDA_ADAPTIVE_MEASURE, and its cuFFT calls as host time over such a loop, CPU_ADAPTIVE_MEASURE).
Targets (GPU engine issue): auto below the thesis' best (aim: half); auto <= 0.5 x best anchor;
auto within 10% of our fastest variant.
"""
import json
import sys
from collections import defaultdict


def main(bench_path, anchors_path, thesis_path):
    bench = json.load(open(bench_path))
    anchors = json.load(open(anchors_path))
    thesis = json.load(open(thesis_path))
    key = lambda r: (r["form"], r["size"], r["n"], r["m"])
    ours = defaultdict(dict)
    chosen = {}
    for r in bench:
        ours[key(r)][r["variant"]] = r
        if r["variant"] in ("auto", "auto_tuned"):
            chosen[(key(r), r["variant"])] = r["params"].replace("chosen=", "")
    best_anchor = {}
    for r in anchors:
        k = key(r)
        if k not in best_anchor or r["ms"] < best_anchor[k][1]:
            best_anchor[k] = (r["impl"], r["ms"])
    best_thesis = {}
    for r in thesis:
        k = key(r)
        if k not in best_thesis or r["kernel_ms"] < best_thesis[k][1]:
            best_thesis[k] = (r["alg"], r["kernel_ms"])
    print("| form | size | n | m | auto (ms) | auto chose (prior chose) | fastest ours (ms) | auto/fastest | thesis best (ms) | auto/thesis | best anchor (ms) | auto/anchor | auto back-to-back (ms) | back-to-back/thesis | e2e auto (ms) |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    met = defaultdict(int)
    total = 0
    for k, v in ours.items():
        tag = "auto_tuned" if "auto_tuned" in v else "auto"
        if tag not in v:
            continue
        total += 1
        auto = v[tag]["kernel_ms"]
        fastest_name, fastest = min(((n, r["kernel_ms"]) for n, r in v.items() if not n.startswith("auto")),
                                    key=lambda x: x[1])
        th = best_thesis.get(k)
        an = best_anchor.get(k)
        r_fast = auto / fastest
        r_th = auto / th[1] if th else None
        r_an = auto / an[1] if an else None
        met["fastest"] += r_fast <= 1.10
        b2b = v[tag].get("back_to_back_ms", float("nan"))
        r_b2b = b2b / th[1] if th else None
        if th:
            met["thesis"] += r_th < 1.0
            met["thesis_half"] += r_th <= 0.5
            met["b2b"] += r_b2b < 1.0
            met["b2b_half"] += r_b2b <= 0.5
        if an:
            met["anchor"] += r_an <= 0.5
        fmt = lambda x: "-" if x is None else f"{x:.2f}x"
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {auto:.4f} | {chosen[(k, tag)]} ({chosen.get((k, 'auto'), '-')}) | {fastest:.4f} ({fastest_name}) | {fmt(r_fast)} | "
              f"{'-' if not th else f'{th[1]:.4f}'} | {fmt(r_th)} | {'-' if not an else f'{an[1]:.4f} ({an[0]})'} | {fmt(r_an)} | "
              f"{b2b:.4f} | {fmt(r_b2b)} | {v[tag]['e2e_ms']:.4f} |")
    n_th = sum(1 for k in ours if k in best_thesis)
    n_an = sum(1 for k in ours if k in best_anchor)
    print()
    print(f"auto within 10% of our fastest: {met['fastest']}/{total}; below the thesis' best: {met['thesis']}/{n_th} "
          f"(at most half: {met['thesis_half']}/{n_th}); at most 0.5x the best anchor: {met['anchor']}/{n_an}.")
    print(f"back-to-back (the thesis' method) below the thesis' best: {met['b2b']}/{n_th} "
          f"(at most half: {met['b2b_half']}/{n_th}).")
    print_fp32_table(ours)


FP32_TFLOPS = 55.8  # measured FMA rate of the H200 (shared/GPU.md)
FP32_CASES = [("one_to_many", 64, 1, 64), ("n_to_m", 64, 8, 8)]  # the issue's 40 % target cases


def print_fp32_table(ours):
    """Every variant on the two FP32-target cases: useful GFLOP/s (2 x real multiply-adds / kernel
    time) as a share of the FP32 FMA rate."""
    print()
    print("| variant | params | " + " | ".join(f"{f} {s}x{s} {n}x{m}: ms, % FP32" for f, s, n, m in FP32_CASES) + " |")
    print("|---|---|" + "---:|" * len(FP32_CASES))
    names = []
    for k in FP32_CASES:
        for name in ours.get(k, {}):
            if not name.startswith("auto") and name not in names:
                names.append(name)
    for name in names:
        cells, params = [], ""
        for k in FP32_CASES:
            r = ours.get(k, {}).get(name)
            if r is None:
                cells.append("-")
                continue
            params = r["params"]
            cells.append(f"{r['kernel_ms']:.4f}, {100 * r['gflops'] / 1e3 / FP32_TFLOPS:.1f} %")
        print(f"| {name} | {params} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(*sys.argv[1:4])
