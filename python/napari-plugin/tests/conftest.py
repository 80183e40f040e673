"""The plugin's tests run in napari's own test fixture (make_napari_viewer: a real viewer,
offscreen Qt). The plugin is registered from its manifest when it is not installed (tests from
the build folder: PYTHONPATH holds python/napari-plugin/src)."""

import os
import pathlib
import subprocess

import npe2
import pytest

MANIFEST = pathlib.Path(__file__).parents[1] / "src" / "xcorr_napari" / "napari.yaml"
EXE = os.environ.get("XCORR_EXE", "xcorr")


@pytest.fixture
def plugin():
    pm = npe2.PluginManager.instance()
    if "xcorr-napari" not in pm._manifests:
        pm.register(npe2.PluginManifest.from_file(MANIFEST))
    return pm


@pytest.fixture
def speckle_file(tmp_path):
    def make(name, **flags):
        path = tmp_path / name
        args = [EXE, "speckle", "--out", str(path)]
        for key, value in flags.items():
            args += [f"--{key.replace('_', '-')}",
                     ",".join(map(str, value)) if isinstance(value, (tuple, list)) else str(value)]
        subprocess.run(args, check=True, capture_output=True)
        return path

    return make
