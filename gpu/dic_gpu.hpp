// DIC frame registration on the GPU (CUDA-free header). Per frame only the deformed image goes
// up (the reference when it changes) and per-point results come back; everything between stays
// on the device: B-spline coefficients (float64), the integer guess (device-resident subsets and
// windows through the engine's GPU variant chosen by its dispatcher, then an argmax kernel) and
// IC-GN (one warp per point, float64 sums, the arithmetic of core/dic/icgn_math.hpp).
// Independent points, and reliability-guided work as an independent pass followed by waves that
// start the failed points from their best converged neighbour (GpuRegistrar::reliability_waves);
// first- and second-order shape functions.
// Without CUDA or a device: ErrorCode::unsupported with the reason.
#pragma once

#include <memory>

#include "core/dic/frame_registrar.hpp"
#include "core/engine/engine.hpp"

namespace xcorr::gpu {

Result<std::unique_ptr<dic::FrameRegistrar>> make_gpu_registrar(const Registry& engine);

// Seconds of the last register_frame spent with images already on the device, up to the results
// in host memory (the DIC speed benchmark's measure); negative before the first frame.
double last_gpu_frame_seconds(const dic::FrameRegistrar& r);

// That time by stage (CUDA events), seconds; all zero before the first frame or on the CPU.
// integer_guess spans the host's point lists and the dispatcher's choice too (the device waits
// for them); guess_gather and guess_search are its two device parts: cutting subsets and
// windows, and the engine's peak search.
using GpuDicStages = engine::DicStages;  // core/engine/engine.hpp
GpuDicStages last_gpu_stage_seconds(const dic::FrameRegistrar& r);

}  // namespace xcorr::gpu
