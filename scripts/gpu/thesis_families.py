#!/usr/bin/env python3
"""Each thesis kernel family against the thesis' own kernel on the same case (docs/perf/gpu-engine.md).

Usage: scripts/gpu/thesis_families.py BENCH.json THESIS.json

BENCH.json: `xcorr bench --cases anchors --variants ...` rows (full mode, no normalisation);
THESIS.json: ../shared/data/thesis-h200-2026-11-21.json (the thesis' kernels timed kernel-only on
the same H200 model). Ours: `device_ms` (CUDA events with the host's enqueueing held outside
them, as the thesis' events bracket only its kernel), the best parameter set the bench timed for
that family; `kernel_ms` (events around the whole call, host enqueueing included) beside it.
Prints a markdown table and the count of cases within 1.1x of the thesis.
"""
import json
import re
import sys

FAMILY = {  # thesis algorithm (without its form suffix) -> our variant
    "nai_shuffle_work_distribution": "gpu_warp_shuffle",
    "nai_shuffle_multirow_both": "gpu_warp_shuffle_multirow_both",
    "nai_warp_per_shift": "gpu_warp_per_shift",
    "nai_warp_per_shift_shared_mem": "gpu_warp_per_shift_shared",
    "nai_shuffle_multimat_right_work_distribution": "gpu_warp_shuffle_multimat_right",
    "nai_shuffle_multirow_both_multimat_right": "gpu_warp_shuffle_multirow_both_multimat_right",
    "nai_shuffle_multimat_both_work_distribution": "gpu_warp_shuffle_multimat_both",
    "nai_shuffle_multirow_both_multimat_both": "gpu_warp_shuffle_multirow_both_multimat_both",
}


def main(bench_path, thesis_path):
    rows = [r for r in json.load(open(bench_path))
            if r.get("mode") == "full" and r.get("norm") == "none" and r.get("output") == "surface"]
    thesis = json.load(open(thesis_path))
    print("| thesis kernel | form | size | n | m | ours | ours device (ms) | params | ours kernel (ms) "
          "| thesis (ms) | ours/thesis |")
    print("|---|---|---:|---:|---:|---|---:|---|---:|---:|---:|")
    within = total = 0
    for t in sorted(thesis, key=lambda t: (t["alg"], t["form"], t["size"])):
        if t["alg"].startswith("fft"):
            continue
        base = re.sub("_(one_to_one|one_to_many|n_to_mn|n_to_m)$", "", t["alg"])
        ours = FAMILY[base]
        cand = [r for r in rows if r["variant"] == ours and r["form"] == t["form"]
                and r["size"] == t["size"] and r["n"] == t["n"] and r["m"] == t["m"]
                and r.get("device_ms", -1) > 0]
        total += 1
        if not cand:
            print(f"| {t['alg']} | {t['form']} | {t['size']} | {t['n']} | {t['m']} | {ours} | - | "
                  f"(not timed) | - | {t['kernel_ms']:.4f} | - |")
            continue
        best = min(cand, key=lambda r: r["device_ms"])
        ratio = best["device_ms"] / t["kernel_ms"]
        within += ratio <= 1.1
        print(f"| {t['alg']} | {t['form']} | {t['size']} | {t['n']} | {t['m']} | {ours} | "
              f"{best['device_ms']:.4f} | {best['params'] or '-'} | {best['kernel_ms']:.4f} | "
              f"{t['kernel_ms']:.4f} | {ratio:.2f}x |")
    print(f"\nWithin 1.1x of the thesis' kernel (or faster): {within}/{total}.")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
