#!/usr/bin/env bash
# Runs on the GPU machine from the repository root: every packed test binary (GPU tests run
# for real there), then a one-line-per-binary summary. Only a few files come back from that
# machine, so $OUT holds summary.txt and logs.tar.gz (all logs and JUnit XML).
set -uo pipefail
out=${OUT:-/tmp/xcorr-gpu-out}
logs=$(mktemp -d)
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$logs/device.txt" 2>&1
.gpu/bin/xcorr list > "$logs/xcorr-list.txt" 2>&1
for t in .gpu/bin/test_*; do
  name=$(basename "$t")
  if timeout 300 "$t" --gtest_output=xml:"$logs/$name.xml" > "$logs/$name.log" 2>&1; then status=ok; else status=FAILED; fi
  printf '%-40s %-6s %s\n' "$name" "$status" \
    "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?[,.]' "$logs/$name.log" | tr '\n' ' ')"
done | tee "$out/summary.txt"
# Benchmarks: ours, then the anchors, in the same run on the same GPU.
if [ "${XCORR_GPU_BENCH:-1}" = 1 ]; then
  .gpu/bin/xcorr bench --repeats "${XCORR_BENCH_REPEATS:-20}" --out "$out/bench.json" > "$logs/bench.txt" 2>&1
  echo "xcorr bench: exit $?"; tail -n 30 "$logs/bench.txt"
  if [ -f .gpu/tools/anchor_bench.py ]; then
    python3 .gpu/tools/anchor_bench.py "$out/anchors.json" > "$logs/anchors.txt" 2>&1; echo "anchor_bench: exit $?"
  fi
fi
# DIC speed (2048x2048 pair, subset 31, step 4): GPU (device-resident) and this host's CPU.
if [ "${XCORR_DIC_BENCH:-1}" = 1 ]; then
  for r in 10 2; do
    .gpu/bin/xcorr bench-dic --size 2048 --step 4 --search-radius $r --device gpu --repeats 3 \
      --out "$out/dic-gpu-r$r.json" >> "$logs/bench-dic.txt" 2>&1; echo "bench-dic gpu r$r: exit $?"
  done
  .gpu/bin/xcorr bench-dic --size 2048 --step 4 --device gpu --repeats 3 \
    --method gpu_basic --out "$out/dic-gpu-r10-basic.json" >> "$logs/bench-dic.txt" 2>&1
  echo "bench-dic gpu r10 gpu_basic: exit $?"
  .gpu/bin/xcorr bench-dic --size 2048 --step 4 --device cpu --repeats 1 \
    --out "$out/dic-cpu.json" >> "$logs/bench-dic.txt" 2>&1; echo "bench-dic cpu: exit $?"
  grep -E "points/s" "$logs/bench-dic.txt"
fi
# Profiles of the two problems with hardware counters (CUPTI) beside the models, and
# the shared-memory instructions in the SASS of the modelled kernels (to read the model against).
if [ "${XCORR_PROFILE:-1}" = 1 ]; then
  .gpu/bin/xcorr profile --form one_to_many --size 64 --m 16 --repeats 20 \
    --out "$out/profile-one_to_many-64-x16.json" > "$out/profile-one_to_many-64-x16.txt" 2>&1
  echo "profile one_to_many 64 x16: exit $?"
  .gpu/bin/xcorr profile --form n_to_mn --size 32 --n 4096 --m 1 --repeats 10 \
    --out "$out/profile-n_to_mn-32-x4096.json" > "$out/profile-n_to_mn-32-x4096.txt" 2>&1
  echo "profile n_to_mn 32 x4096: exit $?"
  if command -v cuobjdump > /dev/null; then
    cuobjdump -sass .gpu/bin/xcorr | grep -E "Function : .*(tiled|warp_per_shift_shared|block_per_shift)|LDS|STS" \
      > "$out/sass-smem.txt" 2>&1
  fi
fi
tar -C "$logs" -czf "$out/logs.tar.gz" .
cat "$logs/device.txt" "$logs/xcorr-list.txt"
grep -v -E '^\[ +(RUN|OK) ' "$logs/test_gpu_device_test.log"
