#!/usr/bin/env python3
"""The GPU anchor for `xcorr bench-register --depth D`: what a Python user would run instead.

scikit-image's phase_cross_correlation(upsample_factor=U) on volumes (Guizar-Sicairos et al.
2008: the integer peak of the whitened cross-power spectrum's inverse, then the matrix-multiply
DFT of a 1.5 U cube around it, one axis after another) written batched in PyTorch on the GPU,
the volumes resident on the device. Input: the folder `xcorr bench-register --depth D --save DIR`
wrote (volume_0.f32 the reference, volume_K.f32 moved by truth.json's shifts), so both measure
the same volumes. The port is checked against scikit-image itself on the first volume (CPU,
the same upsampling) before it is timed.

usage: volume_anchor_torch.py DIR OUT.json [--volumes 64] [--batch 4] [--upsample 100]
"""
import argparse
import json
import math
import pathlib
import sys
import time

import numpy as np
import torch


def upsampled_dft(data, region, upsample, offsets):
    """skimage.registration._phase_cross_correlation._upsampled_dft, batched over dim 0.
    data: (B, D, R, C) complex; offsets: (B, 3) float (z, y, x). Returns (B, region^3)."""
    dims = data.shape[1:]
    k = torch.arange(region, device=data.device, dtype=torch.float64)
    for axis in (2, 1, 0):  # skimage: the last axis first; each pass moves it to the front
        n = dims[axis]
        freq = torch.fft.fftfreq(n, d=float(upsample), device=data.device, dtype=torch.float64)
        kernel = torch.exp(-2j * math.pi * (k[None, :, None] - offsets[:, axis, None, None]) *
                           freq[None, None, :]).to(torch.complex64)  # (B, region, n)
        data = torch.einsum("bun,b...n->bu...", kernel, data)
    return data


def phase_cross_correlation(ref_f, volumes, upsample):
    """Batched skimage default (normalization='phase'): shifts (B, 3) z, y, x as skimage."""
    b = volumes.shape[0]
    dims = volumes.shape[1:]
    f = torch.fft.fftn(volumes, dim=(1, 2, 3))
    prod = ref_f[None] * f.conj()
    prod = prod / torch.clamp(prod.abs(), min=100 * torch.finfo(torch.float32).eps)
    cc = torch.fft.ifftn(prod, dim=(1, 2, 3))
    idx = torch.argmax(cc.abs().reshape(b, -1), dim=1)
    coords = []
    for n in reversed(dims):
        coords.append(idx % n)
        idx = idx // n
    shifts = torch.stack(list(reversed(coords)), dim=1).to(torch.float64)
    mids = torch.tensor([n // 2 for n in dims], device=volumes.device, dtype=torch.float64)
    sizes = torch.tensor(list(dims), device=volumes.device, dtype=torch.float64)
    shifts = torch.where(shifts > mids, shifts - sizes, shifts)
    shifts = torch.round(shifts * upsample) / upsample
    region = math.ceil(upsample * 1.5)
    centre = math.floor(region / 2.0)
    offsets = centre - shifts * upsample
    up = upsampled_dft(prod.conj(), region, upsample, offsets).conj()
    j = torch.argmax(up.abs().reshape(b, -1), dim=1)
    maxima = torch.stack([j // (region * region), (j // region) % region, j % region], 1)
    return shifts + (maxima.to(torch.float64) - centre) / upsample


def main():
    p = argparse.ArgumentParser()
    p.add_argument("folder")
    p.add_argument("out")
    p.add_argument("--volumes", type=int, default=64)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--upsample", type=int, default=100)
    a = p.parse_args()
    folder = pathlib.Path(a.folder)
    truth = json.loads((folder / "truth.json").read_text())
    shape = tuple(truth["shape"])
    xyz = np.array(truth["shifts_xyz"], dtype=np.float64)
    distinct = len(xyz)
    load = lambda k: np.fromfile(folder / f"volume_{k}.f32", dtype=np.float32).reshape(shape)
    dev = torch.device("cuda")
    ref = torch.from_numpy(load(0)).to(dev)
    volumes = torch.stack([torch.from_numpy(load(k + 1)) for k in range(distinct)]).to(dev)
    ref_f = torch.fft.fftn(ref)

    # The port against scikit-image itself on volume 1 (CPU).
    from skimage.registration import phase_cross_correlation as skimage_pcc
    mine = phase_cross_correlation(ref_f, volumes[:1], a.upsample)[0].cpu().numpy()
    t0 = time.perf_counter()
    theirs, _, _ = skimage_pcc(load(0), load(1), upsample_factor=a.upsample)
    skimage_seconds = time.perf_counter() - t0
    agree = float(np.max(np.abs(mine - np.asarray(theirs))))
    print(f"torch port vs skimage on volume 1: {mine} vs {np.asarray(theirs)} "
          f"(max difference {agree:.4f}); skimage {skimage_seconds:.2f} s on the CPU")

    def batch_of(first, n):
        idx = (torch.arange(first, first + n) % distinct).to(dev)
        return volumes.index_select(0, idx)

    phase_cross_correlation(ref_f, batch_of(0, a.batch), a.upsample)  # warm-up
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    found = []
    for first in range(0, a.volumes, a.batch):
        n = min(a.batch, a.volumes - first)
        found.append(phase_cross_correlation(ref_f, batch_of(first, n), a.upsample).cpu())
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    s = torch.cat(found).numpy()  # z, y, x: minus the content's motion
    t = xyz[np.arange(a.volumes) % distinct][:, ::-1]
    rms = np.sqrt(np.mean((s + t) ** 2, axis=0))
    row = {"anchor": "torch batched phase_cross_correlation 3-D (skimage algorithm)",
           "shape": list(shape), "volumes": a.volumes, "batch": a.batch,
           "upsample": a.upsample, "seconds": seconds, "volumes_per_second": a.volumes / seconds,
           "rms_error_voxels": {"x": rms[2], "y": rms[1], "z": rms[0]},
           "max_difference_from_skimage_voxels": agree, "skimage_cpu_seconds_one": skimage_seconds}
    print(f"{row['anchor']}: {a.volumes} volumes of {shape} in {seconds:.3f} s = "
          f"{a.volumes / seconds:.1f} volumes/s (batch {a.batch}, on the device); RMS error "
          f"x {rms[2]:.4f} y {rms[1]:.4f} z {rms[0]:.4f} voxel")
    with open(a.out, "w") as f:
        json.dump([row], f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
