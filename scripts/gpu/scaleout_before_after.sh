#!/usr/bin/env bash
# A change to the scale-out path, checked on the GPU machine (after tar -xJf .gpu.txz, with the
# base commit's engine `xcorr` at .gpu/before/xcorr): both builds side by side in one run, in
# alternation (before, after; two rounds), on one GPU and on two (and every GPU):
#   xcorr bench-register --size 2048 --frames 1000 --distinct 32 --device gpu --from-host
#     --devices D (frames/s from host memory)
#   xcorr bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu --devices D
#     --frames N (the stack pipeline; N = XCORR_PIPELINE_FRAMES, default 100)
# with each GPU's peak memory and the host's peak RSS. Writes $1 (default $OUT)
# /scaleout-before-after.txt and a .json row per run.
set -uo pipefail
out=${1:-$OUT}
log=$out/scaleout-before-after.txt
. "$(dirname "$0")/scaleout_common.sh"
frames=${XCORR_PIPELINE_FRAMES:-100}
for round in 1 2; do
  for devices in $sets; do
    for build in before after; do
      exe=.gpu/before/xcorr
      [ "$build" = after ] && exe=.gpu/bin/xcorr
      name="${devices//,/_}-$build-r$round"
      echo "== $build, devices $devices, round $round" | tee -a "$log"
      with_peaks "$exe" bench-register --size 2048 --frames 1000 --distinct 32 --device gpu \
        --from-host --devices "$devices" --out "$out/register-$name.json"
      with_peaks "$exe" bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 \
        --device gpu --devices "$devices" --frames "$frames" --repeats 2 \
        --out "$out/dic-$name.json"
    done
  done
done
