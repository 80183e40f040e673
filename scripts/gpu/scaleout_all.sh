#!/usr/bin/env bash
# Issue 45's several-GPU tables in one device call (after tar -xJf .gpu.txz, from the repository
# root; scripts/gpu/pack.sh with XCORR_PACK_TESTS='test_gpu_dic_*', and the base commit's engine
# `xcorr` at .gpu/before/xcorr). The device sets are 0, 0,1 and every GPU where there are more
# (scaleout_common.sh). STEPS (default "tests stack xdic reg mpi") picks the steps:
#   tests: the DIC GPU tests (multi-GPU and pipelined stacks bit for bit);
#   stack: bench-dic's 100-frame 2048^2 stack (subset 31, step 4, R 10, defaults) on every
#          device set, both builds in alternation, two rounds (the registrar's stages per frame);
#   xdic:  `xcorr dic` of a 51-page 2048^2 TIFF on one GPU (both builds) and on the other device
#          sets with this build, CSVs compared byte for byte (dic_stack_before_after.sh,
#          --timings);
#   reg:   bench-register, 1000 frames of 2048^2 from host memory, every device set
#          (register_devices_bench.sh);
#   mpi:   xcorr-mpi: the batch of 8 jobs of 50 frames at 2048^2, step 4, on 1, 2 (and 4) ranks,
#          every CSV compared with `xcorr run`'s (mpi_ranks.sh, MPI_PARTS, default 1, in
#          /dev/shm).
# Usage: scripts/gpu/scaleout_all.sh OUT_DIR. Writes OUT_DIR/{tests.txt,stack.txt,xdic,reg,mpi}.
set -uo pipefail
out=${1:?output folder}
mkdir -p "$out"
log=$out/machine.txt
. "$(dirname "$0")/scaleout_common.sh"
steps=" ${STEPS:-tests stack xdic reg mpi} "
if [[ $steps == *" tests "* ]]; then
  for t in .gpu/bin/test_gpu_dic_*; do
    echo "== $t"
    timeout 150 "$t" 2>&1 | tail -2
  done > "$out/tests.txt" 2>&1
fi
if [[ $steps == *" stack "* ]]; then
  for round in 1 2; do
    for devices in $sets; do
      for build in before after; do
        exe=.gpu/bin/xcorr
        [ "$build" = before ] && exe=.gpu/before/xcorr
        [ -x "$exe" ] || continue
        echo "== $build, devices $devices, round $round"
        "$exe" bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu \
          --devices "$devices" --frames 100 --repeats 2 | grep -v rendering
      done
    done
  done > "$out/stack.txt" 2>&1
fi
if [[ $steps == *" xdic "* ]]; then
  # `xcorr dic` on a device set: a wrapper that appends --devices.
  wrappers=()
  for devices in $sets; do
    [ "$devices" = 0 ] && continue  # this build's plain run is GPU 0's
    w=.gpu/xdic-${devices//,/_}
    printf '#!/bin/sh\nexec %s "$@" --devices %s\n' "$PWD/.gpu/bin/xcorr" "$devices" > "$w"
    chmod +x "$w"
    wrappers+=("after-${devices//,/_}=$w")
  done
  builds=()
  [ -x .gpu/before/xcorr ] && builds+=(before-0=.gpu/before/xcorr)
  DIC_ARGS=--timings ROUNDS=${XDIC_ROUNDS:-2} scripts/gpu/dic_stack_before_after.sh "$out" \
    after-1gpu=.gpu/bin/xcorr "${builds[@]}" "${wrappers[@]}" > /dev/null 2>&1
fi
[[ $steps == *" reg "* ]] && scripts/gpu/register_devices_bench.sh "$out/reg" > /dev/null 2>&1
if [[ $steps == *" mpi "* ]]; then
  PARTS=${MPI_PARTS:-1} SIZE=2048 STEP=4 CLEAN=1 BEFORE=0 ROUNDS=${MPI_ROUNDS:-1 2} \
    WORK=/dev/shm/mr timeout "${MPI_TIMEOUT:-300}" scripts/gpu/mpi_ranks.sh "$out/mpi" > /dev/null 2>&1
  rm -rf /dev/shm/mr
fi
