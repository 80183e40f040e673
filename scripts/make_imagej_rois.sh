#!/usr/bin/env bash
# Writes the ImageJ ROI files that tests/core/imagej/imagej_roi_test.cpp reads
# (tests/data/imagej_roi/), with ImageJ itself (Debian's libij-java, 1.53t) under Xvfb: one .roi
# per kind of selection, the mask ImageJ fills for each area (<name>_mask.tif, 60 x 40 px, 255
# inside), and a ROI Manager .zip. Run again only to change them:
#   apt-get install libij-java openjdk-17-jre xvfb; scripts/make_imagej_rois.sh
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/tests/data/imagej_roi"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/make.ijm" <<'MACRO'
dir = getArgument();
function save_roi(name, area) {
  Roi.setName(name);
  saveAs("Selection", dir + name + ".roi");
  if (area) {
    setColor(255);
    fill();
    run("Select None");
    saveAs("Tiff", dir + name + "_mask.tif");
  }
  close();
}
function img() { newImage("m", "8-bit black", 60, 40, 1); }
img(); makeRectangle(5, 6, 12, 9); save_roi("rect", true);
img(); makeOval(20, 4, 15, 11); save_roi("oval", true);
img(); makePolygon(3,20, 25,22, 14,37); save_roi("polygon", true);
img(); makeSelection("polygon", newArray(30.3, 55.7, 41.2, 33.9), newArray(18.6, 24.1, 36.4, 30.2)); save_roi("polygon_subpixel", true);
img(); makeSelection("freehand", newArray(40,50,57,52,45,41), newArray(2,3,9,14,12,7)); save_roi("freehand", true);
img(); makeEllipse(10, 25, 40, 35, 0.4); save_roi("ellipse_rotated", true);
img(); makeRotatedRectangle(8, 30, 30, 22, 6); save_roi("rect_rotated", true);
img(); makeRectangle(10.5, 20.25, 7.5, 5.5); save_roi("rect_subpixel", true);
img(); makeOval(30.5, 10.5, 9, 6.5); save_roi("oval_subpixel", true);
img(); makeRectangle(2, 2, 10, 10); setKeyDown("shift"); makeOval(8, 8, 12, 12); setKeyDown("none"); save_roi("composite_union", true);
img(); makeRectangle(30, 5, 25, 25); setKeyDown("alt"); makeOval(36, 11, 12, 12); setKeyDown("none"); save_roi("composite_hole", true);
img(); makeRectangle(40, 25, 15, 10, 6); save_roi("rect_rounded", true);
img(); setColor(255); fillOval(12, 12, 15, 10); fillRect(20, 16, 15, 4); doWand(18, 16); save_roi("traced", true);
img(); makeLine(1, 1, 20, 30); save_roi("line", false);
img(); makePoint(5, 5); save_roi("point", false);
img(); makeSelection("polyline", newArray(1,10,20), newArray(30,35,31)); save_roi("polyline", false);
// A name beyond ASCII (written as UTF-16 in the file's second header).
img(); makeRectangle(3, 4, 20, 12); Roi.setName("zona " + fromCharCode(181) + "m (" + fromCharCode(252) + ")"); saveAs("Selection", dir + "named.roi"); close();
// The ROI Manager's own .zip: a renamed rectangle, areas, a composite and a line.
newImage("m", "8-bit black", 60, 40, 1);
names = newArray("rect", "oval", "polygon_subpixel", "ellipse_rotated", "composite_hole", "line", "named");
for (i = 0; i < names.length; i++) {
  open(dir + names[i] + ".roi");
  roiManager("add");
}
roiManager("select", 0);
roiManager("rename", "cell 1");
roiManager("save", dir + "manager.zip");
MACRO
xvfb-run -a java -jar /usr/share/java/ij.jar -batch "$work/make.ijm" "$work/" >/dev/null
cp "$work"/*.roi "$work"/*_mask.tif "$work/manager.zip" "$out/"
ls "$out"
