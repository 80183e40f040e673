#!/usr/bin/env python3
"""3-D drift of z-stacks over time: `xcorr register` (dims 3) against scikit-image's 3-D
phase_cross_correlation(upsample_factor=100) and napari-correct-drift (PyPI
`napari-correct-drift`, CorrectDrift.estimate_drift(mode="absolute", upsample_factor=100)), side
by side on the same TZYX stack, in one run.

The stack: a smooth random volume (Gaussian-blurred noise, sigma 2 px in x and y and 0.8 planes
in z: anisotropic voxels of 0.2 x 0.2 x 1 um, as a confocal PSF elongated along z) on a larger
canvas, moved by exact Fourier shifts along a random walk (up to --max-drift px in x and y, a
fifth of that in z, sub-voxel parts) and cropped (so not periodic, as real volumes are not), with
Gaussian noise of 2 % of the range. RMS of the error over time points 1..T-1, per axis, voxels.
Speed: wall time of `xcorr register STACK --drift d.csv` (reads the TIFF, writes the table; the
host's threads) and of each peer on the arrays in memory, volumes per second.

Usage: scripts/bench/volume_bench.py --xcorr build/ci/app/xcorr --work /tmp/vbench \
           [--frames 8] [--depth 64] [--size 512] [--out docs/perf/volume-results.json]
"""
import argparse
import json
import os
import platform
import subprocess
import time

import numpy as np
import tifffile
from numpy.fft import fftfreq, irfftn, rfftfreq, rfftn


def stack(frames, depth, size, max_drift, rng):
    mz, mxy = 8, int(2 * max_drift) + 8
    shape = (depth + 2 * mz, size + 2 * mxy, size + 2 * mxy)
    kz = fftfreq(shape[0])[:, None, None]
    ky = fftfreq(shape[1])[None, :, None]
    kx = rfftfreq(shape[2])[None, None, :]
    blur = np.exp(-2 * np.pi**2 * (0.8**2 * kz**2 + 2.0**2 * (ky**2 + kx**2)))
    spectrum = rfftn(rng.random(shape).astype(np.float32)) * blur
    steps = rng.normal(0, 1, (frames, 3))
    steps[0] = 0
    path = np.cumsum(steps, axis=0)
    path *= max_drift / max(np.abs(path).max(), 1e-9)
    path[:, 0] /= 5  # z drifts less (planes are 5x the pixel size)
    out = np.empty((frames, depth, size, size), np.float32)
    for t in range(frames):
        dz, dy, dx = path[t]
        moved = irfftn(spectrum * np.exp(-2j * np.pi * (kz * dz + ky * dy + kx * dx)), s=shape)
        out[t] = moved[mz:mz + depth, mxy:mxy + size, mxy:mxy + size]
    out = (out - out.min()) / (out.max() - out.min())
    out += rng.normal(0, 0.02, out.shape).astype(np.float32)
    return (out * 40000 + 2000).astype(np.float32), path  # path: (z, y, x) per time point


def rms(err):
    return [float(np.sqrt(np.mean(err[1:, k] ** 2))) for k in range(3)]  # z, y, x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xcorr", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--depth", type=int, default=64)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--max-drift", type=float, default=10)
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--out")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    data, truth = stack(args.frames, args.depth, args.size, args.max_drift, rng)
    tif = os.path.join(args.work, "volumes.tif")
    csv = os.path.join(args.work, "volumes.csv")
    tifffile.imwrite(tif, data, imagej=True, resolution=(5.0, 5.0),
                     metadata={"axes": "TZYX", "unit": "um", "spacing": 1.0})
    results = {}
    t0 = time.perf_counter()
    run = subprocess.run([args.xcorr, "register", tif, "--drift", csv, "--quiet", "--device", "cpu"],
                         capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if run.returncode != 0:
        raise SystemExit(f"xcorr register failed: {run.stderr}")
    rows = [line for line in open(csv) if not line.startswith("#")]
    head = rows[0].strip().split(",")
    ix, iy, iz = head.index("dx"), head.index("dy"), head.index("dz")
    ours = np.array([[float(c[iz]), float(c[iy]), float(c[ix])]
                     for c in (r.strip().split(",") for r in rows[1:1 + args.frames])])
    results["xcorr"] = {"rms_zyx": rms(ours - truth), "volumes_per_s": args.frames / seconds}

    from skimage.registration import phase_cross_correlation
    t0 = time.perf_counter()
    sk = np.zeros((args.frames, 3))
    for t in range(1, args.frames):
        shift, _, _ = phase_cross_correlation(data[0], data[t], upsample_factor=100)
        sk[t] = -np.asarray(shift)  # scikit-image returns the shift that registers the frame
    seconds = time.perf_counter() - t0
    results["skimage"] = {"rms_zyx": rms(sk - truth), "volumes_per_s": (args.frames - 1) / seconds}

    from napari_correct_drift import CorrectDrift
    t0 = time.perf_counter()
    cd = CorrectDrift(data, "tzyx")
    ncd = np.asarray(cd.estimate_drift(t0=0, mode="absolute", upsample_factor=100), dtype=float)
    seconds = time.perf_counter() - t0
    ncd = ncd - ncd[0]  # it negates scikit-image's shift: the drift itself
    results["napari-correct-drift"] = {"rms_zyx": rms(ncd - truth),
                                       "volumes_per_s": args.frames / seconds}
    for name, r in results.items():
        z, y, x = r["rms_zyx"]
        print(f"{name:22s} RMS error x {x:.4f}, y {y:.4f}, z {z:.4f} voxels; "
              f"{r['volumes_per_s']:.3f} volumes/s", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"machine": platform.node(), "cpus": os.cpu_count(),
                       "date": time.strftime("%Y-%m-%d"), "command": " ".join(os.sys.argv),
                       "stack": {"frames": args.frames, "depth": args.depth, "size": args.size,
                                 "max_drift_px": args.max_drift},
                       "truth_zyx": truth.tolist(), "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
