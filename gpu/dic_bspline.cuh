// B-spline coefficients of a DIC frame on the device (gpu/dic_gpu.cu's stage 1): float64 work,
// the Gaussian prefilter (DicOptions::prefilter; one thread per pixel, rows then columns), then
// the B-spline prefilter (math::bspline_prefilter: one thread per row, then one per column),
// stored as float32: half the bytes per interpolation; the rounding moves displacements by
// ~1e-7 px (tests: GPU vs CPU).
// Instantiations: the prefilter kernels for the cubic (3) and quintic (5) B-spline.
#pragma once

#include <cuda_runtime.h>

#include "core/dic/options.hpp"
#include "core/status.hpp"
#include "gpu/device_buffer.cuh"

namespace xcorr::gpu {

// Scratch memory of bspline_coefficients, kept between frames (float64, a pixel each).
struct BsplineScratch {
  DeviceBuffer<double> work, smooth;
};

// The coefficients of `image` (rows x cols px, device memory) into `c` (allocated here) with
// o.prefilter and o.interpolation, enqueued on `stream`; with `pad` > 0 surrounded by that many
// continued coefficients on every side (math::continued_coefficient): c is then
// (rows + 2 pad) x (cols + 2 pad), row-major, coefficient (0, 0) at (pad, pad).
Status bspline_coefficients(const float* image, DeviceBuffer<float>& c, int rows, int cols,
                            const dic::DicOptions& o, BsplineScratch& scratch, cudaStream_t stream,
                            int pad = 0);

// The spline's value and gradient at every pixel of a frame: what IC-GN's reference subsets
// read at integer positions, computed once per reference instead of once per subset (each pixel
// lies in about (subset / step)^2 subsets). The same arithmetic as the subsets' own
// (math::bspline_value_gradient at the pixel's position), so IC-GN's results are the same bit
// for bit either way.
struct PixelTable {
  DeviceBuffer<double> value;  // rows x cols, row-major
  DeviceBuffer<float> gx, gy;  // grey values per px along x and y
};
// The table of coefficients `c` (rows x cols, o.interpolation) into `t` (allocated here),
// enqueued on `stream`.
Status bspline_pixel_table(const float* c, PixelTable& t, int rows, int cols,
                           const dic::DicOptions& o, cudaStream_t stream);

}  // namespace xcorr::gpu
