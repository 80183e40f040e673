"""xcorr.correlate against the `xcorr correlate` command on the same inputs, bit for bit (the
matrix CSV carries float32 exactly), and against a float64 numpy reference; bad input raises
with the CLI's message. XCORR_EXE names the command (CTest sets it)."""

import os
import subprocess

import numpy as np
import pytest

import xcorr

EXE = os.environ.get("XCORR_EXE", "xcorr")


def write_csv(path, stack):
    stack = np.asarray(stack, dtype=np.float32)
    if stack.ndim == 2:
        stack = stack[None]
    count, rows, cols = stack.shape
    with open(path, "w") as f:
        f.write(f"# {rows},{cols},{count}\n")
        for m in stack:
            for r in m:
                f.write(",".join(repr(float(v)) for v in r) + "\n")


def read_csv(path):
    with open(path) as f:
        head = f.readline().lstrip("# ").split(",")
        rows, cols = int(head[0]), int(head[1])
        count = int(head[2]) if len(head) > 2 else 1
        values = [float(v) for line in f for v in line.split(",")]
    return np.array(values, dtype=np.float32).reshape(count, rows, cols)


def cli(tmp_path, left, right, *args):
    write_csv(tmp_path / "l.csv", left)
    write_csv(tmp_path / "r.csv", right)
    out = tmp_path / "out.csv"
    subprocess.run([EXE, "correlate", "--form", "one_to_one", "--left", str(tmp_path / "l.csv"),
                    "--right", str(tmp_path / "r.csv"), "--out", str(out), "--quiet", *args],
                   check=True)
    return read_csv(out)


def reference_full(left, right):
    """scipy.signal.correlate2d(left, right, "full") in float64 (the CLI's definition, `xcorr
    correlate --help`): out[k, l] = sum over i, j of left[i, j] * right[i + R - 1 - k,
    j + C - 1 - l], R x C being right's shape."""
    rows, cols = right.shape
    out = np.zeros((left.shape[0] + rows - 1, left.shape[1] + cols - 1))
    l64, r64 = left.astype(np.float64), right.astype(np.float64)
    for k in range(out.shape[0]):
        for l in range(out.shape[1]):
            total = 0.0
            for i in range(left.shape[0]):
                ri = i + rows - 1 - k
                if not 0 <= ri < rows:
                    continue
                j0, j1 = max(0, l - cols + 1), min(left.shape[1], l + 1)
                if j0 < j1:
                    total += np.dot(l64[i, j0:j1], r64[ri, j0 + cols - 1 - l:j1 + cols - 1 - l])
            out[k, l] = total
    return out


@pytest.mark.parametrize("shape", [(1, 1), (7, 5), (13, 31), (33, 17)])
def test_surface_equals_the_cli_bit_for_bit(tmp_path, shape):
    rng = np.random.default_rng()
    left = rng.standard_normal(shape).astype(np.float32)
    right = rng.standard_normal(shape).astype(np.float32)  # full mode: equal sizes
    for method in ("auto", "cpu_direct"):
        got = xcorr.correlate(left, right, form="one_to_one", method=method)
        assert got["surface"].dtype == np.float32
        assert got["surface"].shape == (left.shape[0] + right.shape[0] - 1,
                                        left.shape[1] + right.shape[1] - 1)
        want = cli(tmp_path, left, right, "--method", got["variant"])[0]
        assert np.array_equal(got["surface"], want), method
        ref = reference_full(left, right)
        assert np.allclose(got["surface"], ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_peaks_equal_the_cli_and_find_the_shift(tmp_path):
    rng = np.random.default_rng()
    right = rng.standard_normal((3, 64, 61)).astype(np.float32)
    left = right[:, 20:36, 17:30].copy()  # templates cut at (20, 17) of their windows
    got = xcorr.correlate(left, right, form="n_to_mn", mode="valid", norm="zncc", output="peak")
    assert np.array_equal(got["row"], [20, 20, 20])
    assert np.array_equal(got["col"], [17, 17, 17])
    assert np.allclose(got["value"], 1, atol=1e-5)
    write_csv(tmp_path / "l.csv", left)
    write_csv(tmp_path / "r.csv", right)
    out = tmp_path / "peaks.csv"
    subprocess.run([EXE, "correlate", "--left", str(tmp_path / "l.csv"), "--right",
                    str(tmp_path / "r.csv"), "--out", str(out), "--quiet", "--form", "n_to_mn",
                    "--mode", "valid",
                    "--norm", "zncc", "--output", "peak", "--method", got["variant"]],
                   check=True)
    lines = [line for line in open(out).read().splitlines() if not line.startswith("#")]
    header = lines[0].split(",")
    table = [dict(zip(header, line.split(","))) for line in lines[1:]]
    assert len(table) == 3
    for t, row in enumerate(table):  # the CSV: float32 values exact, positions to 6 decimals
        assert (int(row["left"]), int(row["right"])) == (got["left"][t], got["right"][t])
        assert (int(row["row"]), int(row["col"])) == (got["row"][t], got["col"][t])
        assert np.float32(row["value"]) == np.float32(got["value"][t])
        assert abs(float(row["sub_row"]) - got["sub_row"][t]) <= 5e-7
        assert abs(float(row["sub_col"]) - got["sub_col"][t]) <= 5e-7


def test_every_real_dtype_is_read_as_float32():
    rng = np.random.default_rng()
    base = rng.integers(0, 200, (9, 11))
    one = dict(form="one_to_one")
    want = xcorr.correlate(base.astype(np.float32), base.astype(np.float32), **one)["surface"]
    for dtype in (np.uint8, np.uint16, np.int16, np.int32, np.float64, bool):
        a = base.astype(dtype)
        got = xcorr.correlate(a, a, **one)["surface"]
        f = a.astype(np.float32)
        assert np.array_equal(got, xcorr.correlate(f, f, **one)["surface"]), dtype
    u16 = base.astype(np.uint16)
    assert np.array_equal(xcorr.correlate(u16, u16, **one)["surface"], want)


def test_bad_input_raises_with_the_reason():
    a = np.ones((8, 8), np.float32)
    with pytest.raises(TypeError, match="form"):
        xcorr.correlate(a, a)  # required, as --form is
    with pytest.raises(ValueError, match="form='sideways': expected one of"):
        xcorr.correlate(a, a, form="sideways")
    with pytest.raises(ValueError, match="needs mode='valid'"):
        xcorr.correlate(a, a, output="peak", form="one_to_one")
    with pytest.raises(ValueError, match="expected a 2-D"):
        xcorr.correlate(np.ones(8, np.float32), a, form="one_to_one")
    with pytest.raises(TypeError, match="expected real numbers"):
        xcorr.correlate(np.ones((8, 8), np.complex64), a, form="one_to_one")
    with pytest.raises(TypeError, match="expected a numpy array"):
        xcorr.correlate([[1.0]], a, form="one_to_one")
    nan = a.copy()
    nan[3, 3] = np.nan
    with pytest.raises(ValueError, match="finite|NaN|not a number"):
        xcorr.correlate(nan, a, form="one_to_one")
    with pytest.raises(ValueError):
        xcorr.correlate(a, a, method="no_such_variant", form="one_to_one")


def test_devices_and_variants_describe_this_machine():
    names = [v["name"] for v in xcorr.variants()]
    assert "cpu_direct" in names
    assert all(v["device"] in ("cpu", "gpu") for v in xcorr.variants())
    if not xcorr.devices():
        assert xcorr.gpu_note() != ""
        assert not any(v["device"] == "gpu" for v in xcorr.variants())
