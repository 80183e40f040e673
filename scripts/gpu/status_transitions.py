#!/usr/bin/env python3
"""Two DIC results CSVs of the same run shape (e.g. `xcorr dic` by two builds, rows in the same
order) compared by point status: how many points moved from which status to which, how many
converged in each, and the first 16 points whose status changed with their u, v, ..., status in
both. Streams both files (12.75 M rows in about 20 s).
Usage: scripts/gpu/status_transitions.py BEFORE.csv AFTER.csv"""
import collections
import sys


def main():
    transitions = collections.Counter()
    examples = []
    converged = [0, 0]
    with open(sys.argv[1]) as fa, open(sys.argv[2]) as fb:
        for la, lb in zip(fa, fb):
            if la.startswith("#") or la.startswith("frame,"):
                continue
            a = la.rstrip("\n").split(",")
            b = lb.rstrip("\n").split(",")
            # frame,x,y,u,v,exx,eyy,exy,zncc,iterations,status,...
            converged[0] += a[10] == "converged"
            converged[1] += b[10] == "converged"
            if a[10] != b[10]:
                transitions[(a[10], b[10])] += 1
                if len(examples) < 16:
                    examples.append((a[:3], a[3:11], b[3:11]))
    print("status transitions (before -> after):", dict(transitions),
          "converged before", converged[0], "after", converged[1])
    for point, before, after in examples:
        print(point, "before", before, "after", after)


if __name__ == "__main__":
    main()
