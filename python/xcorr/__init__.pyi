# Type stubs of the xcorr package (python/xcorr/__init__.py documents each function).
from typing import Any, Literal, TypedDict

import numpy as np
import numpy.typing as npt

__version__: str

class Device(TypedDict):
    index: int
    name: str
    compute_capability: tuple[int, int]
    multiprocessors: int
    memory_bytes: int

class Variant(TypedDict):
    name: str
    family: str
    device: Literal["cpu", "gpu"]
    summary: str
    auto: bool

def correlate(
    left: npt.NDArray[Any],
    right: npt.NDArray[Any],
    *,
    form: Literal["one_to_one", "one_to_many", "n_to_mn", "n_to_m"],
    mode: Literal["full", "valid"] = "full",
    norm: Literal["none", "zncc"] = "none",
    output: Literal["surface", "peak"] = "surface",
    method: str = "auto",
    accuracy: Literal["fast", "exact"] = "fast",
    subpixel: Literal["parabolic", "gaussian", "quadratic2d", "none"] = "parabolic",
) -> dict[str, Any]: ...
def devices() -> list[Device]: ...
def gpu_note() -> str: ...
def variants() -> list[Variant]: ...
