#!/usr/bin/env bash
# Runs on the GPU machine (after tar -xJf .gpu.txz; scripts/gpu/pack.sh): the GPU engine on the
# GPUs labs have (docs/perf/gpu-support.md). XCORR_PHASE picks the part:
#   fallback - `xcorr list` as each lab profile, cuobjdump of the programs, the fallback of a
#              build without kernels for this GPU (.gpu/sm80/xcorr), the first-run JIT cost.
#   suites   - the GPU test suite in every configuration at once (XCORR_CONFIGS; XCORR_SUITE
#              names the binaries): as built, CUDA_FORCE_PTX_JIT=1 (the compute_75 PTX), and as
#              each emulated profile (XCORR_GPU_PROFILE); a summary line per binary as it ends.
#   bench    - per configuration, one after another: `xcorr bench --cases anchors` (every variant,
#              auto and auto_tuned) and the 2048^2 DIC at subset 31 (R 10).
# Everything lands in $OUT/results.tar.gz and $OUT/summary.txt.
set -uo pipefail
out=${OUT:-/tmp/xcorr-gpu-out}
res=$(mktemp -d)
mkdir -p "$out" "$res/logs"
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
x=.gpu/bin/xcorr
configs="plain jit t4 a100 rtx3090 rtx4090 rtx5090"
env_for() {  # the environment of a configuration
  case $1 in
    plain) echo "" ;;
    jit) echo "CUDA_FORCE_PTX_JIT=1" ;;
    *) echo "XCORR_GPU_PROFILE=$1" ;;
  esac
}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader > "$res/device.txt" 2>&1
cat "$res/device.txt"
if [ "${XCORR_PHASE:-suites}" = fallback ]; then
  for c in $configs; do
    echo "== $c" >> "$res/list.txt"
    env $(env_for $c) $x list 2>&1 | sed -n '/^GPU/,$p' >> "$res/list.txt"
  done
  for f in .gpu/bin/xcorr .gpu/pkg/xcorr .gpu/pkg/xcorr-studio .gpu/sm80/xcorr; do
    [ -f "$f" ] || continue
    { echo "== $f"; cuobjdump --list-elf "$f" | sed 's/.*\.\(sm_[0-9]*\)\..*/\1/' | sort | uniq -c;
      cuobjdump --list-ptx "$f" | sed 's/.*\.\(sm_[0-9]*\)\..*/PTX \1/' | sort | uniq -c; } >> "$res/cuobjdump.txt" 2>&1
  done
  cat "$res/cuobjdump.txt"
  # The fallback: an sm_80-only build on this sm_90 GPU. Every line, its exit code, and the CSV
  # against the GPU build's CPU run (--method cpu_direct) and the GPU build's own.
  fb=$res/fallback.txt
  s=.gpu/sm80/xcorr
  python3 - "$res" <<'PY'
import sys, random
random.seed(7)
def write(path, rows, cols, count):
    with open(path, "w") as f:
        f.write(f"# {rows},{cols},{count}\n")
        for _ in range(count):
            for _ in range(rows):
                f.write(",".join(f"{random.uniform(-1, 1):.6f}" for _ in range(cols)) + "\n")
write(sys.argv[1] + "/left.csv", 17, 13, 1)
write(sys.argv[1] + "/right.csv", 41, 37, 8)
PY
  run() { echo "\$ $*" >> "$fb"; "$@" >> "$fb" 2>&1; echo "exit $?" >> "$fb"; }
  run $s list
  run $s correlate --form one_to_many --mode valid --norm zncc --left "$res/left.csv" --right "$res/right.csv" --out "$res/fb-auto.csv"
  run $s correlate --form one_to_many --mode valid --norm zncc --left "$res/left.csv" --right "$res/right.csv" --out "$res/fb-gpu.csv" --method gpu_zncc_tiled
  run $s bench-dic --size 256 --step 8 --subset 31 --device auto --repeats 1 --out "$res/fb-dic-auto.json"
  run $s bench-dic --size 256 --step 8 --subset 31 --device gpu --repeats 1 --out "$res/fb-dic-gpu.json"
  run $s bench-register --size 256 --frames 8 --distinct 8 --device gpu --out "$res/fb-reg-gpu.json"
  run env CUDA_VISIBLE_DEVICES= $x correlate --form one_to_many --mode valid --norm zncc --left "$res/left.csv" --right "$res/right.csv" --out "$res/cpu.csv" --quiet
  run $x correlate --form one_to_many --mode valid --norm zncc --left "$res/left.csv" --right "$res/right.csv" --out "$res/gpu-build-auto.csv" --quiet
  { echo "cmp: the sm_80 build's auto run vs the GPU build with no GPU visible (CPU only):";
    cmp "$res/fb-auto.csv" "$res/cpu.csv" && echo identical; } >> "$fb" 2>&1
  cat "$fb"
  # First-run JIT of the compute_75 PTX (a fresh JIT cache), then the cached second run.
  # The driver's cache as a user has it (~/.nv/ComputeCache, 256 MiB unless CUDA_CACHE_MAXSIZE).
  rm -rf ~/.nv/ComputeCache
  for i in 1 2; do
    /usr/bin/time -f "jit run $i: %e s wall" env CUDA_FORCE_PTX_JIT=1 \
      $x bench-dic --size 512 --step 8 --subset 31 --device gpu --repeats 1 --out "$res/jit-dic-$i.json" >> "$res/jit.txt" 2>&1
    /usr/bin/time -f "jit correlate $i: %e s wall" env CUDA_FORCE_PTX_JIT=1 \
      $x correlate --form one_to_many --mode valid --norm zncc --left "$res/left.csv" --right "$res/right.csv" --out "$res/jit-$i.csv" --quiet >> "$res/jit.txt" 2>&1
    du -sh ~/.nv/ComputeCache >> "$res/jit.txt" 2>&1
  done
  for i in 1 2; do
    /usr/bin/time -f "jit run, 4 GiB cache, $i: %e s wall" env CUDA_FORCE_PTX_JIT=1 CUDA_CACHE_MAXSIZE=4294967295 \
      $x bench-dic --size 512 --step 8 --subset 31 --device gpu --repeats 1 --out "$res/jit4-dic-$i.json" >> "$res/jit.txt" 2>&1
    du -sh ~/.nv/ComputeCache >> "$res/jit.txt" 2>&1
  done
  /usr/bin/time -f "sass run: %e s wall" $x bench-dic --size 512 --step 8 --subset 31 --device gpu --repeats 1 --out "$res/sass-dic.json" >> "$res/jit.txt" 2>&1
  grep -E "wall|points|Compute" "$res/jit.txt"
fi
if [ "${XCORR_PHASE:-suites}" = suites ]; then
  # The suites, all configurations at once (16 cores; every test compares with float64 on the CPU).
  export CUDA_CACHE_MAXSIZE=2147483648
  for c in ${XCORR_CONFIGS:-$configs}; do
    (
      mkdir -p "$res/logs/$c"
      export XCORR_TUNING_CACHE=$res/logs/$c/tuning.json
      for t in ${XCORR_SUITE:-device_test gpu_variants_test dic_gpu_test phase_gpu_test on_devices_test dic_multi_gpu_test profile_test counters_test}; do
        t=.gpu/bin/test_gpu_$t
        name=$(basename "$t")
        t0=$(date +%s)
        if env $(env_for $c) timeout "${XCORR_TEST_TIMEOUT:-300}" "$t" > "$res/logs/$c/$name.log" 2>&1; then st=ok; else st=FAILED; fi
        line=$(printf '%-8s %-32s %-6s %4ss %s' "$c" "$name" "$st" "$(( $(date +%s) - t0 ))" \
          "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?[,.]' "$res/logs/$c/$name.log" | tr '\n' ' ')")
        echo "$line" >> "$out/summary.txt"   # as each binary ends: a cut run still reports
        echo "$line"
        [ $st = FAILED ] && grep -E -B2 -A6 "Failure|FAILED  \]" "$res/logs/$c/$name.log" | head -40 >> "$out/failures.txt"
      done > "$res/logs/$c/summary.txt"
    ) &
  done
  wait
  sort "$out/summary.txt"
  [ -f "$out/failures.txt" ] && head -80 "$out/failures.txt"
fi
if [ "${XCORR_PHASE:-suites}" = bench ]; then
  for c in ${XCORR_CONFIGS:-$configs}; do
    export XCORR_TUNING_CACHE=$res/tuning-$c.json
    env $(env_for $c) timeout "${XCORR_BENCH_TIMEOUT:-150}" $x bench --cases anchors --repeats "${XCORR_BENCH_REPEATS:-10}" \
      --out "$res/bench-$c.json" > "$res/logs/bench-$c.txt" 2>&1
    echo "bench $c: exit $?"
    env $(env_for $c) timeout 60 $x bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu \
      --repeats 3 --out "$res/dic-$c.json" > "$res/logs/dic-$c.txt" 2>&1
    echo "dic $c: exit $? $(grep -E 'points/s' "$res/logs/dic-$c.txt" | head -1)"
  done | tee "$out/summary.txt"
fi
tar -C "$res" -czf "$out/results.tar.gz" .
