#!/usr/bin/env bash
# An IC-GN kernel change checked on the GPU machine (after tar -xJf .gpu.txz, with the base
# commit's engine `xcorr` at .gpu/before/xcorr): the packed DIC GPU tests, then both builds side
# by side in one run, in alternation (before, after; two rounds) on the issue's frame,
#   xcorr bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu
# at the defaults (quintic, prefilter 0.6; 5 repeats, every point's result compared bit for bit
# between the builds: --points) and with --interpolation cubic --prefilter 0 (5 repeats), and
# the same frame as a 100-frame stack on one GPU (--frames 100, pipelined), then Nsight Compute
# on both builds' quintic icgn_kernel (XCORR_NCU=0 leaves it out).
# Writes $1 (default $OUT): icgn-before-after.txt (the stage lines), ncu-before.txt,
# ncu-after.txt, the tests' logs.
set -uo pipefail
out=${1:-$OUT}
log=$out/icgn-before-after.txt
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log"
for t in .gpu/bin/test_gpu_dic*; do
  timeout 300 "$t" > "$out/$(basename "$t").log" 2>&1
  rc=$?
  echo "$(basename "$t"): exit $rc $(grep -E '^\[  (PASSED|FAILED) ' "$out/$(basename "$t").log" | tr '\n' ' ')" | tee -a "$log"
done
frame=(bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu)
for round in 1 2; do
  for config in "" "--interpolation cubic --prefilter 0" "--frames 100 --repeats 2"; do
    for build in before after; do
      exe=.gpu/before/xcorr
      [ "$build" = after ] && exe=.gpu/bin/xcorr
      extra=(--repeats 5)
      [ -z "$config" ] && extra+=(--points "/tmp/points-$build.csv")
      [ "${config#--frames}" != "$config" ] && extra=()
      echo "== $build, round $round, config: ${config:-defaults}" | tee -a "$log"
      # shellcheck disable=SC2086
      timeout 200 "$exe" "${frame[@]}" "${extra[@]}" $config 2>&1 |
        grep -E '^(gpu|  stages|  per frame)' | tail -4 | tee -a "$log"
    done
    if [ -z "$config" ]; then
      if cmp -s /tmp/points-before.csv /tmp/points-after.csv; then same=identical; else same=DIFFERENT; fi
      echo "every point's result, before vs after: $same ($(($(wc -l < /tmp/points-after.csv) - 1)) points)" | tee -a "$log"
      scripts/gpu/compare_points.sh /tmp/points-before.csv /tmp/points-after.csv | tee -a "$log"
    fi
  done
done
if [ "${XCORR_NCU:-1}" = 1 ]; then
  for build in before after; do
    exe=.gpu/before/xcorr
    [ "$build" = after ] && exe=.gpu/bin/xcorr
    ncu --clock-control none -k regex:icgn_kernel --launch-count 1 --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
      --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis \
      --section InstructionStats --print-details all \
      "$exe" "${frame[@]}" --repeats 1 > "$out/ncu-$build.txt" 2>&1
    echo "== Nsight Compute, $build" | tee -a "$log"
    grep -E 'Duration|Registers Per|Theoretical Occ|Achieved Occ|Executed Instructions  |Issued Warp|Stall (No Inst|Wait|Long)|Spilling Requests  ' \
      "$out/ncu-$build.txt" | sort -u | tee -a "$log"
  done
fi
