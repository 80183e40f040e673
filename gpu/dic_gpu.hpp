// DIC frame registration on the GPU (CUDA-free header). Per frame only the deformed image goes
// up (the reference when it changes) and per-point results come back; everything between stays
// on the device: B-spline coefficients (float64), the integer guess (by strips of a grid row's
// points, gpu/dic_guess_strips.cuh; or device-resident subsets and windows through the engine's
// GPU variant chosen by its dispatcher, then an argmax kernel) and
// IC-GN (one warp per point, float64 sums, the arithmetic of core/dic/icgn_math.hpp).
// Independent points, and reliability-guided work as an independent pass followed by waves that
// start the failed points from their best converged neighbour (GpuRegistrar::reliability_waves);
// first- and second-order shape functions.
// Without CUDA or a device: ErrorCode::unsupported with the reason.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/dic/frame_registrar.hpp"
#include "core/engine/engine.hpp"

namespace xcorr::gpu {

Result<std::unique_ptr<dic::FrameRegistrar>> make_gpu_registrar(const Registry& engine);

// Frames registered on several devices (gpu/dic_multi_gpu.cpp): each frame's points are split
// into contiguous parts, one per listed device (CUDA device numbers; a number may repeat, as the
// tests do on a one-GPU machine), registered at once by one host thread per device and merged
// in grid order; reliability-guided waves then run on the first device over the merged frame.
// Every device uses the integer-guess variant the first one chooses for the whole frame
// (FrameRegistrar::guess_method), so the results are bit for bit those of one device.
Result<std::unique_ptr<dic::FrameRegistrar>> make_multi_gpu_registrar(std::vector<int> devices);

// The integer-guess variant a GPU registrar uses for a `rows` x `cols` frame with `points` points
// to compute, as method text ("name" or "name:param=value,..."): gpu_guess_strips for auto with
// the fast accuracy where one subset's strip fits the current GPU's shared memory.
Result<std::string> gpu_guess_method(const Registry& engine, const dic::DicOptions& o, int rows,
                                     int cols, Index points);

// Seconds of the last register_frame spent with images already on the device, up to the results
// in host memory (the DIC speed benchmark's measure); negative before the first frame.
double last_gpu_frame_seconds(const dic::FrameRegistrar& r);

// That time by stage (CUDA events), seconds; all zero before the first frame or on the CPU.
// integer_guess spans the host's point lists and the dispatcher's choice too (the device waits
// for them); guess_gather and guess_search are its two device parts: cutting subsets and
// windows, and the engine's peak search (by strips: no gather, the search alone).
using GpuDicStages = engine::DicStages;  // core/engine/engine.hpp
GpuDicStages last_gpu_stage_seconds(const dic::FrameRegistrar& r);

}  // namespace xcorr::gpu
