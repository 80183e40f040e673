# Sourced by the scale-out benchmarks (dic_pipeline_bench.sh, register_devices_bench.sh) on the
# GPU machine, from the repository root, after `out` and `log` are set: the machine in the log,
# the device sets to compare (`sets`: 0, 0,1 and every GPU where there are more), and
# `with_peaks CMD...`: CMD's output into the log, with each GPU's peak memory (nvidia-smi, every
# 100 ms) and the host's peak RSS (/usr/bin/time) after it.
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$log"
echo "host: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB" | tee -a "$log"
count=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
all=$(seq -s, 0 $((count - 1)))
sets="0"
[ "$count" -gt 1 ] && sets="$sets 0,1"
[ "$count" -gt 2 ] && sets="$sets $all"
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f "host peak RSS %M KiB")
with_peaks() {
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 100 > "$out/mem.csv" &
  local smi=$!
  # (progress bars, which redraw a line, left out)
  "${timer[@]}" "$@" 2>&1 | tr '\r' '\n' | grep -v -e rendering -e 'frames/s ETA' | tee -a "$log"
  kill $smi; wait $smi 2>/dev/null
  awk -F', ' '{ if ($2 > m[$1]) m[$1] = $2 } END { for (g in m) printf "  GPU %s peak %d MiB\n", g, m[g] }' \
    "$out/mem.csv" | sort | tee -a "$log"
  rm -f "$out/mem.csv"
}
