#!/usr/bin/env bash
# Regenerates the bundled sample (resources/sample/) with `xcorr speckle`.
# Truth: frame k of speckle_stack.tif is frame 0 moved by k * (0.6, -0.35) px (dy, dx);
# template.tif is frame 0 cut at row 96, col 96, 64x64, so in frame k it sits at
# (96 + 0.6 k, 96 - 0.35 k). 16-bit, 3.5 px speckles, Gaussian noise sigma 200 grey values.
set -euo pipefail
xcorr=${1:-build/dev/app/xcorr}
out=${2:-resources/sample}
common=(--size 256,256 --radius 3.5 --noise 200 --seed 7)
"$xcorr" speckle --out "$out/speckle_stack.tif" --frames 6 --shift 0.6,-0.35 "${common[@]}"
"$xcorr" speckle --out "$out/template.tif" --frames 1 --crop 96,96,64,64 "${common[@]}"
