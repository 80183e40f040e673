#!/usr/bin/env bash
# Runs on the GPU machine from the repository root (after tar -xJf .gpu.txz): every packed test
# binary (GPU tests run for real there), then the benchmarks with their anchors in the same run.
# Only a few files come back from that machine, so $OUT holds summary.txt and results.tar.gz
# (every log, JUnit XML and JSON table). Switches: XCORR_TESTS, XCORR_GPU_BENCH, XCORR_DIC_BENCH,
# XCORR_REG_BENCH, XCORR_VOL_BENCH, XCORR_TRANSFORM_BENCH, XCORR_PROFILE (1 = run, the default), XCORR_BENCH_CASES (xcorr bench --cases, default all),
# XCORR_TEST_TIMEOUT (seconds per test binary, default 150; the counters test 330), XCORR_ANCHOR_TIMEOUT (anchor_bench.py, default 450), XCORR_TEST_FILTER (an extended
# regular expression on the binaries' names; default all), XCORR_NCU (1 = Nsight Compute on the
# 2048^2 DIC's kernels, subset 31, R 10; default 1), XCORR_DIC_METHODS (more guess variants for
# the R 10 DIC, e.g. "gpu_zncc_tiled:rows_per_thread=8"), XCORR_DIC_METHOD_SUBSETS (the subsets
# they run at, default 31; gpu_basic runs at 31 only), XCORR_BENCH_VARIANTS (xcorr bench
# --variants, default every GPU variant). XCORR_RES names the folder that
# collects the results (default: a new temporary one); a caller that bounds the whole run with
# `timeout` can set it and pack the folder itself when the run is cut short.
set -uo pipefail
out=${OUT:-/tmp/xcorr-gpu-out}
res=${XCORR_RES:-$(mktemp -d)}
mkdir -p "$out" "$res/logs"
logs=$res/logs
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$res/device.txt" 2>&1
.gpu/bin/xcorr list > "$res/xcorr-list.txt" 2>&1
if [ "${XCORR_TESTS:-1}" = 1 ]; then
  # GPU tests first: they are what this machine is for.
  for t in .gpu/bin/test_gpu_* $(ls .gpu/bin/test_* | grep -v /test_gpu_); do
    name=$(basename "$t")
    [[ $name =~ ${XCORR_TEST_FILTER:-.} ]] || continue
    limit=${XCORR_TEST_TIMEOUT:-150}
    # The counters test profiles every kernel variant (2,668 launches): 266-269 s on an H200.
    [ "$name" = test_gpu_counters_test ] && limit=${XCORR_TEST_TIMEOUT:-330}
    if timeout "$limit" "$t" --gtest_output=xml:"$logs/$name.xml" > "$logs/$name.log" 2>&1; then status=ok; else status=FAILED; fi
    printf '%-40s %-6s %s\n' "$name" "$status" \
      "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?[,.]' "$logs/$name.log" | tr '\n' ' ')"
  done | tee "$out/summary.txt"
fi
# Benchmarks: ours, then the anchors, in the same run on the same GPU.
if [ "${XCORR_GPU_BENCH:-1}" = 1 ]; then
  timeout "${XCORR_BENCH_TIMEOUT:-240}" .gpu/bin/xcorr bench --cases "${XCORR_BENCH_CASES:-all}" --repeats "${XCORR_BENCH_REPEATS:-20}" \
    ${XCORR_BENCH_VARIANTS:+--variants $XCORR_BENCH_VARIANTS} --out "$res/bench.json" > "$logs/bench.txt" 2>&1
  echo "xcorr bench: exit $?"
  if [ -x .gpu/bin/npp_anchor ]; then
    timeout 120 .gpu/bin/npp_anchor "$res/npp.json" > "$logs/npp.txt" 2>&1; echo "npp_anchor: exit $?"
    cat "$logs/npp.txt"
  fi
  if [ -f .gpu/tools/anchor_bench.py ] && [ "${XCORR_BENCH_CASES:-all}" = all ]; then
    # cuDNN takes minutes on the larger cases (0.7 s per one_to_many 256 x16 call).
    timeout "${XCORR_ANCHOR_TIMEOUT:-450}" python3 .gpu/tools/anchor_bench.py "$res/anchors.json" > "$logs/anchors.txt" 2>&1; echo "anchor_bench: exit $?"
  fi
fi
# Registration (phase method): the drift estimate with the frames on the device, this host's CPU
# path, and the anchor (scikit-image's algorithm batched in PyTorch; cuCIM's when installed).
if [ "${XCORR_REG_BENCH:-1}" = 1 ]; then
  for size in 2048 512; do
    for it in 2 1; do
      timeout 120 .gpu/bin/xcorr bench-register --size $size --frames 1000 --distinct 64 --device gpu \
        --iterations $it --out "$res/register-gpu-$size-it$it.json" >> "$logs/bench-register.txt" 2>&1
      echo "bench-register gpu $size iterations $it: exit $?"
    done
    timeout 120 .gpu/bin/xcorr bench-register --size $size --frames 128 --distinct 64 --device cpu \
      --out "$res/register-cpu-$size.json" >> "$logs/bench-register.txt" 2>&1
    echo "bench-register cpu $size: exit $?"
    timeout 200 python3 .gpu/tools/phase_anchor_torch.py "$res/register-anchor-$size.json" --size $size \
      --frames 1000 >> "$logs/bench-register.txt" 2>&1
    echo "phase anchor $size: exit $?"
  done
  grep -E "frames/s|Error|error" "$logs/bench-register.txt"
fi
# 3-D registration (64 x 512 x 512 volumes, drift up to 10 voxels): the GPU and CPU volume engines
# from host memory, the GPU's with the volumes on the device, and the anchor (scikit-image's algorithm batched in PyTorch, checked against
# scikit-image) on the same volumes. The volumes (600 MB) stay out of the results.
if [ "${XCORR_VOL_BENCH:-1}" = 1 ]; then
  vols=$(mktemp -d)
  timeout 240 .gpu/bin/xcorr bench-register --depth 64 --size 512 --frames 256 --distinct 8 --device gpu \
    --save "$vols" --out "$res/volume-gpu.json" >> "$logs/bench-volume.txt" 2>&1
  echo "bench-register --depth 64 gpu: exit $?"
  timeout 240 .gpu/bin/xcorr bench-register --depth 64 --size 512 --frames 256 --distinct 8 --device gpu \
    --resident --out "$res/volume-gpu-resident.json" >> "$logs/bench-volume.txt" 2>&1
  echo "bench-register --depth 64 gpu --resident: exit $?"
  timeout 240 .gpu/bin/xcorr bench-register --depth 64 --size 512 --frames 16 --distinct 8 --device cpu \
    --out "$res/volume-cpu.json" >> "$logs/bench-volume.txt" 2>&1
  echo "bench-register --depth 64 cpu: exit $?"
  timeout 240 python3 .gpu/tools/volume_anchor_torch.py "$vols" "$res/volume-anchor.json" --volumes 256 \
    >> "$logs/bench-volume.txt" 2>&1
  echo "volume anchor: exit $?"
  rm -rf "$vols"
  grep -E "volumes/s|skimage|Error|error" "$logs/bench-volume.txt"
fi
# Transforms (512 x 512 speckle frames under random rigid, similarity and affine maps): the GPU
# and CPU fitters from host memory, and the anchor pystackreg (single-threaded: it has no
# threads; its wheels from .gpu/wheels unpacked onto PYTHONPATH: the machine's pip may not
# install beside the system's packages) on the same frames.
if [ "${XCORR_TRANSFORM_BENCH:-1}" = 1 ]; then
  if [ -d .gpu/wheels ]; then
    for w in .gpu/wheels/*.whl; do python3 -m zipfile -e "$w" .gpu/pylib; done
    export PYTHONPATH=$PWD/.gpu/pylib${PYTHONPATH:+:$PYTHONPATH}
  fi
  for model in rigid similarity affine; do
    frames=$(mktemp -d)
    timeout 120 .gpu/bin/xcorr bench-register --transform $model --size 512 --frames 2048 --distinct 64 \
      --device gpu --save "$frames" --out "$res/transform-gpu-$model.json" >> "$logs/bench-transform.txt" 2>&1
    echo "bench-register --transform $model gpu: exit $?"
    timeout 120 .gpu/bin/xcorr bench-register --transform $model --size 512 --frames 256 --distinct 64 \
      --device cpu --out "$res/transform-cpu-$model.json" >> "$logs/bench-transform.txt" 2>&1
    echo "bench-register --transform $model cpu: exit $?"
    timeout 120 python3 .gpu/tools/transform_anchor_pystackreg.py "$frames" "$res/transform-anchor-$model.json" \
      >> "$logs/bench-transform.txt" 2>&1
    echo "transform anchor $model: exit $?"
    rm -rf "$frames"
  done
  grep -E "frames/s|Error|error" "$logs/bench-transform.txt"
fi
# DIC speed (2048x2048 pair, subset 31, step 4): GPU (device-resident) and this host's CPU.
if [ "${XCORR_DIC_BENCH:-1}" = 1 ]; then
  for s in 21 31 41; do
    for r in 10 2; do
      timeout 60 .gpu/bin/xcorr bench-dic --size 2048 --step 4 --subset $s --search-radius $r --device gpu \
        --repeats 3 --out "$res/dic-gpu-s$s-r$r.json" >> "$logs/bench-dic.txt" 2>&1
      echo "bench-dic gpu subset $s r$r: exit $?"
    done
  done
  for s in ${XCORR_DIC_METHOD_SUBSETS:-31}; do
    for m in gpu_basic ${XCORR_DIC_METHODS:-}; do
      [ "$m" = gpu_basic ] && [ "$s" != 31 ] && continue
      timeout 60 .gpu/bin/xcorr bench-dic --size 2048 --step 4 --subset $s --device gpu --repeats 3 \
        --method "$m" --out "$res/dic-gpu-s$s-r10-${m//[:=,]/_}.json" >> "$logs/bench-dic.txt" 2>&1
      echo "bench-dic gpu s$s r10 --method $m: exit $?"
    done
  done
  grep -E "points/s|stages" "$logs/bench-dic.txt"
fi
# Nsight Compute on the DIC's kernels: where the integer guess and IC-GN spend their time.
if [ "${XCORR_NCU:-1}" = 1 ] && command -v ncu > /dev/null; then
  timeout 150 ncu --clock-control none -k 'regex:icgn_kernel|zncc_tiled_kernel|gather_kernel' \
    --launch-count 3 --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    .gpu/bin/xcorr bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu \
    --repeats 1 > "$res/ncu-dic-s31-r10.txt" 2>&1
  echo "ncu dic s31 r10: exit $?"
fi
# Profiles with hardware counters (CUPTI) beside the models, and the shared-memory instructions
# in the SASS of the modelled kernels (to read the model against).
if [ "${XCORR_PROFILE:-1}" = 1 ]; then
  .gpu/bin/xcorr profile --form one_to_many --size 64 --m 16 --repeats 20 \
    --out "$res/profile-one_to_many-64-x16.json" > "$res/profile-one_to_many-64-x16.txt" 2>&1
  echo "profile one_to_many 64 x16: exit $?"
  .gpu/bin/xcorr profile --form n_to_mn --size 51 --template 31 --mode valid --norm zncc --n 1000 --m 1 \
    --repeats 10 --out "$res/profile-zncc-31-51.json" > "$res/profile-zncc-31-51.txt" 2>&1
  echo "profile zncc 31 in 51 x1000: exit $?"
  .gpu/bin/xcorr profile --form n_to_mn --size 51 --template 31 --mode valid --norm zncc --output peak --n 1000 \
    --m 1 --repeats 10 --out "$res/profile-peak-31-51.json" > "$res/profile-peak-31-51.txt" 2>&1
  echo "profile peak 31 in 51 x1000: exit $?"
  if command -v cuobjdump > /dev/null; then
    cuobjdump -sass .gpu/bin/xcorr | grep -E "Function : .*(tiled|warp_per_shift_shared|block_per_shift|zncc)|LDS|STS" \
      > "$res/sass-smem.txt" 2>&1
  fi
fi
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$res/device.txt"
[ -f "$logs/bench.txt" ] && grep -E "^(zncc|peak)/" "$logs/bench.txt" | awk '{print $1, $2, $5, $6}' | sort -k1,1 -k4,4n | awk '{a[$1" "$2]= a[$1" "$2] sprintf(" %s=%s", $3, $4)} END {for (k in a) print k a[k]}' | cut -c1-600
