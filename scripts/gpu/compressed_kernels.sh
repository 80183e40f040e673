#!/usr/bin/env bash
# Compressed kernels (nvcc --compress-mode=size, gpu/CMakeLists.txt) against the same build
# uncompressed, on the GPU machine from the repository root after `tar -xJf .gpu.txz`:
# .gpu/pkg/xcorr (the engine build, compressed) and .gpu/before/xcorr (the same commit's
# code, uncompressed). Alternating, ROUNDS times (default 5): `xcorr list` (CUDA's start, modules
# loaded lazily), the same with CUDA_MODULE_LOADING=EAGER (every module unpacked and loaded at
# start: the most decompression can cost) and one 2048^2 DIC frame (bench-dic, defaults: the
# first use of its kernels included); then the compressed build's compute_75 PTX under
# CUDA_FORCE_PTX_JIT=1 (what other GPUs run) on a 512^2 frame. Prints one line per run.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls -l .gpu/pkg/xcorr .gpu/before/xcorr | awk '{print $5, $9}'
ms() { local t0; t0=$(date +%s%N); "$@" > /dev/null 2>&1; echo $(( ($(date +%s%N) - t0) / 1000000 )); }
dic=(bench-dic --size 2048 --step 4 --subset 31 --search-radius 10 --device gpu)
for round in $(seq "${ROUNDS:-5}"); do
  for b in pkg before; do
    x=.gpu/$b/xcorr
    echo "round $round $b: list $(ms "$x" list) ms, list eager $(CUDA_MODULE_LOADING=EAGER ms "$x" list) ms," \
         "bench-dic process $(ms "$x" "${dic[@]}") ms"
  done
done
for b in pkg before; do
  echo "$b bench-dic:"; .gpu/$b/xcorr "${dic[@]}" 2>&1 | tail -n 4
done
echo "pkg under CUDA_FORCE_PTX_JIT=1 (512^2):"
CUDA_FORCE_PTX_JIT=1 timeout 300 .gpu/pkg/xcorr bench-dic --size 512 --step 4 --subset 31 \
  --search-radius 10 --device gpu 2>&1 | tail -n 4
echo "exit $?"
