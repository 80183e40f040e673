#!/usr/bin/env bash
# Builds the engine preset (no Qt, no OpenCV; sm_90 machine code and compute_75 PTX) and packs what the
# GPU machine needs into .gpu/ (git-ignored): test binaries (XCORR_PACK_TESTS, a shell pattern,
# default test_*), the xcorr CLI, shared libraries that machine lacks (FFTW), the anchor script
# from ../shared, the NPP anchor (tests/bench/npp_anchor.cpp, built against NVIDIA NPP from PyPI,
# whose two libraries travel along), the run scripts (run.sh, support.sh), the CLI built for
# sm_80 only (engine-sm80 preset: a build with no kernels for the machine's sm_90, .gpu/sm80;
# XCORR_PACK_SM80=0 leaves it out), pystackreg's wheels when scripts/bench/wheels holds them
# (git-ignored; `pip download` them for the machine's Python: the transform anchor) and,
# with XCORR_PACK_PROGRAMS=1, the packaged programs from build/ci (.gpu/pkg, for cuobjdump; about
# 100 MB each: they carry four architectures). The device tool carries
# at most 64 MiB, so the folder travels compressed (xz -9: its 64 MiB window shares the GPU code
# that every binary carries): .gpu.txz (git-ignored). There: tar -xJf .gpu.txz.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset engine > /dev/null
cmake --build --preset engine
if [ "${XCORR_PACK_SM80:-1}" = 1 ]; then
  cmake --preset engine-sm80 > /dev/null
  cmake --build --preset engine-sm80
fi
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib .gpu/tools .gpu/sm80 .gpu/pkg
find build/engine/tests -maxdepth 1 -type f -name "${XCORR_PACK_TESTS:-test_*}" -perm -u+x -exec cp {} .gpu/bin/ \;
cp build/engine/app/xcorr .gpu/bin/
[ "${XCORR_PACK_SM80:-1}" = 1 ] && cp build/engine-sm80/app/xcorr .gpu/sm80/
for exe in xcorr xcorr-studio; do
  [ "${XCORR_PACK_PROGRAMS:-0}" = 1 ] && [ -f build/ci/app/$exe ] && cp build/ci/app/$exe .gpu/pkg/
done
cp -L /usr/lib/x86_64-linux-gnu/libfftw3f.so.3 .gpu/lib/
[ -f ../shared/tools/anchor_bench.py ] && cp ../shared/tools/anchor_bench.py .gpu/tools/
cp scripts/bench/phase_anchor_torch.py scripts/bench/volume_anchor_torch.py \
  scripts/bench/transform_anchor_pystackreg.py .gpu/tools/
[ -d scripts/bench/wheels ] && cp -r scripts/bench/wheels .gpu/
cp scripts/gpu/run.sh scripts/gpu/support.sh .gpu/
[ "${XCORR_PACK_NPP:-1}" = 1 ] && scripts/gpu/build_npp_anchor.sh .gpu
du -sh .gpu
XZ_OPT=-9 tar -cJf .gpu.txz .gpu
du -sh .gpu.txz
