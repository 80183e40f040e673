"""xcorr.register against `xcorr register` on the same hyperstack file: the corrected stack bit
for bit (every channel and z-plane), the drift as the CSV prints it; the drift against the
known shift; bad input raises with the CLI's message."""

import numpy as np
import pytest
import tifffile

import xcorr
from conftest import cli, cli_error, fourier_shift


def hyperstack(frames):
    """(T, Z, C, Y, X) uint16: channel 0 the frames, channel 1 a dimmer copy, three z-planes
    of different brightness (what ImageJ writes for axes TZCYX)."""
    planes = []
    for z in range(3):
        c0 = frames.astype(np.float64) * (1 - 0.2 * z)
        c1 = c0 / 2 + 100
        planes.append(np.stack([c0, c1], 1))
    return np.clip(np.rint(np.stack(planes, 1)), 0, 65535).astype(np.uint16)


def drift_rows(path):
    lines = [l for l in open(path).read().splitlines() if l and not l.startswith("#")]
    head = lines[0].split(",")
    return [dict(zip(head, l.split(","))) for l in lines[1:]]


@pytest.mark.parametrize("options", [
    {"channel": "1", "z": "1"},
    {"reference": "mean", "border": "crop", "z_projection": "max"},
    {"method": "zncc", "reference": "previous"},
])
def test_the_same_corrected_stack_and_drift_as_the_cli(tmp_path, speckle, options):
    _, frames = speckle("s.tif", size=(64, 80), frames=5, shift=(0.3, -0.7), seed=3)
    h = hyperstack(frames)
    tifffile.imwrite(tmp_path / "h.tif", h, imagej=True, metadata={"axes": "TZCYX"})
    flags = [x for k, v in options.items() for x in (f"--{k.replace('_', '-')}", v)]
    cli("register", tmp_path / "h.tif", "--out", tmp_path / "o.tif", "--drift",
        tmp_path / "d.csv", "--quiet", "--device", "cpu", *flags)
    r = xcorr.register(h, axes="TZCYX", device="cpu", **options)
    with tifffile.TiffFile(tmp_path / "o.tif") as t:
        assert t.series[0].axes == "TZCYX"
        expected = t.series[0].asarray()
    assert r.corrected.dtype == np.uint16
    assert r.corrected.shape == expected.shape
    assert np.array_equal(r.corrected, expected)
    rows = drift_rows(tmp_path / "d.csv")
    assert [int(x["frame"]) for x in rows] == list(r.frame)
    for key in ("dx", "dy", "peak"):
        assert [x[key] for x in rows] == [f"{v:.6f}" for v in getattr(r, key)]
    table = r.to_pandas()
    assert list(table.columns) == list(rows[0].keys())


def test_the_drift_is_the_known_shift_and_every_axis_order_gives_it(speckle):
    _, frames = speckle("s.tif", size=(96, 96), frames=1, seed=5)
    base = frames[0].astype(np.float64)
    truth = [(0, 0), (1.25, -0.5), (-2.75, 3.4), (0.6, 0.3)]  # (dy, dx)
    stack = np.stack([fourier_shift(base, dy, dx) for dy, dx in truth]).astype(np.float32)
    r = xcorr.register(stack)
    assert np.max(np.abs(r.dy - [t[0] for t in truth])) < 0.05
    assert np.max(np.abs(r.dx - [t[1] for t in truth])) < 0.05
    # the same frames as (Y, X, T) and with a channel axis in front
    r2 = xcorr.register(np.ascontiguousarray(stack.transpose(1, 2, 0)), axes="YXT")
    assert np.array_equal(r2.dx, r.dx) and np.array_equal(r2.dy, r.dy)
    assert np.array_equal(r2.corrected.transpose(2, 0, 1), r.corrected)
    r3 = xcorr.register(stack[None], axes="CTYX", corrected=False)
    assert np.array_equal(r3.dx, r.dx) and r3.corrected is None


def test_nan_pixels_are_missing_data_not_numbers(speckle):
    _, frames = speckle("s.tif", size=(64, 64), frames=1, seed=7)
    base = frames[0].astype(np.float64)
    stack = np.stack([fourier_shift(base, 0, 0), fourier_shift(base, 2.0, -1.0)])
    stack = stack.astype(np.float32)
    stack[1, 10:14, 20:30] = np.nan
    r = xcorr.register(stack)
    assert abs(r.dy[1] - 2.0) < 0.1 and abs(r.dx[1] + 1.0) < 0.1
    assert np.isnan(r.corrected[1]).any()  # missing stays missing after the move
    nothing = stack.copy()
    nothing[1] = np.nan
    r = xcorr.register(nothing)
    assert r.failed[1] != "" and np.isnan(r.dx[1])
    assert r.corrected.shape[0] == 1  # the failed time point is left out, as in the CLI


def test_bad_input_raises_with_the_cli_message(tmp_path, speckle):
    path, frames = speckle("s.tif", size=(32, 32), frames=3)
    with pytest.raises(ValueError) as e:
        xcorr.register(frames, upsample=0)
    assert str(e.value) in cli_error("register", path, "--drift", tmp_path / "d.csv",
                                     "--upsample", "0")
    with pytest.raises(ValueError, match="unknown option 'upsampel'.*upsample"):
        xcorr.register(frames, upsampel=10)
    with pytest.raises(ValueError, match="reference 'last': expected first, previous or mean"):
        xcorr.register(frames, reference="last")
    with pytest.raises(ValueError, match="axes"):
        xcorr.register(frames[None], axes="TYX")
    with pytest.raises(ValueError, match="needs its axes"):
        xcorr.register(frames[None])
    with pytest.raises(ValueError, match="at least two"):
        xcorr.register(frames[:1])
    with pytest.raises(ValueError, match="no channel 2"):
        xcorr.register(np.stack([frames, frames], 1), axes="TCYX", channel="2")
    with pytest.raises(TypeError, match="real numbers"):
        xcorr.register(frames.astype(np.complex64))
    with pytest.raises(TypeError, match="not a bool"):
        xcorr.register(frames, iterations=True)
    with pytest.raises(TypeError, match="numpy array"):
        xcorr.register(frames.tolist())


def test_a_rigid_transform_comes_back_with_its_angle_and_matrix():
    """transform="rigid": each frame's angle and 2x3 matrix against fresh random rotations of a
    texture defined at every point (plane waves), frames sampled exactly, no interpolation."""
    rng = np.random.default_rng()
    rows, cols = 97, 113
    periods = rng.uniform(3, 40, 120)
    theta = rng.uniform(0, 2 * np.pi, 120)
    phase = rng.uniform(0, 2 * np.pi, 120)
    fx, fy = np.cos(theta) / periods, np.sin(theta) / periods
    ys, xs = np.mgrid[0:rows, 0:cols].astype(np.float64)
    cx, cy = (cols - 1) / 2, (rows - 1) / 2
    angles = np.concatenate([[0], rng.uniform(-8, 8, 3)])
    frames, truths = [], []
    for a in np.radians(angles):
        c, s = np.cos(a), np.sin(a)
        m = np.array([[c, -s, 0], [s, c, 0]])
        m[:, 2] = [cx, cy] + rng.uniform(-2, 2, 2) * (a != 0) - m[:, :2] @ [cx, cy]
        inv = np.linalg.inv(np.vstack([m, [0, 0, 1]]))
        u = inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]
        v = inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]
        img = np.cos(2 * np.pi * (u[..., None] * fx + v[..., None] * fy) + phase).sum(-1)
        frames.append(img.astype(np.float32))
        truths.append(m)
    r = xcorr.register(np.stack(frames), transform="rigid", corrected=False, device="cpu")
    assert r.matrix.shape == (4, 2, 3)
    assert np.all(np.abs(r.angle - angles) < 0.01), (r.angle, angles)
    assert np.abs(r.matrix - np.array(truths)).max() < 0.05
    table = r.to_pandas()
    assert list(table.columns[:4]) == ["frame", "dx", "dy", "angle_deg"]


def test_a_z_stack_over_time_gives_its_z_drift():
    """TZYX with 16 z-planes: dims auto registers volumes; dx, dy, dz against the truth (a 3-D
    texture of plane waves sampled exactly), and dims=2 keeps the 2-D path."""
    rng = np.random.default_rng()
    z, y, x = np.mgrid[0:16, 0:40, 0:44].astype(np.float64)
    periods = rng.uniform(4, 20, 80)
    d = rng.normal(size=(80, 3))
    d /= np.linalg.norm(d, axis=1)[:, None] * periods[:, None]
    phase = rng.uniform(0, 2 * np.pi, 80)
    truth = np.array([[0, 0, 0], [1.4, -0.7, 0.6], [-0.9, 1.2, -0.8]])
    frames = []
    for dx, dy, dz in truth:
        arg = (x - dx)[..., None] * d[:, 0] + (y - dy)[..., None] * d[:, 1] + (z - dz)[..., None] * d[:, 2]
        frames.append(np.cos(2 * np.pi * arg + phase).sum(-1).astype(np.float32))
    r = xcorr.register(np.stack(frames), axes="TZYX", corrected=False, device="cpu")
    assert r.volumes
    assert np.abs(r.dx - truth[:, 0]).max() < 0.05
    assert np.abs(r.dy - truth[:, 1]).max() < 0.05
    assert np.abs(r.dz - truth[:, 2]).max() < 0.1
    assert "dz" in r.to_pandas().columns
    flat = xcorr.register(np.stack(frames), axes="TZYX", corrected=False, dims="2", device="cpu")
    assert not flat.volumes
    # channel="sum": a second, empty channel beside the texture; the sum measures the same drift.
    two = np.stack([np.stack(frames), np.full_like(np.stack(frames), 7.0)], axis=1)  # TCZYX
    summed = xcorr.register(two, axes="TCZYX", corrected=False, channel="sum", device="cpu")
    assert np.abs(summed.dz - truth[:, 2]).max() < 0.1
    assert np.abs(summed.dx - truth[:, 0]).max() < 0.05
