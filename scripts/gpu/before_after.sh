#!/usr/bin/env bash
# A refactoring's check on the GPU machine (after tar -xJf .gpu.txz; scripts/gpu/pack.sh, then
# the base commit's engine `xcorr` copied to .gpu/before/xcorr): the packed test binaries (the GPU
# ones run for real here), then the benchmarks of both builds side by side in one run, in
# alternation (before, after, before, after) so that the card's state weighs on both alike:
#   dic      xcorr bench-dic, 2048 x 2048 pair, subset 31, step 4, search radius 10 (points/s)
#   anchors  xcorr bench --cases anchors (the 18 anchor cases, every GPU variant and auto)
# XCORR_PHASE: tests, bench or all (default). Results in $OUT: summary.txt, the JSON rows;
# scripts/bench/before_after_table.py makes the table.
set -uo pipefail
out=${OUT:-/tmp/xcorr-gpu-out}
mkdir -p "$out/logs"
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
phase=${XCORR_PHASE:-all}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/device.txt" 2>&1
if [ "$phase" = tests ] || [ "$phase" = all ]; then
  for t in .gpu/bin/test_gpu_* $(ls .gpu/bin/test_* | grep -v /test_gpu_); do
    name=$(basename "$t")
    if timeout "${XCORR_TEST_TIMEOUT:-150}" "$t" > "$out/logs/$name.log" 2>&1; then s=ok; else s=FAILED; fi
    printf '%-40s %-6s %s\n' "$name" "$s" \
      "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?[,.]' "$out/logs/$name.log" | tr '\n' ' ')"
  done | tee "$out/summary.txt"
fi
if [ "$phase" = bench ] || [ "$phase" = all ]; then
  for round in 1 2; do
    for build in before after; do
      exe=.gpu/before/xcorr
      [ "$build" = after ] && exe=.gpu/bin/xcorr
      timeout 90 "$exe" bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu \
        --repeats 5 --out "$out/dic-$build-$round.json" > "$out/logs/dic-$build-$round.txt" 2>&1
      echo "bench-dic $build round $round: exit $?"
    done
  done
  for build in before after; do
    exe=.gpu/before/xcorr
    [ "$build" = after ] && exe=.gpu/bin/xcorr
    timeout 200 "$exe" bench --cases anchors --warmup 3 --repeats 10 --out "$out/anchors-$build.json" \
      > "$out/logs/anchors-$build.txt" 2>&1
    echo "bench anchors $build: exit $?"
  done
fi
