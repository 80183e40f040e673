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
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log=$out/register-devices.txt
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$log"
echo "host: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB" | tee -a "$log"
count=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
all=$(seq -s, 0 $((count - 1)))
sets="0"
[ "$count" -gt 1 ] && sets="$sets 0,1"
[ "$count" -gt 2 ] && sets="$sets $all"
frames=${XCORR_REGISTER_FRAMES:-1000}
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f "host peak RSS %M KiB")
run() {  # name, then bench-register's arguments
  local name=$1
  shift
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 100 > "$out/mem.csv" &
  local smi=$!
  "${timer[@]}" .gpu/bin/xcorr bench-register --size 2048 --frames "$frames" --distinct 32 \
    --device gpu "$@" --out "$out/register-$name.json" 2>&1 | grep -v rendering | tee -a "$log"
  kill $smi; wait $smi 2>/dev/null
  awk -F', ' '{ if ($2 > m[$1]) m[$1] = $2 } END { for (g in m) printf "  GPU %s peak %d MiB\n", g, m[g] }' \
    "$out/mem.csv" | sort | tee -a "$log"
}
for round in 1 2; do
  run "resident-r$round"
  for devices in $sets; do
    run "host-${devices//,/_}-r$round" --from-host --devices "$devices"
  done
done
rm -f "$out/mem.csv"
