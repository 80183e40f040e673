#!/usr/bin/env bash
# Builds the .deb (CPack, installer/) from a configured build folder, unpacks the .deb
# into a scratch root and runs the installed programs from there: `xcorr --version` and
# `xcorr run` on the installed sample batch, and checks that they link no CUDA library (they
# start without the CUDA toolkit). Then writes the self-contained bundle for other distributions
# (scripts/bundle.sh) and runs it in minimal Debian 13 and Debian 12 roots
# (scripts/bundle_check.sh). Usage: scripts/package.sh [build folder]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
(cd "$build" && cpack --config CPackConfig.cmake > cpack.log) || { cat "$build/cpack.log"; exit 1; }
deb=$(ls "$build"/xcorr-studio_*.deb | head -n 1)
rm -f "$build"/xcorr-studio-*-Linux.tar.gz  # what CPack wrote before the bundle replaced it
ls -l "$deb"
dpkg-deb -f "$deb" Package Version Depends
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
for f in usr/bin/xcorr usr/bin/xcorr-studio usr/share/applications/xcorr-studio.desktop \
         usr/share/icons/hicolor/scalable/apps/xcorr-studio.svg \
         usr/share/metainfo/io.github.xcorr_studio.metainfo.xml \
         usr/share/xcorr-studio/sample/sample-batch.json; do
  [ -e "$root/$f" ] || { echo "package lacks $f"; exit 1; }
done
# The package needs no MPI: xcorr-mpi is installed only with `--component mpi` (docs/scale-out.md).
if [ -e "$root/usr/bin/xcorr-mpi" ] || dpkg-deb -f "$deb" Depends | grep -qi mpi; then
  echo "the package holds xcorr-mpi or depends on MPI"; exit 1
fi
# The programs must start where the CUDA toolkit is not installed: cuFFT and CUPTI are opened at
# run time (gpu/nvidia_library.hpp), never linked.
for exe in xcorr xcorr-studio; do
  if readelf -d "$root/usr/bin/$exe" | grep -E 'NEEDED.*(libcufft|libcupti|libcudart|libcuda\.)'; then
    echo "installed $exe links a CUDA library: it would not start without the CUDA toolkit"; exit 1
  fi
done
"$root/usr/bin/xcorr" --version
"$root/usr/bin/xcorr" run "$root/usr/share/xcorr-studio/sample/sample-batch.json"
head -n 3 "$root/usr/share/xcorr-studio/sample/sample_dic.csv"
echo "package ok: $deb"
scripts/bundle.sh "$build"
scripts/bundle_check.sh "$build"
