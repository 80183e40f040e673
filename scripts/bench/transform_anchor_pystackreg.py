#!/usr/bin/env python3
"""The anchor for `xcorr bench-register --transform MODEL`: pystackreg (PyPI, the Python port of
Fiji's StackReg/TurboReg, what users reach for) on the same frames, on this host's CPU.

Input: the folder `xcorr bench-register --transform MODEL --save DIR` wrote (frame_0.f32 the
reference, frame_K.f32 the reference under truth.json's map K - 1; raw float32, size x size).
pystackreg's register(reference, frame) per frame (it has no threads), timed over all of them;
its matrix maps a reference point to the frame as ours does. Errors as xcorr's bench: the RMS over
frames of the angle error (degrees) and of the position error on every 4th pixel (px); also
over the frames it got within 1 px RMS (gross errors: the others, counted).

usage: transform_anchor_pystackreg.py DIR OUT.json [--frames N]
"""
import argparse
import json
import pathlib
import time

import numpy as np
from pystackreg import StackReg

MODES = {"rigid": StackReg.RIGID_BODY, "similarity": StackReg.SCALED_ROTATION,
         "affine": StackReg.AFFINE}


def angle(m):
    return np.degrees(np.arctan2(m[1][0] - m[0][1], m[0][0] + m[1][1]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("out")
    p.add_argument("--frames", type=int, default=0, help="frames measured (0: all saved)")
    a = p.parse_args()
    d = pathlib.Path(a.dir)
    truth = json.loads((d / "truth.json").read_text())
    size, model = truth["size"], truth["transform"]
    maps = [np.array(m, dtype=np.float64).reshape(2, 3) for m in truth["maps"]]
    n = len(maps) if a.frames <= 0 else min(a.frames, len(maps))

    def read(k):
        return np.fromfile(d / f"frame_{k}.f32", dtype=np.float32).reshape(size, size)

    ref = read(0).astype(np.float64)
    frames = [read(k + 1).astype(np.float64) for k in range(n)]
    sr = StackReg(MODES[model])
    t0 = time.perf_counter()
    fits = [sr.register(ref, f)[:2] for f in frames]
    seconds = time.perf_counter() - t0
    ys, xs = np.mgrid[0:size:4, 0:size:4].astype(np.float64)
    angle_sq, pos_sq = [], []
    for fit, t in zip(fits, maps):
        angle_sq.append((angle(fit) - angle(t)) ** 2)
        fx = fit[0, 0] * xs + fit[0, 1] * ys + fit[0, 2]
        fy = fit[1, 0] * xs + fit[1, 1] * ys + fit[1, 2]
        tx = t[0, 0] * xs + t[0, 1] * ys + t[0, 2]
        ty = t[1, 0] * xs + t[1, 1] * ys + t[1, 2]
        pos_sq.append(np.mean((fx - tx) ** 2 + (fy - ty) ** 2))
    good = [k for k in range(n) if pos_sq[k] <= 1]
    row = {"method": "pystackreg", "transform": model, "size": size, "frames": n,
           "seconds": seconds, "frames_per_second": n / seconds,
           "rms_angle_error_degrees": float(np.sqrt(np.mean(angle_sq))),
           "rms_position_error_px": float(np.sqrt(np.mean(pos_sq))),
           "gross_errors": n - len(good),
           "rms_angle_error_degrees_within_1px": float(np.sqrt(np.mean([angle_sq[k] for k in good])))
           if good else None,
           "rms_position_error_px_within_1px": float(np.sqrt(np.mean([pos_sq[k] for k in good])))
           if good else None}
    print(f"pystackreg {model}: {n} frames of {size}x{size} in {seconds:.3f} s = "
          f"{row['frames_per_second']:.1f} frames/s; RMS error "
          f"{row['rms_angle_error_degrees']:.5f} degrees, {row['rms_position_error_px']:.5f} px; "
          f"{row['gross_errors']} frames beyond 1 px; the others "
          f"{row['rms_angle_error_degrees_within_1px']} degrees, "
          f"{row['rms_position_error_px_within_1px']} px")
    pathlib.Path(a.out).write_text(json.dumps(row, indent=1) + "\n")


if __name__ == "__main__":
    main()
