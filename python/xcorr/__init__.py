"""XCorr Studio on numpy arrays: the same engine, choices and checks as the `xcorr` command.

The GPU is used when one is present and usable, the CPU otherwise, exactly as the CLI chooses
(`gpu_note()` says why a GPU is not used). Inputs of any real dtype are computed in float32, the
engine's type (the CLI reads its files the same way: uint8, uint16 and int16 exactly). Options
are keyword arguments named as the CLI's flags (`--search-radius` is search_radius=), parsed and
checked by the same tables: a bad value raises ValueError with the CLI's message.

Long calls (dic, register, track) release the GIL and take `progress` (called with done, total;
return False to stop) and `cancel` (anything with is_set(), such as threading.Event). They stop
within a second of Ctrl+C (KeyboardInterrupt), of cancel being set (Cancelled) or of progress
returning False (Cancelled); nothing is returned then. docs/python.md has a tutorial.
"""

from __future__ import annotations

import numpy as _np

from . import _core

__all__ = ["Cancelled", "DicResult", "RegisterResult", "TrackResult", "correlate", "devices",
           "dic", "gpu_note", "options", "read_stack", "register", "track", "variants",
           "__version__"]
__version__ = _core.version
Cancelled = _core.Cancelled
Cancelled.__doc__ = "A call stopped by its cancel token or by its progress callback returning False."
Cancelled.__module__ = "xcorr"


def correlate(left, right, *, form, mode="full", norm="none", output="surface",
              method="auto", accuracy="fast", subpixel="parabolic"):
    """Cross-correlate `left` with `right`, as `xcorr correlate` does.

    left, right: 2-D (rows, cols) or 3-D (count, rows, cols) arrays of real numbers.
    form: "one_to_one", "one_to_many", "n_to_mn" or "n_to_m" (which left matrix meets which
        right matrix; docs/correlation.md).
    mode: "full" (every overlap) or "valid" (left inside right, a template in a search window).
    norm: "none" or "zncc" (zero-normalised, in -1..1).
    output: "surface" (the correlation surfaces) or "peak" (each surface's best match; needs
        mode="valid").
    method: "auto" (the fastest variant for the problem, GPU when present) or a variant's name
        from variants().
    accuracy: "fast" or "exact" (which variants auto may pick).
    subpixel: the peak refinement for output="peak": "parabolic", "gaussian", "quadratic2d",
        "none".

    Returns a dict: "variant" (what ran), "params", "seconds" (the engine's time) and either
    "surface" (float32; 2-D when both inputs are 2-D, else (count, rows, cols)) or, for peaks,
    arrays named as the columns of `xcorr correlate --output peak`: "left", "right" (the pair),
    "row", "col" (the maximum), "value", "sub_row", "sub_col" (refined), and the displacement
    "dy", "dx" in pixels.
    """
    _arrays(left=left, right=right)
    result = _core.correlate(left, right, form, mode, norm, output, method, accuracy, subpixel)
    for key in ("left", "right", "row", "col"):
        if key in result:
            result[key] = _np.asarray(result[key], dtype=_np.int64)
    for key in ("value", "sub_row", "sub_col", "dy", "dx"):
        if key in result:
            result[key] = _np.asarray(result[key], dtype=_np.float64)
    return result


def devices():
    """The CUDA devices this build can use: dicts of index, name, compute_capability,
    multiprocessors and memory_bytes (empty without a GPU or a CUDA build)."""
    return _core.devices()


def gpu_note():
    """Why GPU work cannot run here ("" when it can): the build, no device, the driver."""
    return _core.gpu_note()


def options(command):
    """The options of `command` ("dic" or "register") as the CLI declares them: dicts of key
    (the keyword name), label, unit, doc, kind ("integer", "real", "choice", "text"), default
    (as text), lo and hi (numbers) and choices."""
    return _core.options(command)


def variants():
    """The correlation variants: dicts of name, family, device ("cpu"/"gpu"), summary and auto
    (whether method="auto" may pick it)."""
    return _core.variants()


def _arrays(**arrays):
    for name, a in arrays.items():
        if not isinstance(a, _np.ndarray):
            raise TypeError(f"{name}: expected a numpy array, got {type(a).__name__}")


def _scale_columns(table, scale_x, scale_y, unit, columns):
    """Adds <name>_<unit> columns (values times the pixel size) after the pixel columns."""
    for name, axis in columns:
        table[f"{name}_{unit}"] = table[name] * (scale_x if axis == "x" else scale_y)


class DicResult:
    """What xcorr.dic returns: the grid and one array per field.

    x, y: (grid rows, grid cols) px, each point's position in the reference (origin at the
        top-left pixel centre). in_roi: 1 where the point is inside the ROI.
    frame: (frames,) the frame numbers (1-based, as the CSV's frame column).
    u, v (px), ux, uy, vx, vy (displacement gradients), exx, eyy, exy (strain, dimensionless),
        zncc, sigma_u, sigma_v (px, noise-based standard uncertainty), iterations, status:
        (frames, grid rows, grid cols). status holds codes; status_labels[code] names each
        ("converged", "diverged", ...); status_text() gives the names.
    settings: every option as the CLI's CSV header states it; roi, device ("cpu"/"gpu"),
        guess_variant, pixel_size ((x, y) in unit, or None), unit, frame_interval_s (or None).
    """

    def __init__(self, d):
        self.__dict__.update(d)

    def status_text(self):
        """status as an array of names."""
        return _np.asarray(self.status_labels, dtype=object)[self.status]

    def to_pandas(self):
        """The table `xcorr dic --out` writes: one row per point (inside the ROI unless
        roi_only="off") and frame, columns frame,x,y,u,v,exx,eyy,exy,zncc,iterations,status,
        sigma_u,sigma_v, then x_<unit>,... with a pixel size and time_s with a frame interval."""
        import pandas as pd

        keep = (self.in_roi.ravel() == 1) if self.settings["roi_only"] == "on" else \
            _np.ones(self.in_roi.size, dtype=bool)
        n = int(keep.sum())
        frames = len(self.frame)
        table = {
            "frame": _np.repeat(self.frame, n),
            "x": _np.tile(self.x.ravel()[keep], frames),
            "y": _np.tile(self.y.ravel()[keep], frames),
        }
        for name in ("u", "v", "exx", "eyy", "exy", "zncc", "iterations"):
            table[name] = getattr(self, name).reshape(frames, -1)[:, keep].ravel()
        table["status"] = self.status_text().reshape(frames, -1)[:, keep].ravel()
        for name in ("sigma_u", "sigma_v"):
            table[name] = getattr(self, name).reshape(frames, -1)[:, keep].ravel()
        if self.pixel_size is not None:
            px, py = self.pixel_size
            _scale_columns(table, px, py, self.unit, [("x", "x"), ("y", "y"), ("u", "x"),
                                                      ("v", "y"), ("sigma_u", "x"),
                                                      ("sigma_v", "y")])
        if self.frame_interval_s is not None:
            table["time_s"] = table["frame"] * self.frame_interval_s
        return pd.DataFrame(table)


def dic(reference, frames, *, roi=None, progress=None, cancel=None, **options):
    """Subset-based 2-D DIC of `frames` against `reference`, as `xcorr dic` runs it.

    reference: a 2-D (rows, cols) array; frames: one 2-D frame or a 3-D (frames, rows, cols)
        stack of the same size. Non-finite pixels are missing data: points whose subset touches
        one get status "missing_data".
    roi: None (the whole image), or shapes as `xcorr dic --roi` takes them, applied in order:
        "rect:x,y,w,h", "ellipse:cx,cy,rx,ry", "poly:x1,y1,x2,y2,..." (px; a leading "-"
        subtracts), one string or a list.
    options: the DIC options by name (docs/dic.md): subset=, step=, search_radius=, shape=,
        interpolation=, propagation=, stack_mode=, strain=, device= ("auto", "cpu", "gpu"),
        pixel_size= ("0.65um"), frame_interval= ("2s"), ... (channel and z belong to files).
    Returns a DicResult.
    """
    _arrays(reference=reference, frames=frames)
    shapes = [] if roi is None else [roi] if isinstance(roi, str) else list(roi)
    return DicResult(_core.dic(reference, frames, shapes, options, progress, cancel))


class RegisterResult:
    """What xcorr.register returns.

    frame: (time points,) 0-based; dx, dy: px, the drift of each time point from the reference
        (a feature at (x, y) in the reference is at (x + dx, y + dy) in the frame; NaN where the
        frame failed; transforms: where the frame's centre went); peak: the correlation peak (ZNCC
        of the fit for transforms); failed: why a frame could not be used ("" when it was).
    dz: z-planes, the drift along z of each time point's volume (dims 3: stacks of 8 z-planes
        and more, or dims="3"; 0 otherwise); volumes: whether the volumes were registered.
    angle: degrees (from +x towards +y, clockwise as shown), scale: sqrt(|det|), matrix:
        (time points, 2, 3) px, a reference pixel (x, y) is at matrix @ (x, y, 1) in the frame
        (transform="rigid", "similarity" or "affine"; translations give 0, 1 and the shift).
    corrected: the stack moved back by the drift, every channel and z-plane, in the input's axes
        and dtype (uint8 and uint16 rounded as the CLI's TIFF holds them; other integer dtypes as
        float32), failed time points left out; None when not asked for.
    area: (x, y, width, height) px of the input the corrected frames show (border="crop" cuts it
        to what every frame covers). settings, device, pixel_size, unit, frame_interval_s: as
        the drift CSV's header states them.
    """

    def __init__(self, d):
        self.__dict__.update(d)
        self.matrix = _np.asarray(self.matrix, dtype=_np.float64).reshape(-1, 2, 3)

    def to_pandas(self):
        """The drift table `xcorr register --drift` writes: frame, time_s (with a frame
        interval), dx, dy, dx_<unit>, dy_<unit> (with a pixel size), peak."""
        import pandas as pd

        table = {"frame": self.frame}
        if self.frame_interval_s is not None:
            table["time_s"] = self.frame * self.frame_interval_s
        table["dx"], table["dy"] = self.dx, self.dy
        if self.volumes:
            table["dz"] = self.dz
        if self.settings.get("transform", "translation") != "translation":
            table["angle_deg"], table["scale"] = self.angle, self.scale
            for k, name in enumerate(("a11", "a12", "a13", "a21", "a22", "a23")):
                table[name] = self.matrix[:, k // 3, k % 3]
        if self.pixel_size is not None:
            _scale_columns(table, *self.pixel_size, self.unit, [("dx", "x"), ("dy", "y")])
        table["peak"] = self.peak
        return pd.DataFrame(table)


_AXES = "TZCYX"  # the order the engine takes a stack in (ImageJ's page order, c fastest)


def _check_axes(axes, ndim):
    if axes is None:
        if ndim == 3:
            return "TYX"
        raise ValueError(f"axes: a {ndim}-D stack needs its axes named, e.g. axes=\"TCZYX\"")
    axes = axes.upper()
    if len(axes) != ndim or len(set(axes)) != ndim or not set(axes) <= set(_AXES) or \
            not {"T", "Y", "X"} <= set(axes):
        raise ValueError(f"axes='{axes}': expected {ndim} distinct letters of TCZYX with T, Y "
                         f"and X, one per axis of the {ndim}-D stack")
    return axes


def register(stack, axes=None, *, corrected=True, progress=None, cancel=None, **options):
    """Drift correction (rigid translation) of a stack, as `xcorr register` runs it.

    stack: an array with axes `axes` (letters of TCZYX in the array's order; None: "TYX" for a
        3-D stack). Time points are the frames; the shift is measured on one channel and z-plane
        (channel=, z=) or a projection over z (z_projection=), and every channel and z-plane is
        moved with it. Non-finite pixels are missing data.
    corrected: also return the corrected stack (False: the drift only).
    options: the registration options by name (docs/registration.md): reference= ("first",
        "previous", "mean"), method= ("phase", "zncc"), upsample=, window=, whiten=,
        iterations=, device=, region= ("rect:x,y,w,h"), max_shift=, z_projection=, border=
        ("pad", "crop"), channel= ("0", "1", ...), z=, pixel_size= ("0.65um"),
        frame_interval= ("2s").
    Returns a RegisterResult.
    """
    _arrays(stack=stack)
    axes = _check_axes(axes, stack.ndim)
    present = [a for a in _AXES if a in axes]
    arr = _np.transpose(stack, [axes.index(a) for a in present])
    full = tuple(arr.shape[present.index(a)] if a in present else 1 for a in _AXES)
    arr = arr.reshape(full)
    pixel_type = {"uint8": "u8", "uint16": "u16"}.get(stack.dtype.name, "f32")
    r = _core.register_stack(arr, pixel_type, options, corrected, progress, cancel)
    r["frame"] = _np.asarray(r["frame"], dtype=_np.int64)
    for key in ("dx", "dy", "peak"):
        r[key] = _np.asarray(r[key], dtype=_np.float64)
    if corrected:
        pages = r["corrected"]
        moved = pages.reshape((-1,) + full[1:3] + pages.shape[1:])  # (T', Z, C, Y', X')
        # the axes the input has (those it lacks have length 1), then in the input's order
        moved = moved.reshape([moved.shape[_AXES.index(a)] for a in present])
        moved = _np.transpose(moved, [present.index(a) for a in axes])
        if pixel_type != "f32" or stack.dtype.kind == "f":
            moved = moved.astype(stack.dtype, copy=False)
        r["corrected"] = _np.ascontiguousarray(moved)
    else:
        r["corrected"] = None
    return RegisterResult(r)


class TrackResult:
    """What xcorr.track returns: x, y (px, each template's top-left corner) and zncc (its peak),
    (templates, frames) with frame 0 the reference; NaN where the match touches missing pixels.
    dx, dy: the motion from the reference position. templates: the (x, y, w, h) tracked."""

    def __init__(self, d):
        self.__dict__.update(d)
        self.dx = self.x - self.x[:, :1]
        self.dy = self.y - self.y[:, :1]

    def to_pandas(self):
        """One row per frame and template: frame, template (1-based), x, y, dx, dy, zncc."""
        import pandas as pd

        n, frames = self.x.shape
        return pd.DataFrame({
            "frame": _np.tile(_np.arange(frames), n),
            "template": _np.repeat(_np.arange(1, n + 1), frames),
            "x": self.x.ravel(), "y": self.y.ravel(), "dx": self.dx.ravel(),
            "dy": self.dy.ravel(), "zncc": self.zncc.ravel()})


def track(stack, templates, *, subpixel="quadratic2d", method="auto", accuracy="fast",
          progress=None, cancel=None):
    """Template tracking through a (frames, rows, cols) stack, as the desktop app's Track runs
    it: each template, a rectangle (x, y, width, height) px of frame 0, is found in every frame
    by ZNCC (the maximum over the whole frame, refined by `subpixel`).
    Returns a TrackResult."""
    _arrays(stack=stack)
    rects = [[int(v) for v in t] for t in _np.atleast_2d(_np.asarray(templates))]
    return TrackResult(_core.track(stack, rects, subpixel, method, accuracy, progress, cancel))


def read_stack(path, *, channel="luminance"):
    """A stack file as the engine reads it (multi-page TIFF, OME-TIFF, ImageJ hyperstack, PNG,
    BMP, JPEG, or a folder of images): every page, and its metadata.

    Returns (array, metadata). The array has the axes metadata["axes"] (of "TCZYX", an axis of
    length 1 left out: "TYX" for a plain stack, "YX" for one image) and the file's dtype
    (uint8, uint16; float32 for other pixel types, which the engine reads as float32). Colour
    images give `channel` ("luminance", "red", "green", "blue"). metadata: axes, pixel_size
    ((x, y) in unit, or None), unit, frame_interval_s, spacing_z, channel_names, source (where
    the scale came from: "OME-XML", "ImageJ description" or "").
    A damaged file, or one whose metadata disagrees with its pages, raises ValueError naming it.
    """
    d = _core.read_stack(str(path), channel)
    pages = d.pop("pages").transpose(0, 2, 1, 3, 4)  # (T, C, Z, Y, X)
    keep = [i for i, n in enumerate(pages.shape[:3]) if n > 1] + [3, 4]
    axes = "".join("TCZYX"[i] for i in keep)
    array = pages.reshape([pages.shape[i] for i in keep])
    dtype = {"u8": _np.uint8, "u16": _np.uint16}.get(d["pixel_type"], _np.float32)
    d["axes"] = axes
    d["source"] = d.pop("metadata_source")
    return _np.ascontiguousarray(array.astype(dtype, copy=False)), d
