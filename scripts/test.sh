#!/usr/bin/env bash
# Installs what is missing, builds (CI preset: Release, warnings are errors, sm_90 only), runs
# the whole test suite, then every libFuzzer target for XCORR_FUZZ_SECONDS (default 60) each.
# `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
scripts/fuzz.sh
scripts/package.sh build/ci
