"""Helpers of the xcorr package's tests: the CLI (XCORR_EXE, CTest sets it) and real files it
writes, read back through xcorr.read_stack."""

import os
import subprocess

import numpy as np
import pytest

import xcorr

EXE = os.environ.get("XCORR_EXE", "xcorr")


def cli(*args, check=True):
    """Runs `xcorr ARGS`; returns the completed process (stdout and stderr as text)."""
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, check=check)


def cli_error(*args):
    """The one line `xcorr ARGS` prints on stderr when it refuses them."""
    r = cli(*args, check=False)
    assert r.returncode != 0, r.stdout
    return r.stderr.strip()


@pytest.fixture
def speckle(tmp_path):
    """speckle(name, **flags) renders `xcorr speckle` into tmp_path/name and returns (path,
    the frames as xcorr.read_stack gives them, (frames, rows, cols) even for one)."""

    def make(name, **flags):
        path = tmp_path / name
        args = ["speckle", "--out", path]
        for key, value in flags.items():
            args += [f"--{key.replace('_', '-')}"]
            args += [",".join(map(str, value))] if isinstance(value, (tuple, list)) else [value]
        cli(*args)
        array, _ = xcorr.read_stack(path)
        return path, array.reshape((-1,) + array.shape[-2:])

    return make


def fourier_shift(image, dy, dx):
    """`image` moved by (dy, dx) px, periodic (a feature at (x, y) goes to (x + dx, y + dy))."""
    rows, cols = image.shape
    ky = np.fft.fftfreq(rows)[:, None]
    kx = np.fft.fftfreq(cols)[None, :]
    phase = np.exp(-2j * np.pi * (ky * dy + kx * dx))
    return np.real(np.fft.ifft2(np.fft.fft2(image.astype(np.float64)) * phase))
