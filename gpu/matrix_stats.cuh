// Per-matrix statistics in float64 for ZNCC, one block per matrix:
// stats[3*i + 0] = mean, [3*i + 1] = sum((x - mean)^2), [3*i + 2] = sum(x^2).
#pragma once

#include "gpu/device_buffer.cuh"

namespace xcorr::gpu {

Status compute_matrix_stats(const float* data, int count, int area, DeviceBuffer<double>& stats,
                            cudaStream_t stream);

}  // namespace xcorr::gpu
