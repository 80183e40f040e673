#!/usr/bin/env python3
"""Rigid, similarity and affine registration: `xcorr register --transform` against pystackreg
(PyPI `pystackreg`, the Python port of Fiji's StackReg/TurboReg), side by side on the same frames
of real microscope images, in one run.

Frames: ihc.png (brightfield RGB section, its luminance) and cell.png (quantitative phase
image) from Debian's python3-skimage (scripts/real-images.sh). Each image is a continuous
texture I(x) = sum_i img[i] G(x - i) (a Gaussian of sigma 1 px over its pixels, mirrored past its
border), so that a frame can be sampled exactly at any transformed point: frame t shows at pixel
p the texture at T_t^-1(p) for a fresh random T_t (rotation within +-10 degrees, scale 0.9-1.1
for similarity and affine, shear and anisotropy up to 2 % for affine, translation within +-5 px),
frame 0 the identity; Gaussian noise of `noise` x the frame's range. Nothing is interpolated to
make the frames, so no method is favoured by sharing an interpolator with the generator.

Errors against the truth, over frames 1..N-1: angle (degrees) and scale (relative) of the
fitted map, the RMS over the frame's pixels of the distance between the fitted and the true
position of each pixel (px), and the largest error of a matrix entry of the linear part.
At noise > 0, the Cramer-Rao lower bounds of an unbiased estimate on frame 0's noise-free pixels
(cramer_rao: the angle's sd and the RMS position error; no method can be expected below them).
Speed: wall time of `xcorr register STACK --transform M --drift d.csv` (the process: reads the
TIFF, writes the table; all host threads) and of pystackreg's register_stack(reference="first")
on the array in memory (single-threaded: it has no threads), frames per second, on the stack's
frames repeated to --speed-frames (so that the process's start is not most of the time).

Usage: scripts/bench/transform_bench.py --xcorr build/ci/app/xcorr --images build/ci/real-images \
           --work /tmp/tbench [--frames 20] [--size 384] [--out docs/perf/transform-results.json]
"""
import argparse
import json
import os
import platform
import subprocess
import time

import numpy as np
import tifffile
from PIL import Image
from pystackreg import StackReg

SIGMA = 1.0
RADIUS = 4  # taps each way of the Gaussian


def texture(path):
    a = np.asarray(Image.open(path)).astype(np.float64)
    if a.ndim == 3:
        a = a[..., :3] @ np.array([0.299, 0.587, 0.114])
    return np.pad(a, 96, mode="reflect")  # mirrored past the border; origin moves by 96


def sample(tex, size, to_texture, origin):
    """The texture at to_texture(p) for the pixels p of a size x size frame centred on `origin`
    (texture px)."""
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float64)
    a = to_texture
    u = a[0, 0] * xs + a[0, 1] * ys + a[0, 2] + origin[0]
    v = a[1, 0] * xs + a[1, 1] * ys + a[1, 2] + origin[1]
    u0, v0 = np.floor(u).astype(np.int64), np.floor(v).astype(np.int64)
    out = np.zeros_like(u)
    for b in range(-RADIUS + 1, RADIUS + 1):
        gy = np.exp(-((v - (v0 + b)) ** 2) / (2 * SIGMA**2))
        for c in range(-RADIUS + 1, RADIUS + 1):
            gx = np.exp(-((u - (u0 + c)) ** 2) / (2 * SIGMA**2))
            out += tex[v0 + b, u0 + c] * gx * gy
    return out / (2 * np.pi * SIGMA**2)


def random_map(model, size, rng):
    """A reference -> frame map (2x3, px) about the frame's centre."""
    angle = np.deg2rad(rng.uniform(-10, 10))
    scale = 1.0 if model == "rigid" else rng.uniform(0.9, 1.1)
    lin = scale * np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    if model == "affine":
        lin = lin + rng.uniform(-0.02, 0.02, (2, 2))
    c = np.array([(size - 1) / 2, (size - 1) / 2])
    t = rng.uniform(-5, 5, 2)
    m = np.zeros((2, 3))
    m[:, :2] = lin
    m[:, 2] = c + t - lin @ c
    return m


def inverse(m):
    full = np.vstack([m, [0, 0, 1]])
    return np.linalg.inv(full)[:2]


def errors(fit, truth, size):
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float64)

    def at(m):
        return m[0, 0] * xs + m[0, 1] * ys + m[0, 2], m[1, 0] * xs + m[1, 1] * ys + m[1, 2]

    fx, fy = at(fit)
    tx, ty = at(truth)

    def angle(m):
        return np.degrees(np.arctan2(m[1, 0] - m[0, 1], m[0, 0] + m[1, 1]))

    def scale(m):
        return np.sqrt(abs(np.linalg.det(m[:, :2])))

    return {
        "angle_deg": abs(angle(fit) - angle(truth)),
        "scale_rel": abs(scale(fit) / scale(truth) - 1),
        "rms_px": float(np.sqrt(np.mean((fx - tx) ** 2 + (fy - ty) ** 2))),
        "matrix": float(np.max(np.abs(fit[:, :2] - truth[:, :2]))),
    }


def read_xcorr_maps(path, frames):
    rows = [line for line in open(path) if not line.startswith("#")]
    head = rows[0].strip().split(",")
    idx = [head.index(k) for k in ("a11", "a12", "a13", "a21", "a22", "a23")]
    maps = []
    for line in rows[1:1 + frames]:
        cells = line.strip().split(",")
        v = [float(cells[i]) for i in idx]
        maps.append(np.array([v[0:3], v[3:6]]))
    return maps


def cramer_rao(reference, model, sigma):
    """Lower bounds for an unbiased estimate of the model's parameters from a frame and the
    reference, both with white noise of sd `sigma` (Fisher information sum(d_k d_l) / (2
    sigma^2), d_k the reference's gradient along the map's derivative by parameter k, about the
    frame's centre): the angle's sd (degrees; rigid and similarity), the RMS over the pixels of
    the position error (px) and the largest sd of a matrix entry of the linear part. The
    reference's gradients are its central differences."""
    n = reference.shape[0]
    gy, gx = np.gradient(reference)
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float64) - (n - 1) / 2
    # d(position)/d(parameter) at each pixel, (x, y) per parameter: translation, then the linear
    # part (rigid: a turn; similarity: a turn and a scale; affine: its 4 entries).
    moves = [(np.ones_like(xs), np.zeros_like(xs)), (np.zeros_like(xs), np.ones_like(xs))]
    if model in ("rigid", "similarity"):
        moves.append((-ys, xs))
    if model == "similarity":
        moves.append((xs, ys))
    if model == "affine":
        z = np.zeros_like(xs)
        moves += [(xs, z), (ys, z), (z, xs), (z, ys)]
    d = np.stack([(gx * mx + gy * my).ravel() for mx, my in moves])
    cov = np.linalg.inv(d @ d.T / (2 * sigma**2))
    mx = np.stack([m[0].ravel() for m in moves])
    my = np.stack([m[1].ravel() for m in moves])
    # The mean over the pixels of tr(D_p cov D_p^T), D_p the 2 x K position derivatives.
    pos = np.mean(np.einsum("kp,kl,lp->p", mx, cov, mx) + np.einsum("kp,kl,lp->p", my, cov, my))
    angle = float(np.degrees(np.sqrt(cov[2, 2]))) if model != "affine" else None
    # The linear part's parameters are its entries' own errors (to first order: a turn moves the
    # off-diagonal entries by itself, a scale the diagonal ones): the largest sd of them.
    matrix = float(np.sqrt(np.max(np.diag(cov)[2:])))
    return {"angle_deg": angle, "rms_px": float(np.sqrt(pos)), "matrix_sd": matrix}


def summarise(errs):
    keys = errs[0].keys()
    return {k: {"rms": float(np.sqrt(np.mean([e[k] ** 2 for e in errs]))),
                "max": float(np.max([e[k] for e in errs]))} for k in keys}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xcorr", required=True)
    ap.add_argument("--images", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--size", type=int, default=384)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--noise", default="0,0.02")
    ap.add_argument("--models", default="rigid,similarity,affine")
    ap.add_argument("--speed-frames", type=int, default=100)
    ap.add_argument("--out")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    modes = {"rigid": StackReg.RIGID_BODY, "similarity": StackReg.SCALED_ROTATION,
             "affine": StackReg.AFFINE}
    results = []
    for image in ("ihc.png", "cell.png"):
        tex = texture(os.path.join(args.images, image))
        centre = np.array([(tex.shape[1] - args.size) / 2, (tex.shape[0] - args.size) / 2])
        for model in args.models.split(","):
            for noise in (float(n) for n in args.noise.split(",")):
                truths = [np.array([[1.0, 0, 0], [0, 1.0, 0]])]
                truths += [random_map(model, args.size, rng) for _ in range(args.frames - 1)]
                stack = np.stack([sample(tex, args.size, inverse(m), centre) for m in truths])
                bound = None
                if noise > 0:
                    span = stack.max() - stack.min()
                    bound = cramer_rao(stack[0], model, noise * span)
                    stack = stack + rng.normal(0, noise * span, stack.shape)
                stack = stack.astype(np.float32)
                tif = os.path.join(args.work, f"{image}-{model}-{noise}.tif")
                csv = tif.replace(".tif", ".csv")
                tifffile.imwrite(tif, stack)
                run = subprocess.run([args.xcorr, "register", tif, "--transform", model,
                                      "--drift", csv, "--quiet", "--device", "cpu"],
                                     capture_output=True, text=True)
                if run.returncode != 0:
                    raise SystemExit(f"xcorr register failed: {run.stderr}")
                ours = read_xcorr_maps(csv, args.frames)
                sr = StackReg(modes[model])
                theirs = [m[:2] for m in sr.register_stack(stack, reference="first")]
                # Speed: the frames repeated to --speed-frames, both methods alike.
                reps = -(-args.speed_frames // args.frames)
                long = np.concatenate([stack] * reps)[:args.speed_frames]
                long_tif = tif.replace(".tif", "-long.tif")
                tifffile.imwrite(long_tif, long)
                t0 = time.perf_counter()
                run = subprocess.run([args.xcorr, "register", long_tif, "--transform", model,
                                      "--drift", csv.replace(".csv", "-long.csv"), "--quiet",
                                      "--device", "cpu"], capture_output=True, text=True)
                ours_s = time.perf_counter() - t0
                if run.returncode != 0:
                    raise SystemExit(f"xcorr register failed: {run.stderr}")
                t0 = time.perf_counter()
                sr.register_stack(long, reference="first")
                theirs_s = time.perf_counter() - t0
                e_ours = [errors(ours[t], truths[t], args.size) for t in range(1, args.frames)]
                e_theirs = [errors(theirs[t], truths[t], args.size) for t in range(1, args.frames)]
                row = {"image": image, "model": model, "noise": noise, "frames": args.frames,
                       "size": args.size, "xcorr": summarise(e_ours),
                       "pystackreg": summarise(e_theirs),
                       "cramer_rao": bound,
                       "speed_frames": args.speed_frames,
                       "xcorr_fps": args.speed_frames / ours_s,
                       "pystackreg_fps": args.speed_frames / theirs_s}
                results.append(row)
                print(f"{image:9s} {model:10s} noise {noise:4.2f}: "
                      f"angle {row['xcorr']['angle_deg']['rms']:.5f} vs "
                      f"{row['pystackreg']['angle_deg']['rms']:.5f} deg, "
                      f"rms {row['xcorr']['rms_px']['rms']:.4f} vs "
                      f"{row['pystackreg']['rms_px']['rms']:.4f} px, "
                      f"scale {row['xcorr']['scale_rel']['rms']:.2e} vs "
                      f"{row['pystackreg']['scale_rel']['rms']:.2e}, "
                      f"matrix {row['xcorr']['matrix']['max']:.1e} vs "
                      f"{row['pystackreg']['matrix']['max']:.1e}, "
                      f"{row['xcorr_fps']:.1f} vs {row['pystackreg_fps']:.1f} frames/s"
                      + (f"; Cramer-Rao rms {bound['rms_px']:.4f} px, matrix sd "
                         f"{bound['matrix_sd']:.1e}" if bound else ""),
                      flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"machine": platform.node(), "cpus": os.cpu_count(),
                       "date": time.strftime("%Y-%m-%d"), "command": " ".join(os.sys.argv),
                       "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
