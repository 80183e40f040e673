// Peak output from surfaces already in device memory (every GPU variant that does not fuse the
// search): peak_argmax_kernel combines per-warp maxima of each surface with atomicMax on 64-bit
// keys (gpu/peak_key.cuh), then peak_refine_kernel (one thread per result) refines the maximum
// from its 3x3 neighbourhood with core/peak_fit.hpp and writes the record. No shared memory.
#pragma once

#include <vector>

#include "gpu/device_buffer.cuh"
#include "gpu/gpu_correlator.cuh"

namespace xcorr::gpu {

// `surfaces`: count surfaces of rows x cols (contiguous); `records`: count x kPeakFields.
Status reduce_peaks(const float* surfaces, int count, int rows, int cols, SubpixelMethod subpixel,
                    float* records, DeviceBuffer<unsigned long long>& keys, cudaStream_t stream);

std::vector<GpuCorrelator::Launch> peak_reduce_launches();

}  // namespace xcorr::gpu
