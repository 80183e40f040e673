#!/usr/bin/env python3
"""Stack registration benchmark: `xcorr register` against scikit-image's
phase_cross_correlation(upsample_factor=100), side by side on the same frames, in one run.

Accuracy: synthetic 512^2 and 2048^2 stacks with a known sub-pixel drift (a random walk scaled
to 20 px at most), speckle (blurred noise) and fluorescence-like (sparse Gaussian spots, Poisson
counts), each at three noise levels. Frames are exact Fourier shifts of a larger canvas, cropped
(so not periodic, as real frames are not). RMS of the 2-D drift error over the frames, px.

Speed: a 2048^2 16-bit stack registered with its corrected stack written: xcorr register (all
frames) and scikit-image + scipy.ndimage.shift(order=3) + tifffile (the first --skimage-frames
frames), frames per second of each on this machine.

Needs: pip install scikit-image tifffile scipy numpy. Usage:
  scripts/bench/registration_bench.py --xcorr build/ci/app/xcorr --work /tmp/regbench \
      [--frames 1000] [--skimage-frames 100] [--out docs/perf/registration-results.json]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import tifffile
from numpy.fft import fftfreq, irfft2, rfft2, rfftfreq
from scipy.ndimage import shift as nd_shift
from skimage.registration import phase_cross_correlation

MARGIN = 32  # canvas margin, px: more than the largest drift


def canvas(kind, size, rng):
    big = size + 2 * MARGIN
    ky = fftfreq(big)[:, None]
    kx = rfftfreq(big)[None, :]
    if kind == "speckle":
        spectrum = rfft2(rng.random((big, big))) * np.exp(-2 * np.pi**2 * 2.0**2 * (ky**2 + kx**2))
    else:  # sparse spots, 1.5 px sigma
        img = np.zeros((big, big))
        n = int(big * big * 0.002)
        img[rng.integers(0, big, n), rng.integers(0, big, n)] = rng.uniform(0.5, 1.5, n)
        spectrum = rfft2(img) * np.exp(-2 * np.pi**2 * 1.5**2 * (ky**2 + kx**2))
    return spectrum, ky, kx, big


def drifting_stack(kind, size, frames, noise, rng):
    spectrum, ky, kx, big = canvas(kind, size, rng)
    steps = rng.normal(0, 1, (frames, 2))
    steps[0] = 0
    path = np.cumsum(steps, axis=0)
    path *= 20.0 / max(np.abs(path).max(), 1e-9) / np.sqrt(2)  # |drift| <= 20 px
    out = np.empty((frames, size, size))
    for t in range(frames):
        dy, dx = path[t]
        moved = irfft2(spectrum * np.exp(-2j * np.pi * (ky * dy + kx * dx)), s=(big, big))
        out[t] = moved[MARGIN:MARGIN + size, MARGIN:MARGIN + size]
    if kind == "speckle":  # grey values 1000..51000, Gaussian noise of `noise` x the range
        out = (out - out.min()) / (out.max() - out.min())
        out = 1000 + 50000 * (out + rng.normal(0, noise, out.shape))
    else:  # `noise` photons at the brightest spot, background 10, Poisson counts
        out = rng.poisson(out / out.max() * noise + 10).astype(float)
    return np.clip(np.rint(out), 0, 65535).astype(np.uint16), path[:, ::-1]  # (dx, dy)


def read_drift(csv):
    rows = [l for l in open(csv) if not l.startswith("#")]
    head = rows[0].strip().split(",")
    ix, iy = head.index("dx"), head.index("dy")
    return np.array([[float(r.split(",")[ix]), float(r.split(",")[iy])] for r in rows[1:]])


def rms(found, truth):
    e = found[1:] - truth[1:]
    return float(np.sqrt(np.mean(np.sum(e * e, axis=1))))


def accuracy(args, rng):
    results = []
    for size, frames in ((512, 20), (2048, 8)):
        for kind, levels in (("speckle", (0.0, 0.02, 0.08)), ("fluorescence", (2000, 200, 30))):
            for level in levels:
                stack, truth = drifting_stack(kind, size, frames, level, rng)
                path = os.path.join(args.work, f"acc_{kind}_{size}_{level}.tif")
                tifffile.imwrite(path, stack)
                csv = path + ".csv"
                subprocess.run([args.xcorr, "register", path, "--drift", csv, "--quiet"],
                               check=True)
                ours = rms(read_drift(csv), truth)
                sk = np.zeros((frames, 2))
                sk_plain = np.zeros((frames, 2))
                for t in range(1, frames):
                    s = phase_cross_correlation(stack[0], stack[t], upsample_factor=100)[0]
                    sk[t] = -s[::-1]  # its (dy, dx) registers the frame: the opposite sign
                    s = phase_cross_correlation(stack[0], stack[t], upsample_factor=100,
                                                normalization=None)[0]
                    sk_plain[t] = -s[::-1]
                row = {"size": size, "kind": kind, "noise": level, "frames": frames,
                       "xcorr_rms_px": ours, "skimage_rms_px": rms(sk, truth),
                       "skimage_unnormalised_rms_px": rms(sk_plain, truth)}
                print(json.dumps(row), flush=True)
                results.append(row)
                os.remove(path)
    return results


def speed(args, rng):
    size = 2048
    path = os.path.join(args.work, "speed.tif")
    spectrum, ky, kx, big = canvas("speckle", size, rng)
    base = irfft2(spectrum, s=(big, big))
    base = (base - base.min()) / (base.max() - base.min()) * 20000 + 1000
    with tifffile.TiffWriter(path, bigtiff=True) as w:
        for t in range(args.frames):
            oy, ox = rng.integers(0, 2 * MARGIN, 2)
            frame = base[oy:oy + size, ox:ox + size]
            w.write(rng.poisson(frame).astype(np.uint16), contiguous=True)
    out = os.path.join(args.work, "speed_out.tif")
    start = time.perf_counter()
    subprocess.run([args.xcorr, "register", path, "--out", out, "--drift", path + ".csv",
                    "--quiet"], check=True)
    ours = time.perf_counter() - start
    os.remove(out)
    # scikit-image: read, measure, shift, write, for the first frames.
    n = min(args.skimage_frames, args.frames)
    start = time.perf_counter()
    with tifffile.TiffFile(path) as tif, tifffile.TiffWriter(out, bigtiff=True) as w:
        reference = tif.pages[0].asarray()
        for t in range(n):
            frame = tif.pages[t].asarray()
            s = phase_cross_correlation(reference, frame, upsample_factor=100)[0]
            moved = nd_shift(frame.astype(np.float32), s, order=3)
            w.write(np.clip(np.rint(moved), 0, 65535).astype(np.uint16), contiguous=True)
    sk = time.perf_counter() - start
    os.remove(out)
    os.remove(path)
    row = {"size": size, "frames": args.frames, "xcorr_seconds": ours,
           "xcorr_frames_per_s": args.frames / ours, "skimage_frames": n, "skimage_seconds": sk,
           "skimage_frames_per_s": n / sk,
           "speedup": (args.frames / ours) / (n / sk), "cpus": os.cpu_count()}
    print(json.dumps(row), flush=True)
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--xcorr", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--frames", type=int, default=1000)
    p.add_argument("--skimage-frames", type=int, default=100)
    p.add_argument("--skip-accuracy", action="store_true")
    p.add_argument("--skip-speed", action="store_true")
    p.add_argument("--out")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(2026)
    result = {"accuracy": [] if args.skip_accuracy else accuracy(args, rng)}
    if not args.skip_speed:
        result["speed"] = speed(args, rng)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
