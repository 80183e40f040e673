#!/usr/bin/env bash
# The README's Python install, from this clone, as a user runs it: `pip install .` into a virtual
# environment that sees the system's packages (numpy, pytest, napari), the README's import line
# (from another folder, so that the installed package is imported), `pip install
# ./python/napari-plugin` and napari's discovery of it (npe2), then the pytest suite against the
# installed package. Its build folder (build/pip/) shares the CI build's objects through ccache:
# XCORR_WERROR is on here as in the CI preset, and the compiler is the CI build's, so the flags
# match (python/src differs: pip's own pybind11).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=$root/build/pip-venv
rm -rf "$venv"
python3 -m venv --system-site-packages "$venv"
start=$(date +%s)
# The CI build's C++ compiler by the same name (CMake's choice there is /usr/bin/c++, pip's
# g++; ccache hashes the name, so with another name nothing of core was shared).
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:FILEPATH=//p' build/ci/CMakeCache.txt 2>/dev/null || true)
"$venv/bin/pip" install --quiet -C cmake.define.XCORR_WERROR=ON \
  ${cxx:+-C cmake.define.CMAKE_CXX_COMPILER="$cxx"} .
echo "pip install .: $(( $(date +%s) - start )) s"
cd /tmp
"$venv/bin/python" -c "import xcorr; print(xcorr.__version__, xcorr.devices() or xcorr.gpu_note())"
"$venv/bin/python" -c "import xcorr; print('imported from', xcorr.__file__)"
"$venv/bin/pip" install --quiet --no-deps "$root/python/napari-plugin"
"$venv/bin/python" -c "
import npe2
pm = npe2.PluginManager.instance()
pm.discover()
m = pm.get_manifest('xcorr-napari')
print('napari plugin', m.name, 'docks:', ', '.join(w.display_name for w in m.contributions.widgets))"
cd "$root"
XCORR_EXE=$root/build/ci/app/xcorr "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  -W ignore::DeprecationWarning python/tests
