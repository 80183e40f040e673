#!/usr/bin/env python3
"""How far `auto` (the model's untuned choice) and `auto_tuned` are from the fastest variant, per
case of `xcorr bench` JSON files (docs/perf/gpu-support.md). Usage:
    auto_vs_fastest.py NAME=bench.json [NAME=bench.json ...]
Prints, per file, a Markdown row: cases, cases where auto is within 15 % of the fastest, the
median and worst ratio auto / fastest (kernel_ms medians) and the worst case; then the worst
cases of all files."""
import json
import statistics
import sys


def case_key(r):
    return (r["form"], r["mode"], r["norm"], r["output"], r["template"], r["window"], r["pairs"],
            r["n"], r["m"])


def ratios(rows):
    cases = {}
    for r in rows:
        cases.setdefault(case_key(r), []).append(r)
    out = []
    for key, rs in cases.items():
        timed = [r for r in rs if r["variant"] not in ("auto", "auto_tuned") and r["kernel_ms"] > 0]
        auto = [r for r in rs if r["variant"] == "auto"]
        tuned = [r for r in rs if r["variant"] == "auto_tuned"]
        if not timed or not auto:
            continue
        best = min(timed + tuned, key=lambda r: r["kernel_ms"])
        a = auto[0]
        out.append({"case": "%s %s %s %s %dx%d in %d, n=%d m=%d" % (key[0], key[1], key[2], key[3],
                                                                  key[4], key[4], key[5], key[7], key[8]),
                    "auto": a["params"].replace("chosen=", ""), "fastest": best["variant"] +
                    (":" + best["params"] if best["params"] and best["variant"] != "auto_tuned" else
                     (" " + best["params"] if best["variant"] == "auto_tuned" else "")),
                    "ratio": a["kernel_ms"] / best["kernel_ms"],
                    "tuned_ratio": tuned[0]["kernel_ms"] / best["kernel_ms"] if tuned else None})
    return out


def main():
    print("| configuration | cases | auto within 15 % | median auto/fastest | worst auto/fastest (case) | median tuned/fastest |")
    print("|---|---|---|---|---|---|")
    worst = []
    for arg in sys.argv[1:]:
        name, path = arg.split("=", 1)
        rs = ratios(json.load(open(path)))
        if not rs:
            print(f"| {name} | 0 | - | - | - | - |")
            continue
        w = max(rs, key=lambda r: r["ratio"])
        tuned = [r["tuned_ratio"] for r in rs if r["tuned_ratio"] is not None]
        tuned_text = f"{statistics.median(tuned):.2f}" if tuned else "-"
        print(f"| {name} | {len(rs)} | {sum(r['ratio'] <= 1.15 for r in rs)} | "
              f"{statistics.median(r['ratio'] for r in rs):.2f} | {w['ratio']:.2f} ({w['case']}: auto "
              f"{w['auto']}, fastest {w['fastest']}) | {tuned_text} |")
        worst += [(name, r) for r in rs if r["ratio"] > 1.15]
    if worst:
        print("\nCases where auto is more than 15 % slower than the fastest:\n")
        for name, r in sorted(worst, key=lambda x: -x[1]["ratio"]):
            print(f"- {name}: {r['case']}: auto {r['auto']} {r['ratio']:.2f}x the fastest ({r['fastest']})")


if __name__ == "__main__":
    main()
