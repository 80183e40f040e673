#!/usr/bin/env bash
# Runs the bundle (scripts/bundle.sh) on other systems: minimal roots of Debian 13 (trixie) and of
# Debian 12 (bookworm, no development package), made by debootstrap from Debian's package
# registry under build/roots/ (kept: a second run reuses them), the bundle unpacked in each, and
# in a chroot there:
#   xcorr --version, also through a link on the PATH;
#   xcorr run on the bundled sample batch (CSV bytes = the build tree's);
#   xcorr register on a small drifting stack (drift table and stack = the build tree's);
#   xcorr-mpi: refused in one line (no Open MPI in the roots);
#   xcorr-studio --sample --run --screenshot (DIC on the sample in the window) under the host's
#   Xvfb, over TCP (the root has no X server), saved as build/bundle-check/<suite>.png.
# And on this host, with its Open MPI: the bundle's xcorr-mpi on 2 ranks over the sample batch
# (CSV bytes = the build tree's).
# Needs root (debootstrap, chroot, /proc mounted in the root). Usage: scripts/bundle_check.sh
# [build folder]   (default build/ci; its bundle must have been written)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
bundle=$(ls "$build"/xcorr-studio-*-linux-x86_64.tar.gz | head -n 1)
name=$(basename "$bundle" .tar.gz)
mirror=${XCORR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
roots=build/roots
out=build/bundle-check
rm -rf "$out" && mkdir -p "$roots" "$out/tree"
host=$build/app/xcorr

# What the build tree gives: the sample batch's CSVs and a small stack's registration.
cp installer/sample-batch.json resources/sample/dic_stack.tif resources/sample/speckle_stack.tif \
   "$out/tree/"
"$host" run --quiet "$out/tree/sample-batch.json" > /dev/null
"$host" speckle --out "$out/drift.tif" --size 96,112 --frames 6 --shift 0.7,-0.4 --noise 150 \
  > /dev/null
"$host" register "$out/drift.tif" --device cpu --out "$out/tree/registered.tif" \
  --drift "$out/tree/drift.csv" --quiet > /dev/null

# The optional xcorr-mpi with the host's Open MPI (loopback only, allowed as root).
if command -v mpirun > /dev/null && [ -x "$build/app/xcorr-mpi" ]; then
  mkdir -p "$out/host" "$out/mpi"
  tar -xzf "$bundle" -C "$out/host"
  cp installer/sample-batch.json resources/sample/dic_stack.tif resources/sample/speckle_stack.tif \
     "$out/mpi/"
  env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp \
    OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
    OMPI_MCA_rmaps_base_oversubscribe=1 timeout 300 mpirun -np 2 "$out/host/$name/xcorr-mpi" run \
    --quiet "$out/mpi/sample-batch.json" > "$out/mpi.log" 2>&1 || { cat "$out/mpi.log"; exit 1; }
  for csv in sample_dic.csv sample_speckle.csv; do cmp "$out/tree/$csv" "$out/mpi/$csv"; done
  echo "bundle-check host: xcorr-mpi on 2 ranks (the host's Open MPI" \
       "$(mpirun --version | grep -o '[0-9][0-9.]*' | head -n 1)): CSVs equal the build tree's"
  rm -rf "$out/host"
fi

display=:73
Xvfb "$display" -screen 0 1280x800x24 -nolisten unix -listen tcp -ac > "$out/xvfb.log" 2>&1 &
xvfb=$!
mounted=()
cleanup() {
  kill "$xvfb" 2> /dev/null || true
  for m in "${mounted[@]}"; do umount "$m" 2> /dev/null || true; done
}
trap cleanup EXIT

for suite in trixie bookworm; do
  start=$(date +%s)
  root=$roots/$suite
  if [ ! -e "$root/.complete" ]; then
    rm -rf "$root"
    debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$roots/$suite.log" 2>&1 ||
      { tail -n 20 "$roots/$suite.log"; exit 1; }
    touch "$root/.complete"
  fi
  made=$(( $(date +%s) - start ))
  dev=$(chroot "$root" dpkg-query -W -f '${Package}\n' | grep -c -- '-dev$' || true)
  [ "$dev" -eq 0 ] || { echo "bundle-check: the $suite root holds development packages"; exit 1; }
  rm -rf "$root/opt/xcorr" "$root/tmp/check" && mkdir -p "$root/opt/xcorr" "$root/tmp/check"
  tar -xzf "$bundle" -C "$root/opt/xcorr"
  mount -t proc proc "$root/proc" && mounted+=("$root/proc")
  in_root() { chroot "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp "$@"; }
  b=/opt/xcorr/$name
  echo "bundle-check $suite: Debian $(cat "$root/etc/debian_version"), glibc" \
       "$(in_root ldd --version | head -n 1 | grep -o '[0-9.]*$'), $(in_root dpkg-query -W -f '.' | wc -c)" \
       "packages, root made or reused in ${made} s"
  in_root "$b/xcorr" --version
  # The launchers run from any folder, also through a link on the PATH.
  ln -sf "$b/xcorr" "$root/usr/local/bin/xcorr"
  echo "bundle-check $suite: through a link on the PATH, from /tmp:" \
       "$(in_root sh -c 'cd /tmp && xcorr --version' | head -n 1)"
  rm "$root/usr/local/bin/xcorr"
  cp installer/sample-batch.json resources/sample/dic_stack.tif resources/sample/speckle_stack.tif \
     "$out/drift.tif" "$root/tmp/check/"
  in_root "$b/xcorr" run --quiet /tmp/check/sample-batch.json > /dev/null
  for csv in sample_dic.csv sample_speckle.csv; do cmp "$out/tree/$csv" "$root/tmp/check/$csv"; done
  echo "bundle-check $suite: xcorr run: sample_dic.csv and sample_speckle.csv equal the build tree's"
  in_root "$b/xcorr" register /tmp/check/drift.tif --device cpu --out /tmp/check/registered.tif \
    --drift /tmp/check/drift.csv --quiet > /dev/null
  cmp "$out/tree/drift.csv" "$root/tmp/check/drift.csv"
  cmp "$out/tree/registered.tif" "$root/tmp/check/registered.tif"
  echo "bundle-check $suite: xcorr register: drift table and registered stack equal the build tree's"
  if in_root "$b/xcorr-mpi" --version > "$out/$suite-mpi.txt" 2>&1 ||
     [ "$(wc -l < "$out/$suite-mpi.txt")" -ne 1 ]; then
    echo "bundle-check $suite: xcorr-mpi without Open MPI did not stop with one line:"
    cat "$out/$suite-mpi.txt"; exit 1
  fi
  echo "bundle-check $suite: $(cat "$out/$suite-mpi.txt")"
  in_root DISPLAY="127.0.0.1$display" QT_QPA_PLATFORM=xcb "$b/xcorr-studio" --sample --run \
    --screenshot /tmp/check/studio.png > "$out/$suite-studio.log" 2>&1 ||
    { cat "$out/$suite-studio.log"; exit 1; }
  cp "$root/tmp/check/studio.png" "$out/$suite.png"
  echo "bundle-check $suite: xcorr-studio --sample --run --screenshot: $out/$suite.png" \
       "($(stat -c %s "$out/$suite.png") bytes); all in $(( $(date +%s) - start )) s"
  umount "$root/proc" && unset 'mounted[-1]'
done
