#!/usr/bin/env python3
"""Markdown table from a Google Benchmark JSON of tests/bench/xcorr_cpu_bench.

Usage: scripts/bench_table.py bench.json
Rows: cases (one_to_one/NxN, one_to_many/...); columns: median real time (ms) of OpenCV
matchTemplate, cpu_direct, cpu_fft and auto (with the variant auto chose), and auto / OpenCV.
"""
import json
import sys
from collections import OrderedDict


def main(path):
    with open(path) as f:
        data = json.load(f)
    rows = OrderedDict()
    labels = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b["run_name"] if "run_name" in b else b["name"]
        name = name.replace("/real_time", "")
        case, variant = name.rsplit("/", 1)
        ms = b["real_time"] if b["time_unit"] == "ms" else b["real_time"] / 1e6
        rows.setdefault(case, {})[variant] = ms
        if variant == "auto":
            labels[case] = b.get("label", "")
    ctx = data["context"]
    print(f"Machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz; "
          f"library build: {ctx.get('library_build_type')}; {ctx.get('date')}\n")
    print("| case | OpenCV matchTemplate (ms) | cpu_direct (ms) | cpu_fft (ms) | auto (ms) | auto chose | auto / OpenCV |")
    print("|---|---:|---:|---:|---:|---|---:|")
    fmt = lambda v: "-" if v is None else f"{v:.3f}"
    for case, v in rows.items():
        ratio = v["auto"] / v["opencv"] if "auto" in v and "opencv" in v else None
        print(f"| {case} | {fmt(v.get('opencv'))} | {fmt(v.get('cpu_direct'))} | {fmt(v.get('cpu_fft'))} | "
              f"{fmt(v.get('auto'))} | {labels.get(case, '')} | {'-' if ratio is None else f'{ratio:.2f}x'} |")


if __name__ == "__main__":
    main(sys.argv[1])
