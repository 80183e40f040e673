#!/usr/bin/env bash
# Two builds' `xcorr dic` on one 2048^2 16-bit speckle stack file (51 pages: the reference and 50
# frames, 0.3 px down and 0.2 px right a frame), on the GPU, subset 31, step 4, R 10, defaults,
# in alternation, ROUNDS rounds (default 2): the product's own path (TIFF pages read ahead,
# decoded, registered, checked, written as CSV). Each run's wall time, `xcorr dic`'s own
# summary, its peak host RSS and the GPU's peak memory in use (nvidia-smi, sampled every 0.1 s);
# the CSVs compared byte for byte with the first build's, and where they differ, column by column
# (scripts/gpu/compare_csv.py).
# Usage: scripts/gpu/dic_stack_before_after.sh OUT NAME=EXE [NAME=EXE ...]  (after tar -xJf
# .gpu.txz); DIC_ARGS: more `xcorr dic` arguments for every build (e.g. --timings).
# Writes OUT/dic-stack.txt.
set -uo pipefail
out=$1
shift
log=$out/dic-stack.txt
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
work=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log"
"${1#*=}" speckle --out "$work/stack.tif" --size 2048,2048 --frames 51 --shift 0.3,0.2 --bits 16 |
  tee -a "$log"
first=""
for round in $(seq "${ROUNDS:-2}"); do
  for build in "$@"; do
    name=${build%%=*} exe=${build#*=}
    [ -z "$first" ] && first=$name
    echo "== $name, round $round" | tee -a "$log"
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$work/gpu-mem" &
    sampler=$!
    start=$(date +%s.%N)
    python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print("  peak host RSS %.0f MiB" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024))
sys.exit(rc)' timeout 300 "$exe" dic --reference "$work/stack.tif" --out "$work/$name.csv" \
      --subset 31 --step 4 --search-radius 10 --device gpu ${DIC_ARGS:-} 2>&1 | grep -E 'points in|peak|^time:|^per frame' |
      tee -a "$log"
    echo "  wall $(awk "BEGIN { print $(date +%s.%N) - $start }") s" | tee -a "$log"
    kill "$sampler"
    echo "  GPU memory in use, peak $(sort -n "$work/gpu-mem" | tail -1) MiB" | tee -a "$log"
    if [ "$name" != "$first" ]; then
      if cmp -s "$work/$first.csv" "$work/$name.csv"; then
        echo "  CSV: the same bytes as $first's" | tee -a "$log"
      else  # which rows and columns differ, and by how much (the header's lines included)
        python3 scripts/gpu/compare_csv.py "$work/$first.csv" "$work/$name.csv" --show 3 |
          sed 's/^/  /' | tee -a "$log"
      fi
    fi
  done
done
rm -rf "$work"
