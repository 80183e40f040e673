#!/usr/bin/env python3
"""A stage-rotation time-lapse for the screenshots (docs/registration.md): 30 frames of 384^2 px
of ihc.png's luminance (scripts/real-images.sh), sampled exactly (scripts/bench/transform_bench.py's
continuous texture) while the sample turns by up to 6 degrees and drifts by a few px, with noise of
1 % of the range; a 16-bit ImageJ stack of 0.65 um pixels, 20 s a frame.
Usage: scripts/make_turning_stack.py IMAGES_DIR OUT.tif"""
import os
import sys

import numpy as np
import tifffile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "bench"))
from transform_bench import inverse, sample, texture  # noqa: E402

images, out = sys.argv[1], sys.argv[2]
size, frames = 384, 30
rng = np.random.default_rng(44)
tex = texture(os.path.join(images, "ihc.png"))
centre = np.array([(tex.shape[1] - size) / 2, (tex.shape[0] - size) / 2])
c = (size - 1) / 2
stack = []
for t in range(frames):
    a = np.radians(6 * np.sin(np.pi * t / (frames - 1) / 2) ** 2 * (1 + 0.05 * rng.normal()))
    lin = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    m = np.zeros((2, 3))
    m[:, :2] = lin
    m[:, 2] = c + np.array([0.15 * t, -0.1 * t]) - lin @ [c, c]
    stack.append(sample(tex, size, inverse(m), centre))
stack = np.stack(stack)
stack += rng.normal(0, 0.01 * (stack.max() - stack.min()), stack.shape)
stack = (stack - stack.min()) / (stack.max() - stack.min()) * 50000 + 2000
tifffile.imwrite(out, stack.astype(np.uint16), imagej=True, resolution=(1 / 0.65, 1 / 0.65),
                 metadata={"axes": "TYX", "unit": "um", "finterval": 20})
