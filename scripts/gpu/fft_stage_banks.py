#!/usr/bin/env python3
"""Shared-memory wavefronts of gpu/fft_stages.cuh's stage passes, per ideal wavefront.

Replays stage_group's index arithmetic (rows, line-fastest thread order) for one block of 256
threads on `lines` lines of N float2 values, with value x of line l at l * pitch + x + (x >> skew),
and counts wavefronts as the hardware serves 64-bit accesses: two half-warp phases of 16 bank
pairs each, a phase costing its most-used bank pair (distinct addresses). 1.00 = conflict-free.
Used to choose gpu/fft_fused.cu's layout (skew_of, pitch_of); prints the chosen layouts and, with
--search, the best (skew, pitch offset) per size.
"""
import sys


def groups(n, later):
    log = n.bit_length() - 1
    first = log - later * ((log - 2) // later)
    g = [first]
    while sum(g) < log:
        g.append(later)
    return g


def phase_cost(addrs):
    cost = 0
    for half in (addrs[:16], addrs[16:]):
        use = {}
        for a in set(half):
            use[a % 16] = use.get(a % 16, 0) + 1
        cost += max(use.values()) if use else 0
    return cost


def ratio(n, lines, pitch, skew, later, forward):
    sk = (lambda x: x + (x >> skew)) if skew else (lambda x: x)
    total = ideal = done = 0
    for g in groups(n, later):
        s = n // (2 << done) if forward else 1 << done
        km = 1 << g
        step = s >> (g - 1) if forward else s
        block = 2 * s if forward else s * km
        per_line = n // km
        lines_log = max(0, (lines - 1).bit_length())
        items = per_line << lines_log
        for w0 in range(0, items, 32):
            for m in range(km):
                addrs = []
                for idx in range(w0, min(w0 + 32, items)):
                    line, q = idx & ((1 << lines_log) - 1), idx >> lines_log
                    if line >= lines:
                        continue
                    x = (q // step) * block + q % step + m * step
                    addrs.append(line * pitch + sk(x))
                total += 2 * phase_cost(addrs)
                ideal += 2 * ((len(addrs) + 15) // 16)
        done += g
    return total / ideal


# gpu/fft_fused.cu: lines per block 4096 / N; stages per later pass; skew_of; pitch_of.
CHOSEN = {64: (3, 0, 65), 128: (3, 0, 129), 256: (4, 0, 257), 512: (3, 3, 578),
          1024: (3, 3, 1156)}

for n, (later, skew, pitch) in CHOSEN.items():
    lines = 4096 // n
    print(f"N={n:5} lines={lines:3} skew={skew} pitch={pitch:5}: forward "
          f"{ratio(n, lines, pitch, skew, later, True):.2f}, inverse "
          f"{ratio(n, lines, pitch, skew, later, False):.2f}; unskewed pitch N+1: forward "
          f"{ratio(n, lines, n + 1, 0, later, True):.2f}")
    if "--search" in sys.argv:
        best = min((ratio(n, lines, n + (n >> sh if sh else 0) + off, sh, later, True)
                    + ratio(n, lines, n + (n >> sh if sh else 0) + off, sh, later, False), sh, off)
                   for sh in (0, 2, 3, 4, 5) for off in range(16))
        print(f"  best forward + inverse {best[0]:.2f} at skew {best[1]}, offset {best[2]}")
