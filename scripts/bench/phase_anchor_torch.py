#!/usr/bin/env python3
"""The anchor for `xcorr bench-register` on the GPU: what a Python user would run instead.

scikit-image's phase_cross_correlation(upsample_factor=U) (Guizar-Sicairos et al. 2008: the
integer peak of the whitened cross-power spectrum's inverse, then the matrix-multiply DFT of a
1.5 U x 1.5 U neighbourhood around it) written batched in PyTorch on the GPU, frames resident on
the device, and cuCIM's port of the same function (one frame per call) when cuCIM is installed.
The frames are synthetic: a smoothed random image and copies moved by integer shifts plus a
sub-pixel Fourier shift, so both the time and the error against the truth are reported.

usage: phase_anchor_torch.py OUT.json [--size 2048] [--frames 1000] [--distinct 64] [--batch 32]
"""
import argparse
import json
import math
import sys
import time

import torch


def upsampled_dft(data, region, upsample, offsets):
    """skimage.registration._phase_cross_correlation._upsampled_dft, batched over dim 0.
    data: (B, R, C) complex; offsets: (B, 2) float (row, col). Returns (B, region, region)."""
    b, rows, cols = data.shape
    dev = data.device
    fr = torch.fft.ifftshift(torch.arange(rows, device=dev)) - rows // 2
    fc = torch.fft.ifftshift(torch.arange(cols, device=dev)) - cols // 2
    k = torch.arange(region, device=dev, dtype=torch.float64)
    # (B, region, C) and (B, region, R) kernels, as skimage builds them (float64 phases).
    kc = torch.exp((-2j * math.pi / (cols * upsample)) *
                   ((k[None, :, None] - offsets[:, None, 1:2]) * fc[None, None, :])).to(torch.complex64)
    kr = torch.exp((-2j * math.pi / (rows * upsample)) *
                   ((k[None, :, None] - offsets[:, None, 0:1]) * fr[None, None, :])).to(torch.complex64)
    # out = kr @ data @ kc^T
    return torch.bmm(torch.bmm(kr, data), kc.transpose(1, 2))


def phase_cross_correlation(ref_f, frames, upsample):
    """Batched skimage default (normalization='phase'): shifts (B, 2) as skimage returns them."""
    b, rows, cols = frames.shape
    f = torch.fft.fft2(frames)
    prod = ref_f[None] * f.conj()
    prod = prod / torch.clamp(prod.abs(), min=100 * torch.finfo(torch.float32).eps)
    cc = torch.fft.ifft2(prod)
    idx = torch.argmax(cc.abs().reshape(b, -1), dim=1)
    r = (idx // cols).to(torch.float64)
    c = (idx % cols).to(torch.float64)
    r = torch.where(r > rows // 2, r - rows, r)
    c = torch.where(c > cols // 2, c - cols, c)
    shifts = torch.stack([r, c], dim=1)
    shifts = torch.round(shifts * upsample) / upsample
    region = math.ceil(upsample * 1.5)
    centre = math.floor(region / 2.0)
    offsets = centre - shifts * upsample
    up = upsampled_dft(prod.conj(), region, upsample, offsets).conj()
    j = torch.argmax(up.abs().reshape(b, -1), dim=1)
    maxima = torch.stack([(j // region).to(torch.float64), (j % region).to(torch.float64)], 1)
    return shifts + (maxima - centre) / upsample


def make_frames(size, distinct, device, seed=5):
    g = torch.Generator(device="cpu").manual_seed(seed)
    base = torch.rand((size, size), generator=g, dtype=torch.float64)
    k = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0], dtype=torch.float64)
    kern = (k[:, None] * k[None, :]) / 256
    base = torch.nn.functional.conv2d(base[None, None].to(device), kern[None, None].to(device),
                                      padding=2)[0, 0]
    fr = torch.fft.fftfreq(size, dtype=torch.float64, device=device)
    walk = torch.cumsum(torch.randn((distinct, 2), generator=g, dtype=torch.float64) * 0.5, 0)
    spec = torch.fft.fft2(base)
    frames = []
    for d in walk.tolist():  # content moved by (dy, dx): periodic, exact
        phase = torch.exp(-2j * math.pi * (fr[:, None] * d[0] + fr[None, :] * d[1]))
        frames.append(torch.fft.ifft2(spec * phase).real.float())
    return base.float(), torch.stack(frames), walk


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--frames", type=int, default=1000)
    p.add_argument("--distinct", type=int, default=64)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--upsample", type=int, default=100)
    a = p.parse_args()
    dev = torch.device("cuda")
    ref, frames, walk = make_frames(a.size, a.distinct, dev)
    ref_f = torch.fft.fft2(ref)
    rows = []

    def timed(name, measure, per_call):
        measure(0, per_call)  # warm-up (plans, kernels)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        shifts = []
        for first in range(0, a.frames, per_call):
            n = min(per_call, a.frames - first)
            shifts.append(measure(first, n).cpu())  # shifts in host memory
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        s = torch.cat(shifts)
        truth = walk[torch.arange(a.frames) % a.distinct]
        # skimage's shift registers the frame: minus the content's motion.
        rms = torch.sqrt(torch.mean((s + truth) ** 2)).item()
        row = {"anchor": name, "size": a.size, "frames": a.frames, "batch": per_call,
               "upsample": a.upsample, "seconds": seconds,
               "frames_per_second": a.frames / seconds, "rms_error_px": rms}
        print(f"{name}: {a.frames} frames of {a.size}x{a.size} in {seconds:.3f} s = "
              f"{a.frames / seconds:.0f} frames/s (batch {per_call}); RMS error {rms:.4f} px")
        rows.append(row)

    def batch_of(first, n):
        idx = (torch.arange(first, first + n) % a.distinct).to(dev)
        return frames.index_select(0, idx)

    timed("torch batched phase_cross_correlation (skimage algorithm)",
          lambda first, n: phase_cross_correlation(ref_f, batch_of(first, n), a.upsample),
          a.batch)
    try:
        import cupy
        from cucim.skimage.registration import phase_cross_correlation as cucim_pcc
        ref_c = cupy.asarray(ref)

        def one_by_one(first, n):
            out = []
            for k in range(first, first + n):
                sh, _, _ = cucim_pcc(ref_c, cupy.asarray(frames[k % a.distinct]),
                                     upsample_factor=a.upsample)
                out.append([float(sh[0]), float(sh[1])])
            return torch.tensor(out, dtype=torch.float64)

        timed("cucim.skimage phase_cross_correlation", one_by_one, 1)
    except ImportError as e:
        print(f"cuCIM not available ({e}); torch anchor only")
    with open(a.out, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
