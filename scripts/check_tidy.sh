#!/usr/bin/env bash
# clang-tidy with the checks of .clang-tidy on every C++ file of the product the build compiles
# (its compile_commands.json: app, core, gpu, ui, python; CUDA files are left out), two at a time.
# Fails naming each finding. The tests' own files (tests/: 104 files, where each UI test parses Qt
# and GoogleTest for about 20 s) are checked with XCORR_TIDY_TESTS=1, which CI leaves out to stay
# within its time; CI builds them with warnings as errors.
# Usage: scripts/check_tidy.sh [BUILD_DIR]   (default build/ci)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
mapfile -t files < <(python3 -c '
import json, os, sys
seen = set()
for e in json.load(open(sys.argv[1] + "/compile_commands.json")):
    f = e["file"]
    top = os.path.relpath(f).split(os.sep)[0]  # the repository folder it is in
    if f.endswith(".cpp") and top != "build" and f not in seen and (
            sys.argv[2] == "1" or top != "tests"):
        seen.add(f)
        print(f)' "$build" "${XCORR_TIDY_TESTS:-0}")
start=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# -Wno-unknown-warning-option: g++'s -Wno-restrict is not clang's.
if ! printf '%s\0' "${files[@]}" | xargs -0 -n 4 -P "${XCORR_TIDY_JOBS:-2}" \
     clang-tidy -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option > "$log" 2>&1; then
  grep -E "(warning|error):" "$log" | sort -u
  echo "clang-tidy: findings above (checks and why: .clang-tidy)"
  exit 1
fi
echo "clang-tidy: ${#files[@]} files clean in $(( $(date +%s) - start )) s"
