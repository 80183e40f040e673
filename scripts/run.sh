#!/usr/bin/env bash
# Installs what is missing, builds, and runs DIC on the bundled sample: the 6-page speckle stack
# resources/sample/dic_stack.tif (page 0 the reference; page k stretched by k x 0.4 % along x and
# -0.12 % along y, moved by k x (0.4, 0.25) px), subset 31 px, step 8 px, inside an ellipse.
# Writes build/sample-output/dic.csv (format: docs/dic.md) and prints per-frame means; then, when
# a display is present, starts the desktop app xcorr-studio with the sample open.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset dev > /dev/null
cmake --build --preset dev --target xcorr xcorr-studio
mkdir -p build/sample-output
build/dev/app/xcorr dic --reference resources/sample/dic_stack.tif \
  --roi ellipse:127.5,127.5,110,100 --subset 31 --step 8 --out build/sample-output/dic.csv
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/dev/app/xcorr-studio --sample
fi
