#!/usr/bin/env bash
# Builds and links every supported configuration besides the CI preset's (CUDA + Qt + codecs +
# OpenCV + FFTW + MPI), so that no stub drifts from its header unseen, and runs each one's CLI:
#   engine  - CUDA, MPI, no Qt, codecs or OpenCV: grey TIFF through libtiff alone (what the GPU
#             machine runs; with its tests)
#   nocuda  - no CUDA: Qt, codecs, FFTW, MPI on the CPU (programs only)
#   minimal - nothing optional: no CUDA, Qt, libtiff, codecs, OpenCV, FFTW or MPI (programs only)
# They share the CI build's objects through ccache wherever the flags match (core and gpu are
# compiled with the same flags in every configuration that has them); the cache's statistics
# after each build say how much was shared. Each one's Python module, where it builds one, is
# imported.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR=${CCACHE_DIR:-$PWD/build/ccache}
# The engine preset's own GPU code (sm_90 and compute_75 PTX, for the GPU machine) would be
# compiled again here, for nothing: it takes the package's GPU architectures instead, as the CI
# build has them, so that every CUDA object is the CI build's from the cache (what this check is
# for is the configuration's options: no Qt, codecs or OpenCV). XCORR_CONFIG_OWN_ARCHS=1 keeps
# the preset's.
for preset in engine nocuda minimal; do
  start=$(date +%s)
  extra=()
  if [ "$preset" = engine ] && [ "${XCORR_CONFIG_OWN_ARCHS:-0}" != 1 ]; then
    extra=(-DCMAKE_CUDA_ARCHITECTURES=package)
  fi
  cmake --preset "$preset" "${extra[@]}" > "build/configure-$preset.log" || { cat "build/configure-$preset.log"; exit 1; }
  grep "XCorr: CUDA" "build/configure-$preset.log"
  cmake --build --preset "$preset" > "build/build-$preset.log" || { tail -50 "build/build-$preset.log"; exit 1; }
  echo "configuration $preset: built and linked in $(( $(date +%s) - start )) s" \
       "($(ccache --print-stats | awk -F'\t' '$1=="direct_cache_hit"||$1=="preprocessed_cache_hit"{h+=$2} $1=="cache_miss"{m=$2} END{print h+0 " cache hits, " m+0 " misses so far"}'))"
  "build/$preset/app/xcorr" --version
  "build/$preset/app/xcorr" list | tail -n 2
  # The Python module where the configuration builds one: it must import (a module links with
  # undefined symbols allowed, so a stub missing in this configuration shows only here).
  if [ -d "build/$preset/python/xcorr" ]; then
    PYTHONPATH="build/$preset/python" python3 -c "import xcorr; print('python: xcorr', xcorr.__version__, 'imports;', len(xcorr.variants()), 'variants')"
  fi
done

# The engine build reads and writes TIFF through libtiff alone: a stack that either build wrote
# gives the CI build's CSV bytes in both, and a PNG or colour image is refused by name.
t=build/tiff-only-check
rm -rf "$t" && mkdir -p "$t/ci" "$t/engine"
for b in ci engine; do
  "build/$b/app/xcorr" speckle --out "$t/$b/stack.tif" --size 120,130 --frames 3 --shift 0.3,0.2 \
    --noise 200 > /dev/null
done
for b in ci engine; do
  for s in ci engine; do
    "build/$b/app/xcorr" dic --reference "$t/$s/stack.tif" --roi rect:20,20,90,80 --subset 21 \
      --step 6 --device cpu --quiet --out "$t/$b-reads-$s.csv"
    cmp "$t/ci-reads-ci.csv" "$t/$b-reads-$s.csv"
  done
done
build/ci/app/xcorr speckle --out "$t/one.png" --size 120,130 --bits 8 > /dev/null
if build/engine/app/xcorr dic --reference "$t/one.png" --frames "$t/one.png" --roi rect:20,20,90,80 \
  --device cpu --quiet --out "$t/png.csv" 2> "$t/png.err"; then
  echo "the engine build read a PNG file"; exit 1
fi
grep -q "this build reads and writes grey TIFF only (built without XCORR_WITH_CODECS)" "$t/png.err" || { cat "$t/png.err"; exit 1; }
echo "engine (libtiff, no codecs): TIFF stacks of either build give the CI build's CSV bytes; a PNG: $(head -1 "$t/png.err")"
