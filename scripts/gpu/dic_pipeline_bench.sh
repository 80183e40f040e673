#!/usr/bin/env bash
# The DIC stack pipeline on the GPU machine (after tar -xJf .gpu.txz, from the repository root):
# bench-dic on a 2048^2 stack (subset 31, step 4, R 10, defaults) with each frame's results
# taken before the next frame starts (--sequential) and pipelined, on one GPU, two and every GPU,
# in one run; with the peak memory of each GPU (nvidia-smi, every 100 ms) and the host's peak
# RSS (/usr/bin/time) of each command. Writes $1 (default $OUT) /dic-pipeline.txt and .json rows.
set -uo pipefail
out=${1:-$OUT}
log=$out/dic-pipeline.txt
. "$(dirname "$0")/scaleout_common.sh"
frames=${XCORR_PIPELINE_FRAMES:-100}
for devices in $sets; do
  for mode in --sequential ""; do
    with_peaks .gpu/bin/xcorr bench-dic --size 2048 --step 4 \
      --subset 31 --search-radius 10 --device gpu --devices "$devices" --frames "$frames" \
      --repeats 2 $mode --out "$out/dic-pipeline-${devices//,/+}${mode:+-sequential}.json"
  done
done
