#!/usr/bin/env python3
"""Markdown tables from an `xcorr profile --out x.json` file (docs/perf/profile-h200.md).

Usage: profile_table.py PROFILE.json
Prints two tables: timings and occupancy per variant kernel, and shared-memory traffic per kernel
(model from the kernel's index functions beside CUPTI's counters; warp-level instructions and
wavefronts per launch).
"""
import json
import sys


def fmt(v, digits=0):
    return "" if v is None else f"{v:,.{digits}f}".replace(",", " ")


def main(path):
    rows = json.load(open(path))
    print("| variant | median ms | p90 ms | e2e ms | GFLOP/s | kernel | regs | smem B | threads "
          "| occupancy ours / CUDA / achieved | limiter |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|")
    for r in rows:
        head = (f"| {r['variant']} | {r['median_ms']:.4f} | {r['p90_ms']:.4f} | {r['e2e_ms']:.4f} "
                f"| {r['gflops']:.0f} ")
        if not r["kernels"]:
            print(head + f"| ({'cuFFT' if r['device'] == 'gpu' else 'CPU'}) | | | | | |")
        for k in r["kernels"]:
            c = k.get("counters")
            achieved = f"{100 * c['achieved_occupancy']:.1f} %" if c else "n/a"
            print(head + f"| {k['kernel']} | {k['registers']} "
                  f"| {k['static_shared_bytes'] + k['dynamic_shared_bytes']} "
                  f"| {k['threads_per_block']} | {100 * k['occupancy']:.1f} % / "
                  f"{100 * k['cuda_occupancy']:.1f} % / {achieved} | {k['occupancy_limiter']} |")
    print()
    print("| variant | kernel | loads: instr model = measured | load wavefronts model / measured "
          "| load conflicts model / measured | stores: instr | store wavefronts model / measured "
          "| store conflicts model / measured |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    notes = set()
    for r in rows:
        if r.get("counters_note"):
            notes.add(f"{r['variant']}: {r['counters_note']}")
        for k in r["kernels"]:
            m, c = k.get("smem_model"), k.get("counters")
            if m is None and (c is None or c["load_instructions"] + c["store_instructions"] == 0):
                continue
            m = m or {key: 0 for key in c}
            same = lambda key: fmt(m[key]) if c and m[key] == c[key] else f"{fmt(m[key])} / {fmt(c[key]) if c else 'n/a'}"
            both = lambda key: f"{fmt(m[key])} / {fmt(c[key]) if c else 'n/a'}"
            print(f"| {r['variant']} | {k['kernel']} | {same('load_instructions')} "
                  f"| {both('load_wavefronts')} | {both('load_conflicts')} "
                  f"| {same('store_instructions')} | {both('store_wavefronts')} "
                  f"| {both('store_conflicts')} |")
    print()
    print("Shared arrays (the access that walks them across rows; gcd degree of the pitch; "
          "the padding that makes that access conflict-free):")
    print()
    seen = set()
    for r in rows:
        for k in r["kernels"]:
            for a in k.get("smem_arrays", []):
                line = (f"- {r['variant']}: {a['name']}, {a['access']}: pitch {a['pitch_elements']} "
                        f"x {a['width_bytes']} B, gcd degree {a['gcd_degree']}, "
                        f"{a['wavefronts']} wavefronts (ideal {a['ideal']}); pad {a['pad_elements']} "
                        f"-> {a['padded_wavefronts']}")
                if line not in seen:
                    seen.add(line)
                    print(line)
    for n in sorted(notes):
        print(f"- {n}")


if __name__ == "__main__":
    main(sys.argv[1])
