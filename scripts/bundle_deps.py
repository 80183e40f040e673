#!/usr/bin/env python3
"""What each direct dependency of a program brings into the bundle (scripts/bundle.sh).

For every library the program names (DT_NEEDED), the libraries it loads with it (ldd's closure)
and those that only it brings (no other direct dependency loads them): their count and MiB.
glibc, libstdc++ and libgcc_s (the bundle's floor, left to the host) are not counted.
Usage: scripts/bundle_deps.py PROGRAM [LIBRARY ...]
  LIBRARY: sonames to take as the direct dependencies instead of the program's own (what an
  earlier build named), resolved where the loader finds them.
Prints a Markdown table.
"""
import os
import re
import subprocess
import sys

FLOOR = re.compile(r"^(ld-linux-x86-64\.so\.2|lib(c|m|dl|rt|pthread|resolv|util|anl)\.so\.\d+|"
                   r"libstdc\+\+\.so\.6|libgcc_s\.so\.1)$")


def closure(path):
    """soname -> resolved path of everything `path` loads (ldd), floor excluded."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True, check=True).stdout
    libs = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if m and not FLOOR.match(m.group(1)):
            libs[m.group(1)] = os.path.realpath(m.group(2))
    return libs


def mib(paths):
    return sum(os.path.getsize(p) for p in set(paths)) / 2**20


def main():
    program = sys.argv[1]
    everything = closure(program)
    if len(sys.argv) > 2:
        direct = sys.argv[2:]
        resolved = {}
        for name in direct:
            found = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
            m = re.search(r"^\s*" + re.escape(name) + r" .*=> (\S+)$", found, re.M)
            resolved[name] = os.path.realpath(m.group(1))
        everything = {}
        for name, path in resolved.items():
            everything[name] = path
            everything.update(closure(path))
    else:
        needed = subprocess.run(["readelf", "-d", program], capture_output=True, text=True,
                                check=True).stdout
        direct = [n for n in re.findall(r"\[(.+?)\]", needed)
                  if "Shared library" in needed and not FLOOR.match(n) and n in everything]
        resolved = {n: everything[n] for n in direct}
    brings = {n: {n: p, **closure(p)} for n, p in resolved.items()}
    print(f"{os.path.basename(program)}: {len(everything)} libraries, "
          f"{mib(everything.values()):.1f} MiB (glibc, libstdc++, libgcc_s not counted)\n")
    print("| direct dependency | loads (with itself) | MiB | only it brings | MiB |")
    print("|---|---:|---:|---:|---:|")
    for name in sorted(brings, key=lambda n: -mib(brings[n].values())):
        others = set()
        for other, libs in brings.items():
            if other != name:
                others |= set(libs)
        only = {k: v for k, v in brings[name].items() if k not in others}
        print(f"| {name} | {len(brings[name])} | {mib(brings[name].values()):.1f} | "
              f"{len(only)} | {mib(only.values()):.1f} |")


if __name__ == "__main__":
    main()
