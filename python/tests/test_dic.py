"""xcorr.dic against `xcorr dic` on the same speckle file: every row of the CSV, as it prints
them (the CSV's own precision), for the ROI, every point and propagation; the displacement
against the known one; bad input raises with the CLI's message."""

import numpy as np
import pytest

import xcorr
from conftest import cli, cli_error

FORMATS = {"x": "{:.1f}", "y": "{:.1f}", "u": "{:.6f}", "v": "{:.6f}", "exx": "{:.8f}",
           "eyy": "{:.8f}", "exy": "{:.8f}", "zncc": "{:.6f}", "sigma_u": "{:.6f}",
           "sigma_v": "{:.6f}", "time_s": "{:.9g}"}


def csv_rows(path):
    lines = [l for l in open(path).read().splitlines() if l and not l.startswith("#")]
    return lines[0], lines[1:]


def as_rows(table):
    """The table's rows written with the CSV's formats (nan as C's printf writes it)."""
    out = []
    for rec in table.to_dict("records"):
        cells = []
        for key, value in rec.items():
            if key in FORMATS or key.endswith(("_um", "_mm", "_nm")):
                text = (FORMATS.get(key, "{:.9g}")).format(value)
                cells.append("nan" if text in ("nan", "-nan") else text)
            else:
                cells.append(str(value))
        out.append(",".join(cells))
    return out


@pytest.mark.parametrize("flags", [
    {"roi": ["rect:10,12,60,50", "-ellipse:40,35,8,6"], "subset": 21, "step": 5},
    {"roi": [], "subset": 15, "step": 7, "roi_only": "off", "pixel_size": "0.65um",
     "frame_interval": "2s"},
    {"roi": ["poly:8,8,80,10,70,70,12,60"], "propagation": "reliability", "shape": "second",
     "stack_mode": "incremental"},
])
def test_every_row_of_the_cli_csv(tmp_path, speckle, flags):
    path, a = speckle("s.tif", size=(90, 96), frames=4, shift=(0.4, -0.3),
                      affine=(0.002, 0, 0, -0.001), seed=11)
    options = {k: v for k, v in flags.items() if k != "roi"}
    args = ["dic", "--reference", path, "--out", tmp_path / "o.csv", "--quiet", "--device", "cpu"]
    for shape in flags["roi"]:
        args += ["--roi", shape]
    for k, v in options.items():
        args += [f"--{k.replace('_', '-')}", v]
    cli(*args)
    r = xcorr.dic(a[0], a[1:], roi=flags["roi"], device="cpu", **options)
    head, rows = csv_rows(tmp_path / "o.csv")
    table = r.to_pandas()
    assert ",".join(table.columns) == head
    assert as_rows(table) == rows
    assert r.u.shape == (3,) + r.x.shape and r.device == "cpu"
    assert r.settings["subset"] == str(options.get("subset", 31))


def test_the_displacement_is_the_known_one(speckle):
    _, a = speckle("s.tif", size=(80, 80), frames=3, shift=(0.35, -0.6), seed=2)
    r = xcorr.dic(a[0], a[1:], subset=21, step=10)
    ok = r.status == r.status_labels.index("converged")
    assert ok[0].sum() > 10
    for k in (0, 1):
        assert np.max(np.abs(r.u[k][ok[k]] - (-0.6) * (k + 1))) < 0.02
        assert np.max(np.abs(r.v[k][ok[k]] - 0.35 * (k + 1))) < 0.02
    # one 2-D frame, uint8 and float64 inputs
    one = xcorr.dic(a[0].astype(np.float64), a[1].astype(np.float64), subset=21, step=10)
    assert np.array_equal(one.u[0], r.u[0], equal_nan=True)


def test_nan_pixels_are_missing_data(speckle):
    _, a = speckle("s.tif", size=(80, 80), frames=2, shift=(0.3, 0.2), seed=4)
    frame = a[1].astype(np.float32)
    frame[30:34, 30:34] = np.nan
    r = xcorr.dic(a[0], frame, subset=21, step=10)
    missing = r.status_labels.index("missing_data")
    assert (r.status[0] == missing).sum() > 0
    assert np.isfinite(r.u[0][r.status[0] == r.status_labels.index("converged")]).all()


def test_bad_input_raises_with_the_cli_message(tmp_path, speckle):
    path, a = speckle("s.tif", size=(64, 64), frames=2)
    with pytest.raises(ValueError) as e:
        xcorr.dic(a[0], a[1], subset=20)
    assert str(e.value) in cli_error("dic", "--reference", path, "--out", tmp_path / "o.csv",
                                     "--subset", "20")
    with pytest.raises(ValueError) as e:
        xcorr.dic(a[0], a[1], roi="rect:1,2,3")
    assert str(e.value) in cli_error("dic", "--reference", path, "--out", tmp_path / "o.csv",
                                     "--roi", "rect:1,2,3")
    with pytest.raises(ValueError, match="channel: applies to image files"):
        xcorr.dic(a[0], a[1], channel="1")
    with pytest.raises(ValueError, match="unknown option 'subsets'"):
        xcorr.dic(a[0], a[1], subsets=21)
    with pytest.raises(ValueError, match=r"the frames are 64 x 32 px \(width x height\) but the reference is 64 x 64"):
        xcorr.dic(a[0], a[1, :32])
    with pytest.raises(ValueError, match="reference: expected a 2-D"):
        xcorr.dic(a, a[1])
