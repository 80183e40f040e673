#!/usr/bin/env bash
# Takes the screenshots in docs/screenshots/ (and README.md) from the real window under Xvfb at
# 1600x1000 and 1024x700: the bundled sample after DIC (main window; its sigma_u map), the DIC
# form's GPUs list, a damaged stack's message,
# the data cursor on the ZNCC map (viridis), a line profile, a reopened project with its saved
# results, a registered stack's drift, a tracked template against time, the batch dialog after a
# DIC job and a register job, and DIC Challenge sample 14's wide map.
# Usage: scripts/screenshots.sh [BUILD_DIR]   (default build/ci). Look at each one.
set -euo pipefail
cd "$(dirname "$0")/.."
studio=${1:-build/ci}/app/xcorr-studio
out=docs/screenshots
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"  # a clean profile: nothing of the user's settings
shot() {  # shot WxH FILE ARGS...: one window on a screen of that size
  local size=$1 file=$2
  shift 2
  xvfb-run -a -s "-screen 0 ${size}x24" "$studio" --size "$size" --screen --screenshot "$file" "$@"
}
# A 6-page stack cut inside page 3, as a damaged file is met.
cp resources/sample/dic_stack.tif "$work/cut.tif"
truncate -s $(($(stat -c %s "$work/cut.tif") * 7 / 12)) "$work/cut.tif"

shot 1600x1000 "$out/main-window.png" --sample --run
shot 1600x1000 "$out/sigma-map.png" --sample --run --frame 5 --field sigma_u --cursor 150,120
shot 1600x1000 "$out/dic-form-gpus.png" --sample --option devices  # the GPUs list open
shot 1600x1000 "$out/damaged-stack.png" "$work/cut.tif"
shot 1024x700 "$out/damaged-stack-1024x700.png" "$work/cut.tif"
shot 1600x1000 "$out/line-profile.png" --sample --run --frame 5 --line 25,160,230,100 --tab profile \
  --save "$work/project.json"
shot 1600x1000 "$out/zncc-cursor.png" --project "$work/project.json" --frame 5 --field zncc \
  --colours viridis --cursor 170,120
shot 1024x700 "$out/zncc-cursor-1024x700.png" --project "$work/project.json" --frame 5 \
  --field zncc --colours viridis --cursor 100,150
shot 1600x1000 "$out/reopened-project.png" --project "$work/project.json" --frame 3 --field v \
  --cursor 120,80
shot 1024x700 "$out/reopened-project-1024x700.png" --project "$work/project.json" --frame 3 \
  --field v --cursor 120,80
shot 1024x700 "$out/line-profile-1024x700.png" --project "$work/project.json" --frame 5 \
  --line 25,160,230,100 --tab profile
# Register stack: a drifting fluorescence-like stack with a scale (needs numpy and tifffile):
# the Drift tab against time in um, and the corrected stack open.
if python3 scripts/make_drift_stack.py "$work/cells.tif" 2>/dev/null; then
  shot 1600x1000 "$out/register-drift.png" "$work/cells.tif" --register "$work/cells_registered.tif" \
    --tab drift --frame 39
  shot 1600x1000 "$out/trajectories-time.png" "$work/cells.tif" --track 200,200,96,96 \
    --tab trajectories --frame 39
fi
# A rigid registration (docs/registration.md): a turning time-lapse of ihc.png (needs numpy,
# tifffile, Pillow and scripts/real-images.sh's images): the Register dialog with the rigid model,
# and the Drift tab with the angle on its right axis and the corrected last frame.
real=${1:-build/ci}/real-images
if [ -f "$real/ihc.png" ] && python3 scripts/make_turning_stack.py "$real" "$work/turning.tif"; then
  shot 1600x1000 "$out/register-dialog-rigid.png" "$work/turning.tif" --register-dialog \
    --transform rigid
  shot 1600x1000 "$out/register-rigid-drift.png" "$work/turning.tif" \
    --register "$work/turning_registered.tif" --transform rigid --tab drift --frame 29
fi
# The batch dialog after a queue of a DIC job and a register job (docs/batch.md).
cp resources/sample/dic_stack.tif resources/sample/speckle_stack.tif "$work/"
printf '{"jobs": [{"name": "dic_stack", "reference": "%s/dic_stack.tif", "out": "%s/dic_stack.csv",
 "roi": ["rect:40,40,180,180"], "step": 10}, {"type": "register", "name": "speckle_stack",
 "stack": "%s/speckle_stack.tif", "out": "%s/speckle_stack_registered.tif",
 "drift": "%s/speckle_stack_drift.csv"}]}\n' "$work" "$work" "$work" "$work" "$work" > "$work/queue.json"
shot 1600x1000 "$out/batch-register.png" --batch "$work/queue.json" --run
# DIC Challenge sample 14 (2048x589, from ../shared when present): reference.tif sorts last in
# its folder, so the project lists it first; the wide map fills the Results dock's width.
s14=../shared/data/dic-challenge/sample14
if [ -d "$s14" ]; then
  s14=$(cd "$s14" && pwd)
  printf '{"reference": "%s/reference.tif", "frames": ["%s/L1.tif", "%s/L3.tif", "%s/L5.tif"],
 "out": "%s/s14.csv", "roi": ["rect:30,30,1988,529"], "step": 10}\n' \
    "$s14" "$s14" "$s14" "$s14" "$work" > "$work/s14.json"
  shot 1600x1000 "$out/sample14-map.png" --project "$work/s14.json" --run --frame 1 --cursor 1000,300
fi
# The first start on a 1024x700 screen (no --size: the window fits the screen it opens on).
xvfb-run -a -s "-screen 0 1024x700x24" "$studio" --screen --screenshot "$out/first-start-1024x700.png" --sample
# A real 2-channel hyperstack as a Green/Magenta composite with a scale bar (its test saves it).
build=${1:-build/ci}
XCORR_SCREENSHOTS=$out XCORR_REAL_IMAGES=$build/real-images xvfb-run -a -s "-screen 0 1600x1000x24" \
  env QT_QPA_PLATFORM=xcb "$build/tests/test_ui_hyperstack_test" \
  --gtest_filter='*GreenMagentaComposite*' > /dev/null
# A figure of the view (map, vectors, scale bar, time stamp) and a movie of the sample (its test
# exports them).
XCORR_SCREENSHOTS=$out xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb \
  "$build/tests/test_ui_results_test" --gtest_filter='*FigureAndAMovie*' > /dev/null
# The Profiling panel on this machine (no GPU: the plain note) with an H200 profile loaded.
shot 1600x1000 "$out/profiling-no-gpu.png" --sample --profile docs/perf/runs/h200-profile-zncc-31-51.json
# The track table beside the MSD plot (its test saves it).
XCORR_SCREENSHOTS=$out xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb \
  "$build/tests/test_ui_results_test" --gtest_filter='*TrackTable*' > /dev/null
# The ROI Manager with ImageJ's own ROI set opened, Show all (its test saves it).
XCORR_SCREENSHOTS=$out xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb \
  "$build/tests/test_ui_roi_manager_test" > /dev/null
# napari with the xcorr-napari docks: a real 2-channel hyperstack registered, DIC's vectors.
scripts/real-images.sh "$build/real-images" > /dev/null
xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb \
  PYTHONPATH="$build/python:python/napari-plugin/src" XCORR_EXE="$build/app/xcorr" \
  python3 scripts/napari_screenshot.py "$out/napari-plugin.png" "$build/real-images" > /dev/null
