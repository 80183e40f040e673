#!/usr/bin/env bash
# Writes the self-contained Linux bundle BUILD/xcorr-studio-<version>-linux-x86_64.tar.gz from a
# configured and built folder (installer/bundle/README.md says what is in it and what it needs
# from the host). Usage: scripts/bundle.sh [build folder]   (default build/ci)
#
# Layout: bin/ (the programs, RUNPATH $ORIGIN/../lib, and qt.conf), lib/ (every shared library
# they load except the host's floor below, RUNPATH $ORIGIN), plugins/ (Qt's platform plugins:
# xcb, wayland, offscreen), share/ (sample, docs, licences, desktop file, icon, a fallback font),
# and launchers at the top that run from any folder (symlinks followed).
# Left to the host: glibc and libstdc++/libgcc_s (the floor: printed, and written to
# share/doc/xcorr-studio/floor.txt), the NVIDIA driver (cuFFT and CUPTI are opened at run time;
# the CUDA runtime is static), and Open MPI for the optional xcorr-mpi.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
started=$(date +%s)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
name=xcorr-studio-$version-linux-x86_64
top=$build/bundle
stage=$top/$name
rm -rf "$top" && mkdir -p "$stage"
cmake --install "$build" --prefix "$stage" --component Unspecified > /dev/null
[ -x "$build/app/xcorr-mpi" ] && cmake --install "$build" --prefix "$stage" --component mpi > /dev/null
qt_plugins=$(qtpaths6 --query QT_INSTALL_PLUGINS)
docs=$stage/share/doc/xcorr-studio

# The host's floor: never bundled (glibc's libraries, the C++ runtime, the GPU driver).
floor='^(ld-linux-x86-64\.so\.2|lib(c|m|dl|rt|pthread|resolv|util|anl)\.so\.[0-9]+|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libcuda\.so.*|libnvidia-.*)$'
closure() {  # the resolved paths of every library that the given ELF files load
  ldd "$@" 2> /dev/null | awk '/=> \//{print $3}' | sort -u
}

# Qt's plugins, as they lie under Qt's plugin folder.
plugins=(platforms/libqxcb.so platforms/libqoffscreen.so platforms/libqwayland-generic.so
         platforms/libqwayland-egl.so xcbglintegrations/libqxcb-glx-integration.so
         xcbglintegrations/libqxcb-egl-integration.so wayland-shell-integration/libxdg-shell.so
         wayland-decoration-client/libbradient.so
         wayland-graphics-integration-client/libqt-plugin-wayland-egl.so
         platforminputcontexts/libcomposeplatforminputcontextplugin.so)
for p in "${plugins[@]}"; do
  mkdir -p "$stage/plugins/$(dirname "$p")"
  cp "$qt_plugins/$p" "$stage/plugins/$p"
done
cat > "$stage/bin/qt.conf" << 'EOF'
[Paths]
Prefix = ..
Plugins = plugins
EOF

# What xcorr-mpi loads through Open MPI is the host's; the rest of what it loads is bundled.
programs=("$stage"/bin/xcorr "$stage"/bin/xcorr-studio)
mapfile -t plugin_files < <(find "$stage/plugins" -name '*.so')
closure "${programs[@]}" "${plugin_files[@]}" > "$top/libs.txt"
if [ -x "$stage/bin/xcorr-mpi" ]; then
  mpi=$(ldd "$stage/bin/xcorr-mpi" | awk '$1 ~ /^libmpi\.so/ {print $3}')
  { echo "$mpi"; closure "$mpi"; } | sort -u > "$top/mpi.txt"
  closure "$stage/bin/xcorr-mpi" | comm -23 - "$top/mpi.txt" >> "$top/libs.txt"
  sort -u -o "$top/libs.txt" "$top/libs.txt"
fi
mkdir -p "$stage/lib"
while read -r lib; do
  base=$(basename "$lib")
  [[ $base =~ $floor ]] && continue
  [ -e "$stage/lib/$base" ] && continue  # the same library under /lib and /usr/lib
  cp -L "$lib" "$stage/lib/$base"
  chmod 0644 "$stage/lib/$base"
  echo "$lib" >> "$top/bundled.txt"
done < "$top/libs.txt"
for f in "$stage"/lib/*; do patchelf --set-rpath '$ORIGIN' "$f"; done
for f in "$stage"/bin/xcorr*; do patchelf --set-rpath '$ORIGIN/../lib' "$f"; done
for f in "${plugin_files[@]}"; do patchelf --set-rpath '$ORIGIN/../../lib' "$f"; done

# Nothing may still resolve outside the bundle but the floor (and Open MPI for xcorr-mpi).
outside=$(env -u LD_LIBRARY_PATH ldd "${programs[@]}" "${plugin_files[@]}" "$stage"/lib/* |
  awk '/=> \//{print $3}' | grep -v "^$(realpath "$stage")/" | xargs -r -n1 basename | sort -u |
  grep -Ev "$floor" || true)
if [ -n "$outside" ]; then echo "bundle: still loaded from the host: $outside"; exit 1; fi

# Licences: the product's, and the Debian copyright file of every package a file came from, with
# the package's version (its source is Debian's source package of that version).
mkdir -p "$docs/licenses"
cp installer/bundle/README.md "$stage/README.md"
mkdir -p "$stage/share/xcorr-studio/fonts"
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf \
   "$stage/share/xcorr-studio/fonts/"
cp installer/bundle/fonts.conf "$stage/share/xcorr-studio/fonts/"
owner() {  # the Debian package of a file, under /usr or not (merged /usr), link or target
  local f
  for f in "$1" "$(realpath "$1")"; do
    for g in "$f" "${f#/usr}" "/usr$f"; do
      dpkg-query -S "$g" 2> /dev/null | cut -d: -f1 && return
    done
  done
  echo "bundle: no Debian package owns $1" >&2; return 1
}
{ cat "$top/bundled.txt"; for p in "${plugins[@]}"; do echo "$qt_plugins/$p"; done
  echo /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf; } |
  while read -r f; do owner "$f"; done | sort -u > "$top/packages.txt"
while read -r pkg; do
  cp "/usr/share/doc/$pkg/copyright" "$docs/licenses/$pkg.copyright"
  dpkg-query -W -f='${Package} ${Version}\n' "$pkg" >> "$docs/licenses/PACKAGES.txt"
done < "$top/packages.txt"

# Launchers: the bundle's folder from the launcher's real path; Qt's plugin paths of the host's
# Qt are ignored; the bundled font when the host has no fontconfig set-up (a minimal system).
for exe in xcorr xcorr-studio xcorr-mpi; do
  [ -x "$stage/bin/$exe" ] || continue
  {
    echo '#!/bin/sh'
    echo "# Runs XCorr Studio's $exe from this bundle, wherever it is unpacked (README.md)."
    echo 'here=$(dirname "$(readlink -f "$0")")'
    echo 'unset QT_PLUGIN_PATH QT_QPA_PLATFORM_PLUGIN_PATH'
    echo '[ -e /etc/fonts/fonts.conf ] || export FONTCONFIG_FILE="$here/share/xcorr-studio/fonts/fonts.conf"'
    if [ "$exe" = xcorr-mpi ]; then
      echo 'if ! ldconfig -p 2> /dev/null | grep -q "libmpi\.so\.40 "; then'
      echo '  echo "xcorr-mpi: needs the host'"'"'s Open MPI (libmpi.so.40; e.g. the openmpi-bin package)" >&2; exit 1'
      echo 'fi'
    fi
    echo "exec \"\$here/bin/$exe\" \"\$@\""
  } > "$stage/$exe"
  chmod 0755 "$stage/$exe"
done
cp installer/bundle/install-desktop-entry "$stage/"

# The floor: the newest glibc and libstdc++ symbol versions that any bundled file asks for.
for v in GLIBC GLIBCXX CXXABI; do
  echo "$v $(find "$stage/bin" "$stage/lib" "$stage/plugins" -type f ! -name '*.conf' -print0 |
    xargs -0 readelf -V 2> /dev/null | grep -o "Name: ${v}_[0-9.]*" | sed "s/Name: ${v}_//" |
    sort -V | tail -n 1)"
done > "$docs/floor.txt"

tar -C "$top" -czf "$build/$name.tar.gz" "$name"
echo "bundle: $build/$name.tar.gz: $(du -m "$build/$name.tar.gz" | cut -f1) MiB packed," \
     "$(du -sm "$stage" | cut -f1) MiB unpacked, $(ls "$stage/lib" | wc -l) libraries" \
     "($(du -cm "$stage"/lib/* | tail -n 1 | cut -f1) MiB), $(wc -l < "$top/packages.txt") Debian packages;" \
     "floor: $(tr '\n' ' ' < "$docs/floor.txt")(written in $(( $(date +%s) - started )) s)"
# Start-up: the mean of 20 starts of each program (every library loaded and relocated).
for exe in xcorr xcorr-studio; do
  t0=$(date +%s%N)
  for _ in $(seq 20); do QT_QPA_PLATFORM=offscreen "$stage/$exe" --version > /dev/null 2>&1; done
  echo "bundle: $exe --version starts in $(( ($(date +%s%N) - t0) / 20000000 )) ms" \
       "($(ldd "$stage/bin/$exe" | grep -c '=>') libraries loaded)"
done
