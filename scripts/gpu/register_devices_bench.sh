#!/usr/bin/env bash
# Phase registration shared among GPUs on the GPU machine (after tar -xJf .gpu.txz, from the
# repository root): xcorr bench-register at 2048^2 (1000 frames, the defaults: Tukey window,
# upsample 100, 2 iterations), the frames from host memory in the engine's blocks as registration
# hands them (--from-host; the uploads in the time), on one GPU and on two (and every GPU), two
# rounds interleaved, beside the one-GPU run with the frames on the device first; with each GPU's
# peak memory (nvidia-smi, every 100 ms) and the host's peak RSS (/usr/bin/time). Writes $1
# (default $OUT) /register-devices.txt and a .json row per run.
set -uo pipefail
out=${1:-$OUT}
log=$out/register-devices.txt
. "$(dirname "$0")/scaleout_common.sh"
frames=${XCORR_REGISTER_FRAMES:-1000}
bench() {  # name, then bench-register's arguments
  local name=$1
  shift
  with_peaks .gpu/bin/xcorr bench-register --size 2048 --frames "$frames" --distinct 32 \
    --device gpu "$@" --out "$out/register-$name.json"
}
for round in 1 2; do
  bench "resident-r$round"
  for devices in $sets; do
    bench "host-${devices//,/_}-r$round" --from-host --devices "$devices"
  done
done
