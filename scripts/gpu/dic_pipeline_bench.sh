#!/usr/bin/env bash
# The DIC stack pipeline on the GPU machine (after tar -xJf .gpu.txz, from the repository root):
# bench-dic on a 2048^2 stack (subset 31, step 4, R 10, defaults) with each frame's results
# taken before the next frame starts (--sequential) and pipelined, on one GPU, two and every GPU,
# in one run; with the peak memory of each GPU (nvidia-smi, every 100 ms) and the host's peak
# RSS (/usr/bin/time) of each command. Writes $1 (default $OUT) /dic-pipeline.txt and .json rows.
set -uo pipefail
out=${1:-$OUT}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log=$out/dic-pipeline.txt
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$log"
echo "host: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB" | tee -a "$log"
count=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
all=$(seq -s, 0 $((count - 1)))
sets="0"
[ "$count" -gt 1 ] && sets="$sets 0,1"
[ "$count" -gt 2 ] && sets="$sets $all"
frames=${XCORR_PIPELINE_FRAMES:-100}
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f "host peak RSS %M KiB")
for devices in $sets; do
  for mode in --sequential ""; do
    nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 100 > "$out/mem.csv" &
    smi=$!
    "${timer[@]}" .gpu/bin/xcorr bench-dic --size 2048 --step 4 \
      --subset 31 --search-radius 10 --device gpu --devices "$devices" --frames "$frames" \
      --repeats 2 $mode --out "$out/dic-pipeline-${devices//,/+}${mode:+-sequential}.json" 2>&1 |
      grep -v rendering | tee -a "$log"
    kill $smi; wait $smi 2>/dev/null
    awk -F', ' '{ if ($2 > m[$1]) m[$1] = $2 } END { for (g in m) printf "  GPU %s peak %d MiB\n", g, m[g] }' \
      "$out/mem.csv" | sort | tee -a "$log"
  done
done
rm -f "$out/mem.csv"
