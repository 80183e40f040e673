# Type stubs of the xcorr package (python/xcorr/__init__.py documents each function).
from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any, Literal, Protocol, TypedDict

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

class Cancelled(Exception): ...

class Option(TypedDict):
    key: str
    label: str
    unit: str
    doc: str
    kind: Literal["integer", "real", "choice", "text"]
    default: str
    lo: float
    hi: float
    choices: list[str]

def options(command: Literal["dic", "register"]) -> list[Option]: ...

Progress = Callable[[float, float], bool | None]

class _Token(Protocol):
    def is_set(self) -> bool: ...

class DicResult:
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    in_roi: npt.NDArray[np.uint8]
    frame: npt.NDArray[np.int64]
    u: npt.NDArray[np.float64]
    v: npt.NDArray[np.float64]
    ux: npt.NDArray[np.float64]
    uy: npt.NDArray[np.float64]
    vx: npt.NDArray[np.float64]
    vy: npt.NDArray[np.float64]
    exx: npt.NDArray[np.float64]
    eyy: npt.NDArray[np.float64]
    exy: npt.NDArray[np.float64]
    zncc: npt.NDArray[np.float64]
    sigma_u: npt.NDArray[np.float64]
    sigma_v: npt.NDArray[np.float64]
    iterations: npt.NDArray[np.int32]
    status: npt.NDArray[np.uint8]
    status_labels: list[str]
    settings: dict[str, str]
    roi: list[str]
    device: str
    guess_variant: str
    seconds: float
    pixel_size: tuple[float, float] | None
    unit: str
    frame_interval_s: float | None
    def status_text(self) -> npt.NDArray[np.object_]: ...
    def to_pandas(self) -> Any: ...

def dic(
    reference: npt.NDArray[Any],
    frames: npt.NDArray[Any],
    *,
    roi: str | Sequence[str] | None = None,
    progress: Progress | None = None,
    cancel: _Token | None = None,
    **options: str | int | float,
) -> DicResult: ...

class RegisterResult:
    frame: npt.NDArray[np.int64]
    dx: npt.NDArray[np.float64]
    dy: npt.NDArray[np.float64]
    peak: npt.NDArray[np.float64]
    dz: npt.NDArray[np.float64]
    volumes: bool
    angle: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    matrix: npt.NDArray[np.float64]
    failed: list[str]
    corrected: npt.NDArray[Any] | None
    area: tuple[int, int, int, int]
    settings: dict[str, str]
    device: str
    seconds: float
    pixel_size: tuple[float, float] | None
    unit: str
    frame_interval_s: float | None
    def to_pandas(self) -> Any: ...

def register(
    stack: npt.NDArray[Any],
    axes: str | None = None,
    *,
    corrected: bool = True,
    progress: Progress | None = None,
    cancel: _Token | None = None,
    **options: str | int | float,
) -> RegisterResult: ...

class TrackResult:
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    zncc: npt.NDArray[np.float64]
    dx: npt.NDArray[np.float64]
    dy: npt.NDArray[np.float64]
    templates: list[list[int]]
    seconds: float
    def to_pandas(self) -> Any: ...

def track(
    stack: npt.NDArray[Any],
    templates: Sequence[Sequence[int]],
    *,
    subpixel: Literal["quadratic2d", "parabolic", "gaussian", "none"] = "quadratic2d",
    method: str = "auto",
    accuracy: Literal["fast", "exact"] = "fast",
    progress: Progress | None = None,
    cancel: _Token | None = None,
) -> TrackResult: ...

def read_stack(
    path: str | PathLike[str], *, channel: Literal["luminance", "red", "green", "blue"] = "luminance"
) -> tuple[npt.NDArray[Any], dict[str, Any]]: ...
