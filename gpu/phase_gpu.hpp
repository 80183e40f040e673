// Phase correlation of stack frames on the GPU (CUDA-free header): the arithmetic of
// core/register/phase_correlation.hpp on blocks of frames at once. Per block of B frames, all on
// the device: the mean and the Tukey window (moved per frame in later iterations), one batched
// cuFFT R2C, the normalised cross-power spectrum with the reference's, one batched C2R and an
// argmax for the integer peak (first iteration only), then the 3 x 3 pattern search of the
// cross-correlation's exact DFT down to 1 / upsample px: one kernel evaluates the 9 sums for
// every frame (weights in shared memory, float sums along a row, float64 across rows), a second
// moves, halves or finishes each frame's search, so the host only checks, every few passes,
// whether any frame is still searching. Frames go up through pinned staging; only the shifts
// come back. Without CUDA or a device: ErrorCode::unsupported with the reason.
#pragma once

#include <memory>

#include "core/engine/engine.hpp"
#include "core/register/phase_engine.hpp"

namespace xcorr::gpu {

// Images of `shape` px (the region measured on); ErrorCode::unsupported when no device is
// usable or rows are wider than the search kernel's shared memory holds (about 19,000 px).
Result<std::unique_ptr<reg::PhaseEngine>> make_gpu_phase_engine(Shape shape,
                                                                const reg::PhaseOptions& o,
                                                                int iterations);

// engine::time_phase_on_gpu (core/engine/engine.hpp).
Result<engine::PhaseTiming> time_phase_on_gpu(MatrixView<const float> reference,
                                              StackView<const float> frames, Index measured,
                                              const reg::PhaseOptions& o, int iterations);

}  // namespace xcorr::gpu
