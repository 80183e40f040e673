#!/usr/bin/env bash
# Builds the NPP anchor (tests/bench/npp_anchor.cpp) into DEST/bin and copies the two NPP
# libraries it needs into DEST/lib. NPP comes from PyPI (nvidia-npp, CUDA 13), fetched once into
# .npp/ (git-ignored). Not part of the product or of CI: only scripts/gpu/pack.sh calls it.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=${1:?usage: build_npp_anchor.sh DEST}
version=13.0.3.3
npp=.npp/nvidia/cu13
if [ ! -f "$npp/lib/libnppist.so.13" ]; then
  mkdir -p .npp
  python3 -m pip download -q --no-deps -d .npp "nvidia-npp==$version"
  (cd .npp && unzip -q -o nvidia_npp-*.whl 'nvidia/cu13/include/*' 'nvidia/cu13/lib/libnppist.so.13' \
     'nvidia/cu13/lib/libnppc.so.13' && rm -f nvidia_npp-*.whl)
fi
cuda=$(dirname "$(dirname "$(command -v nvcc)")")
mkdir -p "$dest/bin" "$dest/lib"
g++ -O2 -std=c++17 -o "$dest/bin/npp_anchor" tests/bench/npp_anchor.cpp -I"$npp/include" \
  -I"$cuda/include" -L"$npp/lib" -l:libnppist.so.13 -l:libnppc.so.13 -L"$cuda/lib64" \
  -lcudart_static -ldl -lrt -lpthread -Wl,-rpath,'$ORIGIN/../lib'
cp "$npp/lib/libnppist.so.13" "$npp/lib/libnppc.so.13" "$dest/lib/"
echo "npp_anchor built against nvidia-npp $version"
