#!/usr/bin/env python3
"""A fluorescence-like drifting stack for demonstrations and screenshots: 40 frames of 512^2 px,
sparse Gaussian spots with Poisson noise, moved by a random walk with a slow drift to the right,
16-bit, ImageJ metadata (0.16 um pixels, 5 s per frame). Usage: make_drift_stack.py OUT.tif
Needs numpy and tifffile."""
import sys

import numpy as np
import tifffile
from numpy.fft import fftfreq, irfft2, rfft2, rfftfreq

rng = np.random.default_rng(11)
N, big = 512, 576
ky, kx = fftfreq(big)[:, None], rfftfreq(big)[None, :]
img = np.zeros((big, big))
n = int(big * big * 0.003)
img[rng.integers(0, big, n), rng.integers(0, big, n)] = rng.uniform(0.5, 1.5, n)
spectrum = rfft2(img) * np.exp(-2 * np.pi**2 * 1.8**2 * (ky**2 + kx**2))
steps = rng.normal(0, 0.6, (40, 2))
steps[0] = 0
steps[:, 1] += 0.25
frames = []
for dy, dx in np.cumsum(steps, axis=0):
    f = irfft2(spectrum * np.exp(-2j * np.pi * (ky * dy + kx * dx)), s=(big, big))[32:32 + N, 32:32 + N]
    frames.append(rng.poisson(f / f.max() * 800 + 40))
tifffile.imwrite(sys.argv[1], np.array(frames).astype(np.uint16), imagej=True,
                 resolution=(1 / 0.16, 1 / 0.16), metadata={"axes": "TYX", "unit": "um", "finterval": 5})
