#!/usr/bin/env bash
# Builds the engine preset (no Qt, no OpenCV; sm_90) and packs what the GPU machine needs into
# .gpu/ (git-ignored, carried by the device tool): test binaries, the xcorr CLI, shared
# libraries that machine lacks (FFTW), and the anchor script from ../shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset engine > /dev/null
cmake --build --preset engine
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib .gpu/tools
find build/engine/tests -maxdepth 1 -type f -name 'test_*' -perm -u+x -exec cp {} .gpu/bin/ \;
cp build/engine/app/xcorr .gpu/bin/
cp -L /usr/lib/x86_64-linux-gnu/libfftw3f.so.3 .gpu/lib/
[ -f ../shared/tools/anchor_bench.py ] && cp ../shared/tools/anchor_bench.py .gpu/tools/
cp scripts/gpu/run.sh .gpu/
du -sh .gpu
