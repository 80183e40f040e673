#!/usr/bin/env bash
# Issue 45's several-GPU tables in one device call (after tar -xJf .gpu.txz, from the repository
# root; scripts/gpu/pack.sh with XCORR_PACK_TESTS='test_gpu_dic_*', the base commit's engine
# `xcorr` at .gpu/before/xcorr, and .gpu/x2a, .gpu/x2b: this build's and the base's `xcorr` with
# `--devices 0,1` appended):
#   1. the DIC GPU tests (multi-GPU and pipelined stacks bit for bit);
#   2. bench-dic's 100-frame 2048^2 stack (subset 31, step 4, R 10, defaults), on GPU 0 and on
#      GPUs 0,1, both builds in alternation, two rounds (the registrar's stages per frame);
#   3. `xcorr dic` of a 51-page 2048^2 TIFF on one GPU and on two, both builds, CSVs compared
#      byte for byte (dic_stack_before_after.sh, --timings);
#   4. bench-register, 1000 frames of 2048^2 from host memory, GPU 0 and GPUs 0,1
#      (register_devices_bench.sh);
#   5. xcorr-mpi: the batch of 8 jobs of 50 frames at 2048^2, step 4, on 1 and 2 ranks, every
#      CSV compared with `xcorr run`'s (mpi_ranks.sh PARTS=1, in /dev/shm).
# Usage: scripts/gpu/scaleout_all.sh OUT_DIR. Writes OUT_DIR/{tests.txt,stack.txt,xdic,reg,mpi}.
set -uo pipefail
out=${1:?output folder}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  echo "host: $(nproc) cores"
  for t in .gpu/bin/test_gpu_dic_*; do
    echo "== $t"
    timeout 120 "$t" 2>&1 | tail -2
  done
} > "$out/tests.txt" 2>&1
for round in 1 2; do
  for devices in 0 0,1; do
    for build in before after; do
      exe=.gpu/bin/xcorr
      [ "$build" = before ] && exe=.gpu/before/xcorr
      echo "== $build, devices $devices, round $round"
      "$exe" bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu \
        --devices "$devices" --frames 100 --repeats 2 | grep -v rendering
    done
  done
done > "$out/stack.txt" 2>&1
DIC_ARGS=--timings ROUNDS=2 scripts/gpu/dic_stack_before_after.sh "$out" \
  before-1gpu=.gpu/before/xcorr after-1gpu=.gpu/bin/xcorr before-2gpu=.gpu/x2b \
  after-2gpu=.gpu/x2a > /dev/null 2>&1
scripts/gpu/register_devices_bench.sh "$out/reg" > /dev/null 2>&1
PARTS=1 SIZE=2048 STEP=4 CLEAN=1 BEFORE=0 WORK=/dev/shm/mr timeout 300 \
  scripts/gpu/mpi_ranks.sh "$out/mpi" > /dev/null 2>&1
rm -rf /dev/shm/mr
