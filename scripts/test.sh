#!/usr/bin/env bash
# Installs what is missing, builds (CI preset: Release, warnings are errors, the package's GPU
# architectures), runs the whole test suite (formatting included), the README's Python install
# (`pip install .` and the napari plugin, with the pytest suite against the installed package:
# scripts/pip_check.sh), clang-tidy's checks (.clang-tidy) on the product's sources, every
# libFuzzer target for XCORR_FUZZ_SECONDS (default 30; two at a time on 2 cores), then builds
# every other supported configuration (scripts/configurations.sh), the .deb and the
# self-contained bundle, which it runs in minimal Debian 13 and Debian 12 roots
# (scripts/package.sh; needs root for debootstrap and chroot). `.ci/run` calls exactly this.
# The configurations share work through one compiler cache (ccache, below): the pip build and
# the engine configuration compile with the CI build's flags and GPU architectures, so their
# core and gpu objects come from the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# One compiler cache for every configuration: objects whose flags match are compiled once.
export CCACHE_DIR=${CCACHE_DIR:-$PWD/build/ccache}
ccache --zero-stats > /dev/null
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
scripts/pip_check.sh
scripts/check_tidy.sh build/ci
scripts/fuzz.sh
scripts/configurations.sh
scripts/package.sh build/ci
