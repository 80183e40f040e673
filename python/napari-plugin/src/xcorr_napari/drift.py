"""Correct drift: xcorr.register on the chosen image layer, measured on its channel and z-plane
(or a projection over z); every channel of the same file (the reader's layers) moves with the
drift, and each is added as "<name> (corrected)" with its scale, colour and blending."""

import napari.viewer
import numpy as np
import xcorr
from qtpy.QtWidgets import QSpinBox

from .runner import RunWidget, frame_axes


class DriftWidget(RunWidget):
    def __init__(self, viewer: napari.viewer.Viewer):
        super().__init__(viewer, "Correct drift")
        self.image = self.layer_combo("image")
        self.form.addRow("Measure on", self.image)
        self.z = QSpinBox()
        self.z.setRange(0, 100000)
        self.z.setToolTip("The z-plane measured on (z-stacks; see z projection)")
        self.form.addRow("z-plane", self.z)
        self.options = self.option_fields(
            "register", ["reference", "method", "z_projection", "border", "upsample", "device"])

    def channels(self, layer):
        """The layers moved together: those of the same file and shape, by channel."""
        source = layer.metadata.get("xcorr_source")
        if source is None:
            return [layer]
        same = [l for l in self.viewer.layers if l._type_string == "image" and
                l.metadata.get("xcorr_source") == source and l.data.shape == layer.data.shape]
        return sorted(same, key=lambda l: l.metadata.get("xcorr_channel", 0))

    def prepare(self):
        layer = self.chosen(self.image)
        if layer is None:
            raise ValueError("open an image stack first")
        axes = frame_axes(layer)
        group = self.channels(layer)
        stack = np.stack([np.asarray(l.data) for l in group], axis=1)  # C after the first axis
        stack_axes = axes[0] + "C" + axes[1:]
        options = dict(self.options())
        options["channel"] = str(group.index(layer))
        options["z"] = self.z.value() if "Z" in axes else 0
        self._group, self._axes = group, stack_axes

        def work(progress, cancel):
            return xcorr.register(stack, axes=stack_axes, progress=progress, cancel=cancel,
                                  **options)

        return work

    def done(self, r):
        c = self._axes.index("C")
        added = []
        for i, layer in enumerate(self._group):
            data = r.corrected.take(i, axis=c)
            meta = dict(layer.metadata, xcorr_source=str(layer.metadata.get(
                "xcorr_source", layer.name)) + " (corrected)", xcorr_drift=r.to_pandas())
            added.append(self.viewer.add_image(
                data, name=f"{layer.name} (corrected)", scale=layer.scale,
                translate=layer.translate, colormap=layer.colormap.name,
                blending=layer.blending, contrast_limits=layer.contrast_limits, metadata=meta))
        ok = np.isfinite(r.dx)
        moved = np.hypot(r.dx[ok], r.dy[ok]).max() if ok.any() else 0.0
        failed = int((~ok).sum())
        return (f"{len(r.dx)} frames on the {r.device}: drift up to {moved:.2f} px; "
                f"{len(added)} channel(s) corrected" +
                (f"; {failed} frame(s) failed and were left out" if failed else ""))
