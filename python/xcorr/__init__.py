"""XCorr Studio on numpy arrays: the same engine, choices and checks as the `xcorr` command.

The GPU is used when one is present and usable, the CPU otherwise, exactly as the CLI chooses
(`gpu_note()` says why a GPU is not used). Inputs of any real dtype are read as float32, the
engine's type (the CLI reads its files the same way); outputs are float32 arrays. A bad option
raises ValueError with the CLI's message. docs/python.md has a tutorial.
"""

from __future__ import annotations

import numpy as _np

from . import _core

__all__ = ["correlate", "devices", "gpu_note", "variants", "__version__"]
__version__ = _core.version


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
    for name, a in (("left", left), ("right", right)):
        if not isinstance(a, _np.ndarray):
            raise TypeError(f"{name}: expected a numpy array, got {type(a).__name__}")
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


def variants():
    """The correlation variants: dicts of name, family, device ("cpu"/"gpu"), summary and auto
    (whether method="auto" may pick it)."""
    return _core.variants()
