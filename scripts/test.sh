#!/usr/bin/env bash
# Installs what is missing, builds (CI preset: Release, warnings are errors, sm_90 only) and runs
# the whole test suite. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
scripts/package.sh build/ci
