#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on the bundled sample: template
# tracking of resources/sample/template.tif through the 6-frame speckle stack (valid mode,
# zncc), printing the per-frame positions (truth: resources/sample/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset dev > /dev/null
cmake --build --preset dev --target xcorr
mkdir -p build/sample-output
build/dev/app/xcorr correlate --form one_to_many --mode valid --norm zncc \
  --left resources/sample/template.tif --right resources/sample/speckle_stack.tif \
  --out build/sample-output/sample-zncc.csv
