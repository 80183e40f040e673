"""docs/screenshots/napari-plugin.png: napari with the xcorr-napari docks after two runs, under
Xvfb (scripts/screenshots.sh runs it), on a real 2-channel hyperstack: scikit-image's IHC section
from Debian (scripts/real-images.sh), its red and blue planes inverted as two channels, 2
z-planes, 8 time points with a random drift, 0.5 um px. Left: the corrected channels (Correct
drift, measured on channel 1), composite. Right: the raw channel 1 with DIC's displacement
vectors of the shown time point (the drift itself, since the section does not deform).
Usage: PYTHONPATH=<build>/python:python/napari-plugin/src XCORR_EXE=<build>/app/xcorr
       xvfb-run -a -s "-screen 0 1600x1000x24" python3 scripts/napari_screenshot.py OUT.png REAL"""

import os
import pathlib
import sys
import tempfile

import napari
import npe2
import numpy as np
import tifffile
from PIL import Image
from qtpy.QtWidgets import QApplication

out, real = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
work = pathlib.Path(tempfile.mkdtemp())
pm = npe2.PluginManager.instance()
if "xcorr-napari" not in pm._manifests:
    pm.register(npe2.PluginManifest.from_file(
        pathlib.Path(__file__).parents[1] / "python/napari-plugin/src/xcorr_napari/napari.yaml"))


def shifted(image, dy, dx):
    ky = np.fft.fftfreq(image.shape[0])[:, None]
    kx = np.fft.fftfreq(image.shape[1])[None, :]
    return np.real(np.fft.ifft2(np.fft.fft2(image) * np.exp(-2j * np.pi * (ky * dy + kx * dx))))


rgb = np.asarray(Image.open(real / "ihc.png").convert("RGB"), dtype=np.float64)
channels = [255 - rgb[..., 0], 255 - rgb[..., 2]]  # haematoxylin-like, DAB-like
rng = np.random.default_rng(2)
walk = np.cumsum(rng.normal(0, 1.5, (8, 2)), axis=0)
walk -= walk[0]
frames = []
for dy, dx in walk:
    planes = []
    for z in range(2):
        planes.append([shifted(c * (1 - 0.3 * z), dy, dx)[40:-40, 40:-40] for c in channels])
    frames.append(planes)
h = np.clip(np.rint(np.array(frames)), 0, 255).astype(np.uint8)  # T Z C Y X
tifffile.imwrite(work / "ihc_drift.tif", h, imagej=True, resolution=(1 / 0.5, 1 / 0.5),
                 metadata={"axes": "TZCYX", "unit": "um", "finterval": 30.0})
exe = os.environ.get("XCORR_EXE", "xcorr")

viewer = napari.Viewer(title="XCorr Studio in napari")
viewer.window.resize(1600, 1000)
raw = viewer.open(work / "ihc_drift.tif", plugin="xcorr-napari")
_, drift = viewer.window.add_plugin_dock_widget("xcorr-napari", "Correct drift")
_, dic = viewer.window.add_plugin_dock_widget("xcorr-napari", "DIC", tabify=True)


def finish(widget):
    widget.run_button.click()
    while widget.running():
        QApplication.processEvents()
    for _ in range(20):
        QApplication.processEvents()


drift.image.setCurrentText(raw[1].name)
finish(drift)
dic.image.setCurrentText(raw[1].name)
dic.editors["subset"].setValue(41)
dic.editors["step"].setValue(24)
finish(dic)
viewer.layers[f"{raw[1].name} u"].visible = False
raw[0].visible = False
# the grid's cells, from the top of the layer list: the corrected composite, then raw channel 1
# with its vectors (the hidden u map and raw channel 0 go with them, unseen)
order = [raw[0], viewer.layers[f"{raw[1].name} u"], raw[1],
         viewer.layers[f"{raw[1].name} displacement"],
         viewer.layers[f"{raw[0].name} (corrected)"], viewer.layers[f"{raw[1].name} (corrected)"]]
for i, layer in enumerate(order):
    viewer.layers.move(viewer.layers.index(layer), i)
raw[1].colormap = "gray"
raw[1].blending = "translucent"
viewer.grid.enabled = True
viewer.grid.stride = 4
viewer.dims.set_current_step(0, 6 * 30)
viewer.layers.selection.active = viewer.layers[f"{raw[1].name} displacement"]
print(drift.status.text())
print(dic.status.text())
viewer.reset_view()
for _ in range(20):
    QApplication.processEvents()
viewer.screenshot(str(out), canvas_only=False)
print(f"wrote {out}")
