// Shared memory of gpu_block_per_shift (gpu/thesis_kernels.cu), written once for the kernel and
// its bank-conflict model: one float per warp holds the warp's partial sum of an output; lane 0
// of each warp stores it, thread 0 reads all four as one 16-byte load (the array is 16-byte
// aligned).
#pragma once

#include "core/smem/int_math.hpp"

namespace xcorr::smem {

inline constexpr int kBpsThreads = 128;  // 4 warps: the partials are one float4
XCORR_HD inline int bps_partial_slot(int warp) {
  return warp;
}

}  // namespace xcorr::smem
