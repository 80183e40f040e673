"""DIC: xcorr.dic of the chosen layer's frames against its reference frame (at the chosen
z-plane), over the ROI drawn in a Shapes layer (rectangles, ellipses, polygons; none: the whole
image). Adds the displacement vectors (every frame on the time axis) and a map of one field on
the grid, both with the image's scale."""

import napari.viewer
import numpy as np
import xcorr
from qtpy.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox

from .runner import RunWidget, frame_axes, plane_stack, to_image_pixels

FIELDS = ["u", "v", "exx", "eyy", "exy", "zncc", "sigma_u", "sigma_v"]


def roi_text(shapes, image):
    """The Shapes layer's shapes as `xcorr dic --roi` text, in image px (x = column)."""
    out = []
    for kind, vertices in zip(shapes.shape_type, shapes.data):
        rc = to_image_pixels(shapes, image, vertices)
        y0, x0 = rc.min(0)
        y1, x1 = rc.max(0)
        if kind == "rectangle":
            out.append(f"rect:{x0:.6g},{y0:.6g},{x1 - x0:.6g},{y1 - y0:.6g}")
        elif kind == "ellipse":
            out.append(f"ellipse:{(x0 + x1) / 2:.6g},{(y0 + y1) / 2:.6g},{(x1 - x0) / 2:.6g},"
                       f"{(y1 - y0) / 2:.6g}")
        elif kind == "polygon":
            out.append("poly:" + ",".join(f"{x:.6g},{y:.6g}" for y, x in rc))
        else:
            raise ValueError(f"'{shapes.name}' holds a {kind}: a region of interest is a "
                             f"rectangle, an ellipse or a polygon")
    return out


class DicWidget(RunWidget):
    def __init__(self, viewer: napari.viewer.Viewer):
        super().__init__(viewer, "Run DIC")
        self.image = self.layer_combo("image")
        self.form.addRow("Image stack", self.image)
        self.roi = self.layer_combo("shapes", none="(whole image)")
        self.form.addRow("ROI", self.roi)
        self.reference = QSpinBox()
        self.reference.setRange(0, 1000000)
        self.reference.setToolTip("The frame (0-based) the others are compared with")
        self.form.addRow("Reference frame", self.reference)
        self.z = QSpinBox()
        self.z.setRange(0, 100000)
        self.form.addRow("z-plane", self.z)
        self.options = self.option_fields(
            "dic", ["subset", "step", "search_radius", "shape", "propagation", "stack_mode",
                    "strain", "device"])
        self.field = QComboBox()
        self.field.addItems(FIELDS)
        self.form.addRow("Map of", self.field)
        self.scale_vectors = QDoubleSpinBox()
        self.scale_vectors.setRange(0, 1e6)
        self.scale_vectors.setSpecialValueText("auto")
        self.scale_vectors.setToolTip("Vector length per px of displacement (auto: the largest "
                                      "is one grid step long)")
        self.form.addRow("Vector scale", self.scale_vectors)

    def prepare(self):
        layer = self.chosen(self.image)
        if layer is None:
            raise ValueError("open an image stack first")
        frames = plane_stack(layer, self.z.value())
        ref = self.reference.value()
        if not 0 <= ref < len(frames):
            raise ValueError(f"'{layer.name}' has {len(frames)} frames (numbered from 0): no "
                             f"reference frame {ref}")
        if len(frames) < 2:
            raise ValueError(f"'{layer.name}' holds one frame: DIC needs at least two")
        shapes = self.chosen(self.roi)
        roi = roi_text(shapes, layer) if shapes is not None else None
        options = self.options()
        others = [k for k in range(len(frames)) if k != ref]
        self._layer, self._times, self._ref = layer, others, ref

        def work(progress, cancel):
            return xcorr.dic(frames[ref], frames[others], roi=roi, progress=progress,
                             cancel=cancel, **options)

        return work

    def done(self, r):
        layer = self._layer
        axes = frame_axes(layer)  # T(Z)YX: the results sit at the chosen z-plane
        z = self.z.value()
        frames = len(self._times) + 1
        step = float(r.settings["step"])
        ok = r.status == r.status_labels.index("converged")
        # vectors: every converged point of every frame, at (t, [z,] y, x), pointing by (v, u)
        largest = np.nanmax(np.hypot(r.u[ok], r.v[ok])) if ok.any() else 0.0
        factor = self.scale_vectors.value() or (step / largest if largest > 0 else 1.0)
        pos, vec, mag = [], [], []
        for k, t in enumerate(self._times):
            m = ok[k]
            n = int(m.sum())
            where = {"T": np.full(n, t), "Z": np.full(n, z), "Y": r.y[m], "X": r.x[m]}
            move = {"T": np.zeros(n), "Z": np.zeros(n), "Y": r.v[k][m], "X": r.u[k][m]}
            pos.append(np.column_stack([where[a] for a in axes]))
            vec.append(np.column_stack([move[a] for a in axes]) * factor)
            mag.append(np.hypot(r.u[k][m], r.v[k][m]))
        vectors = np.stack([np.concatenate(pos), np.concatenate(vec)], axis=1)
        name = layer.name
        self.viewer.add_vectors(
            vectors, name=f"{name} displacement", scale=layer.scale, translate=layer.translate,
            properties={"magnitude_px": np.concatenate(mag)}, edge_color="magnitude_px",
            edge_colormap="plasma", edge_width=max(step / 6, 1.0), length=1.0,
            metadata={"xcorr_dic": r, "xcorr_vector_factor": factor})
        # the map: the field on the grid, NaN where the point did not converge; the reference
        # frame holds zero displacement
        field = self.field.currentText()
        grid = np.full((frames,) + r.x.shape, np.nan)
        values = np.where(ok, getattr(r, field), np.nan)
        for k, t in enumerate(self._times):
            grid[t] = values[k]
        if field in ("u", "v", "exx", "eyy", "exy"):
            grid[self._ref] = np.where(r.in_roi == 1, 0.0, np.nan)
        if "Z" in axes:
            grid = np.expand_dims(grid, axes.index("Z"))
        y0, x0 = r.y[0, 0], r.x[0, 0]
        scale = [s * (step if a in "YX" else 1) for a, s in zip(axes, layer.scale)]
        offset = {"T": 0.0, "Z": float(z), "Y": y0, "X": x0}
        translate = [t0 + offset[a] * s for a, s, t0 in zip(axes, layer.scale, layer.translate)]
        finite = grid[np.isfinite(grid)]
        limits = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if limits[0] == limits[1]:
            limits = (limits[0] - 1e-9, limits[1] + 1e-9)
        self.viewer.add_image(
            grid.astype(np.float32), name=f"{name} {field}", colormap="turbo", opacity=0.6,
            scale=scale, translate=translate, contrast_limits=limits, metadata={"xcorr_dic": r})
        converged = int(ok.sum())
        return (f"{converged} of {ok.size} point-frames converged on the {r.device} "
                f"({len(self._times)} frames, grid {r.x.shape[1]}x{r.x.shape[0]}); vectors x"
                f"{factor:.3g}")
