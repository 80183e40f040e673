#!/usr/bin/env python3
"""Two results CSVs of the same run shape (e.g. `xcorr dic` by two builds) compared row by row:
how many rows differ, and per column how many values differ and by how much at most (numbers),
or how many differ (text), and the first few differing rows.
Usage: scripts/gpu/compare_csv.py A.csv B.csv [--show N]"""
import itertools
import sys


def number(v):
    try:
        return float(v)
    except ValueError:
        return None


def main():
    a_path, b_path = sys.argv[1], sys.argv[2]
    show = int(sys.argv[sys.argv.index("--show") + 1]) if "--show" in sys.argv else 5
    header, rows, differ = None, 0, 0
    count, worst, shown = {}, {}, []
    with open(a_path) as fa, open(b_path) as fb:
        for la, lb in itertools.zip_longest(fa, fb):
            if la is None or lb is None:
                print("the files have different numbers of rows")
                return 1
            if header is None and not la.startswith("#"):
                header = la.rstrip("\n").split(",")
                continue
            rows += 1
            if la == lb:
                continue
            differ += 1
            if len(shown) < show:
                shown.append((la.rstrip("\n"), lb.rstrip("\n")))
            for i, (x, y) in enumerate(zip(la.rstrip("\n").split(","), lb.rstrip("\n").split(","))):
                if x == y:
                    continue
                name = header[i] if header and i < len(header) else str(i)
                count[name] = count.get(name, 0) + 1
                nx, ny = number(x), number(y)
                if nx is not None and ny is not None:
                    worst[name] = max(worst.get(name, 0.0), abs(nx - ny))
    print(f"{differ} of {rows} rows differ")
    for name, n in count.items():
        extra = f", max |difference| {worst[name]:.3g}" if name in worst else ""
        print(f"  {name}: {n} differ{extra}")
    for x, y in shown:
        print(f"  < {x}\n  > {y}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
