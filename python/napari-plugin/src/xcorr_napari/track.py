"""Track: xcorr.track of the rectangles of a Shapes layer (templates in frame 0) through the
chosen layer's frames; adds a Tracks layer of the templates' centres with the image's scale."""

import napari.viewer
import numpy as np
import xcorr
from qtpy.QtWidgets import QComboBox, QSpinBox

from .runner import RunWidget, frame_axes, plane_stack, to_image_pixels


class TrackWidget(RunWidget):
    def __init__(self, viewer: napari.viewer.Viewer):
        super().__init__(viewer, "Track")
        self.image = self.layer_combo("image")
        self.form.addRow("Image stack", self.image)
        self.templates = self.layer_combo("shapes", none="(none)")
        self.form.addRow("Templates (rectangles in frame 0)", self.templates)
        self.z = QSpinBox()
        self.z.setRange(0, 100000)
        self.form.addRow("z-plane", self.z)
        self.subpixel = QComboBox()
        self.subpixel.addItems(["quadratic2d", "parabolic", "gaussian", "none"])
        self.subpixel.setToolTip("Peak refinement (quadratic2d: the most accurate here)")
        self.form.addRow("Sub-pixel", self.subpixel)

    def prepare(self):
        layer = self.chosen(self.image)
        shapes = self.chosen(self.templates)
        if layer is None:
            raise ValueError("open an image stack first")
        if shapes is None or len(shapes.data) == 0:
            raise ValueError("draw the templates as rectangles in a Shapes layer first")
        frames = plane_stack(layer, self.z.value())
        rects = []
        for kind, vertices in zip(shapes.shape_type, shapes.data):
            if kind != "rectangle":
                raise ValueError(f"'{shapes.name}' holds a {kind}: templates are rectangles")
            rc = np.rint(to_image_pixels(shapes, layer, vertices)).astype(int)
            (y0, x0), (y1, x1) = rc.min(0), rc.max(0)
            rects.append((x0, y0, x1 - x0, y1 - y0))
        subpixel = self.subpixel.currentText()
        self._layer = layer

        def work(progress, cancel):
            return xcorr.track(frames, rects, subpixel=subpixel, progress=progress,
                               cancel=cancel)

        return work

    def done(self, r):
        layer = self._layer
        axes = frame_axes(layer)  # T(Z)YX: the tracks sit at the chosen z-plane
        z = self.z.value()
        rows = []
        for i, (x, y, w, h) in enumerate(r.templates):
            for t in range(r.x.shape[1]):
                if np.isfinite(r.x[i, t]):
                    at = {"T": t, "Z": z, "Y": r.y[i, t] + (h - 1) / 2,
                          "X": r.x[i, t] + (w - 1) / 2}
                    rows.append([i + 1] + [at[a] for a in axes])
        self.viewer.add_tracks(np.array(rows), name=f"{layer.name} tracks", scale=layer.scale,
                               translate=layer.translate, tail_length=r.x.shape[1],
                               metadata={"xcorr_tracks": r.to_pandas()})
        moved = np.nanmax(np.hypot(r.dx, r.dy))
        return f"{len(r.templates)} template(s) over {r.x.shape[1]} frames: up to {moved:.2f} px"
