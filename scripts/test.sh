#!/usr/bin/env bash
# Installs what is missing, builds (CI preset: Release, warnings are errors, the package's GPU
# architectures), runs the whole test suite (formatting included), clang-tidy's checks
# (.clang-tidy), then every libFuzzer target for XCORR_FUZZ_SECONDS
# (default 60) each, then builds every other supported configuration (scripts/configurations.sh),
# the .deb and the self-contained bundle, which it runs in minimal Debian 13 and Debian 12 roots
# (scripts/package.sh; needs root for debootstrap and chroot). The README's Python install (`pip install .` and the napari plugin) runs after
# the tests, with the pytest suite against the installed package (scripts/pip_check.sh).
# `.ci/run` calls exactly this.
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
