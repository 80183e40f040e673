// 3-D phase correlation of volumes on the GPU (CUDA-free header): the arithmetic of
// core/register/phase_volume.hpp on blocks of volumes at once. Per block of B volumes, all on
// the device: the mean and the Tukey window along x, y and z (moved per volume in later rounds),
// one batched 3-D cuFFT R2C, R = F_ref conj(F) / sqrt(E_ref E), one batched C2R and an argmax
// for the integer peak (first round only), then the 3 x 3 x 3 pattern search of the
// cross-correlation's exact DFT down to 1 / upsample voxel (one kernel evaluates the 27 sums for
// every volume: x-weights in shared memory, float sums along a row, float64 across rows; a
// second moves, halves or finishes each volume's search). Rounds after the first move each
// volume's window by its shift and search again, until the shift changes by less than 1/200
// voxel (at most 6 more, as the CPU). Volumes go up through pinned staging; only the shifts come
// back. Without CUDA or a device: ErrorCode::unsupported with the reason.
#pragma once

#include <memory>

#include "core/engine/engine.hpp"
#include "core/register/volume_engine.hpp"

namespace xcorr::gpu {

// Volumes of `shape` voxels; ErrorCode::unsupported when no device is usable or rows are wider
// than the search kernel's shared memory holds.
Result<std::unique_ptr<reg::VolumeEngine>> make_gpu_volume_engine(reg::VolumeShape shape,
                                                                  int upsample);

// engine::time_volumes_on_gpu (core/engine/engine.hpp).
Result<engine::VolumeTiming> time_volumes_on_gpu(const float* reference,
                                                 const std::vector<const float*>& volumes,
                                                 reg::VolumeShape shape, Index measured,
                                                 int upsample);

}  // namespace xcorr::gpu
