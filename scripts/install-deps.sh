#!/usr/bin/env bash
# Installs what XCorr Studio needs on Debian 12, by package name; installs only what is missing.
# The CUDA toolkit is optional and not installed here: CMake uses it when nvcc is present.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config git ccache
  libgtest-dev libgmock-dev libbenchmark-dev       # tests and benchmarks
  libcli11-dev nlohmann-json3-dev                  # CLI, job files
  libfftw3-dev                                     # cpu_fft
  zlib1g-dev                                       # CRC-32 of batch commits
  libtiff-dev libpng-dev libjpeg-dev libstb-dev     # image I/O (stb: its BMP reader alone)
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev  # references in tests, bench
  libxml2-dev                                      # OME-XML metadata
  libzip-dev                                       # ImageJ ROI Manager files (.zip)
  python3-dev python3-pip                          # the Python package (python/)
  libopenmpi-dev openmpi-bin                       # xcorr-mpi and its test (mpirun)
  qt6-base-dev libqcustomplot-dev libgl-dev        # desktop app
  libgif-dev                                       # its movies (animated GIF)
  xvfb xauth                                       # GUI tests and screenshots without a display
  qt6-wayland fonts-dejavu-core patchelf debootstrap  # the bundle (scripts/bundle.sh) and its check
  clang libclang-rt-14-dev                         # libFuzzer targets (scripts/fuzz.sh)
  clang-format clang-tidy                          # style checks (.clang-format, .clang-tidy)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The Python package's module and tests, for the python3 first on PATH (CMake builds the
# module for it): pybind11 (2.12+: NumPy 2's arrays; Debian 12 has 2.10), numpy, pytest, tifffile
# (the tests' hyperstacks) and pandas (to_pandas), and for the napari plugin (python/napari-plugin)
# napari with PyQt6 and pytest-qt (its test fixture); from PyPI when that Python lacks them.
if ! python3 -c "import numpy, pytest, pybind11, tifffile, pandas, napari, pytestqt, PyQt6; assert tuple(map(int, pybind11.__version__.split('.')[:2])) >= (2, 12)" 2>/dev/null; then
  echo "install-deps: pip installing pybind11, numpy, pytest, tifffile, pandas, napari, pytest-qt for $(command -v python3)"
  python3 -m pip install --quiet --upgrade "pybind11>=2.12" numpy pytest tifffile pandas \
    "napari[pyqt6]" pytest-qt
fi
