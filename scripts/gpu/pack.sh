#!/usr/bin/env bash
# Builds the engine preset (no Qt, no OpenCV; sm_90) and packs what the GPU machine needs into
# .gpu/ (git-ignored): test binaries, the xcorr CLI, shared libraries that machine lacks (FFTW),
# the anchor script from ../shared, and the NPP anchor (tests/bench/npp_anchor.cpp, built against
# NVIDIA NPP from PyPI, whose two libraries travel along). The device tool carries at most 64 MiB,
# so the folder travels compressed: .gpu.txz (git-ignored). There: tar -xJf .gpu.txz.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset engine > /dev/null
cmake --build --preset engine
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib .gpu/tools
find build/engine/tests -maxdepth 1 -type f -name 'test_*' -perm -u+x -exec cp {} .gpu/bin/ \;
cp build/engine/app/xcorr .gpu/bin/
cp -L /usr/lib/x86_64-linux-gnu/libfftw3f.so.3 .gpu/lib/
[ -f ../shared/tools/anchor_bench.py ] && cp ../shared/tools/anchor_bench.py .gpu/tools/
cp scripts/bench/phase_anchor_torch.py .gpu/tools/
cp scripts/gpu/run.sh .gpu/
scripts/gpu/build_npp_anchor.sh .gpu
du -sh .gpu
tar -cJf .gpu.txz .gpu
du -sh .gpu.txz
