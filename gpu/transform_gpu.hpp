// IC-GN of transforms (rigid, similarity, affine) on the GPU (CUDA-free header): the arithmetic
// of core/register/transform_level.cpp's CPU fitter on blocks of up to 32 frames at once. Per
// block, all on the device: the frames go up (pinned staging), are binned to the coarse level
// and prefiltered to cubic B-spline coefficients (a thread per column, then per row); then, per
// level, every IC-GN step for every frame of the block at once: the sums of the Hessian over the
// reference pixels whose match lies inside the frame (again whenever the warp moved a corner by
// more than the margin), the frame sampled through each warp with the sums of the update (a
// block of threads per part of a frame, float64 sums), and one thread per frame that solves the
// update, composes it inversely and decides (converged, moved far, failed). Only the fits come
// back to the host. The starts (Fourier-Mellin) stay on the host (TransformFitter).
// Without CUDA or a device: ErrorCode::unsupported with the reason.
#pragma once

#include <memory>

#include "core/register/transform_level.hpp"

namespace xcorr::gpu {

// Frames of `shape` px whose coarse level bins by `bin` (1: none).
Result<std::unique_ptr<reg::LevelFitter>> make_gpu_level_fitter(Shape shape, int bin);

}  // namespace xcorr::gpu
