#!/usr/bin/env bash
# Regenerates the bundled sample (resources/sample/) with `xcorr speckle`.
# Truth: frame k of speckle_stack.tif is frame 0 moved by k * (0.6, -0.35) px (dy, dx);
# template.tif is frame 0 cut at row 96, col 96, 64x64, so in frame k it sits at
# (96 + 0.6 k, 96 - 0.35 k). 16-bit, 3.5 px speckles, Gaussian noise sigma 200 grey values.
# dic_stack.tif (DIC sample): page 0 is the reference; page k is it stretched by k x (0.4 %
# along x, -0.12 % along y) about the image centre (127.5, 127.5) and moved by k x (0.4, 0.25) px
# (u, v); 3 px speckles, noise sigma 200.
set -euo pipefail
xcorr=${1:-build/dev/app/xcorr}
out=${2:-resources/sample}
common=(--size 256,256 --radius 3.5 --noise 200 --seed 7)
"$xcorr" speckle --out "$out/speckle_stack.tif" --frames 6 --shift 0.6,-0.35 "${common[@]}"
"$xcorr" speckle --out "$out/template.tif" --frames 1 --crop 96,96,64,64 "${common[@]}"
"$xcorr" speckle --out "$out/dic_stack.tif" --size 256,256 --frames 6 --shift 0.25,0.4 \
  --affine 0.004,0,0,-0.0012 --radius 3 --noise 200 --seed 9
