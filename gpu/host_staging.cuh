// Pinned host staging for GpuCorrelator::run: host stacks (contiguous or strided) move to and from
// the device through two reusable pinned buffers of 8 MiB, so the packing on the CPU (several
// host threads per chunk for contiguous stacks) overlaps the DMA of the previous chunk and copies
// run at pinned-memory speed. Serialised by a mutex;
// falls back to plain copies when pinned memory cannot be had.
#pragma once

#include <cuda_runtime.h>

#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr::gpu {

// dst (device, contiguous s.count x s.rows x s.cols) <- s. Complete when it returns.
Status upload_staged(StackView<const float> s, float* dst, cudaStream_t stream);

// out <- src (device, contiguous out.count x out.rows x out.cols), after the work queued on
// `stream`. Complete when it returns.
Status download_staged(const float* src, StackView<float> out, cudaStream_t stream);

}  // namespace xcorr::gpu
