"""xcorr.track against `xcorr correlate` (the ZNCC peak search tracking runs, one_to_many valid
mode) on the same template and frames, as the peaks CSV prints it; the motion against the known
shift; bad input."""

import numpy as np
import pytest

import xcorr
from conftest import cli
from test_correlate import write_csv


def peaks(path):
    lines = [l for l in open(path).read().splitlines() if l and not l.startswith("#")]
    head = lines[0].split(",")
    return [dict(zip(head, l.split(","))) for l in lines[1:]]


def test_the_peaks_of_the_cli(tmp_path, speckle):
    _, a = speckle("s.tif", size=(70, 90), frames=4, shift=(0.45, -1.3), seed=8)
    templates = [(20, 15, 24, 20), (50, 30, 17, 23)]
    r = xcorr.track(a, templates)
    write_csv(tmp_path / "frames.csv", a[1:])
    for i, (x, y, w, h) in enumerate(templates):
        write_csv(tmp_path / "t.csv", a[0, y:y + h, x:x + w])
        cli("correlate", "--form", "one_to_many", "--mode", "valid", "--norm", "zncc",
            "--output", "peak", "--subpixel", "quadratic2d", "--left", tmp_path / "t.csv",
            "--right", tmp_path / "frames.csv", "--out", tmp_path / "p.csv", "--quiet")
        rows = peaks(tmp_path / "p.csv")
        assert [f"{v:.6f}" for v in r.x[i, 1:]] == [p["sub_col"] for p in rows]
        assert [f"{v:.6f}" for v in r.y[i, 1:]] == [p["sub_row"] for p in rows]
        assert [f"{v:.9g}" for v in r.zncc[i, 1:]] == [p["value"] for p in rows]
        assert (r.x[i, 0], r.y[i, 0], r.zncc[i, 0]) == (x, y, 1.0)
    k = np.arange(4)
    assert np.max(np.abs(r.dx - (-1.3) * k)) < 0.05
    assert np.max(np.abs(r.dy - 0.45 * k)) < 0.05
    table = r.to_pandas()
    assert list(table.columns) == ["frame", "template", "x", "y", "dx", "dy", "zncc"]
    assert len(table) == 8


def test_bad_input(speckle):
    _, a = speckle("s.tif", size=(40, 40), frames=2)
    with pytest.raises(ValueError, match="must lie inside the 40 x 40"):
        xcorr.track(a, [(30, 30, 20, 20)])
    with pytest.raises(ValueError, match="subpixel='cubic': expected one of"):
        xcorr.track(a, [(5, 5, 10, 10)], subpixel="cubic")
    with pytest.raises(ValueError, match="x, y, width, height"):
        xcorr.track(a, [(5, 5, 10)])
    with pytest.raises(ValueError, match="at least two"):
        xcorr.track(a[:1], [(5, 5, 10, 10)])
    nan = a.astype(np.float32)
    nan[0, 6, 6] = np.nan
    with pytest.raises(ValueError, match="holds missing pixels"):
        xcorr.track(nan, [(5, 5, 10, 10)])
