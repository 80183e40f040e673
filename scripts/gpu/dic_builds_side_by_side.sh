#!/usr/bin/env bash
# Several builds' `xcorr` side by side in one run on the GPU machine (after tar -xJf .gpu.txz),
# in alternation, ROUNDS rounds (default 2), on the DIC issue's 2048^2 frame, subset 31, step 4,
# R 10, defaults:
#   one frame (bench-dic --repeats 3 --points: every point's result; the builds' files compared
#   column by column with the first build's) and a 100-frame stack on one GPU, pipelined.
# Usage: scripts/gpu/dic_builds_side_by_side.sh OUT NAME=EXE [NAME=EXE ...]
# Writes OUT/dic-builds.txt.
set -uo pipefail
out=$1
shift
log=$out/dic-builds.txt
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log"
frame=(bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu)
first=""
for round in $(seq "${ROUNDS:-2}"); do
  for build in "$@"; do
    name=${build%%=*} exe=${build#*=}
    [ -z "$first" ] && first=$name
    echo "== $name, round $round: one frame" | tee -a "$log"
    timeout 200 "$exe" "${frame[@]}" --repeats 3 --points "/tmp/points-$name.csv" 2>&1 |
      grep -E '^(gpu|  stages)' | tail -2 | tee -a "$log"
    if [ "$name" != "$first" ]; then
      echo "  every point against $first:" | tee -a "$log"
      scripts/gpu/compare_points.sh "/tmp/points-$first.csv" "/tmp/points-$name.csv" "    " |
        tee -a "$log"
    fi
    echo "== $name, round $round: 100-frame stack" | tee -a "$log"
    timeout 200 "$exe" "${frame[@]}" --frames 100 --repeats 2 2>&1 | grep -E '^(gpu|  per frame)' |
      tee -a "$log"
  done
done
