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
// o.prefilter and o.interpolation, enqueued on `stream`.
Status bspline_coefficients(const float* image, DeviceBuffer<float>& c, int rows, int cols,
                            const dic::DicOptions& o, BsplineScratch& scratch, cudaStream_t stream);

}  // namespace xcorr::gpu
