#!/usr/bin/env bash
# Real microscope images for the tests (tests/support/real_images.hpp): two of scikit-image's
# bundled images from Debian's python3-skimage package, downloaded (not installed: no Python
# dependencies) and unpacked into DEST (default build/real-images); nothing is committed.
#   ihc.png   brightfield RGB: colonic glands, IHC (DAB) with hematoxylin counterstain (Center for
#             Microscopy And Molecular Imaging; scikit-image: "no known copyright restrictions")
#   cell.png  quantitative phase image of a cell in saline (scikit-image: CC0)
# The package's copyright file (BSD-3-Clause for scikit-image) is kept beside them. Cached: a
# second run with both files present does nothing.
set -euo pipefail
dest=${1:-build/real-images}
if [ -f "$dest/ihc.png" ] && [ -f "$dest/cell.png" ]; then exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"  # apt's download user writes here
(cd "$tmp" && apt-get download -qq python3-skimage >/dev/null 2>&1) ||
  (apt-get update -qq && cd "$tmp" && apt-get download -qq python3-skimage)
dpkg-deb -x "$tmp"/python3-skimage_*.deb "$tmp/x"
mkdir -p "$dest"
data="$tmp/x/usr/lib/python3/dist-packages/skimage/data"
cp "$data/ihc.png" "$data/cell.png" "$dest/"
cp "$tmp/x/usr/share/doc/python3-skimage/copyright" "$dest/copyright"
echo "real-images: ihc.png, cell.png from $(basename "$tmp"/python3-skimage_*.deb) in $dest"
