#include "gpu/matrix_stats.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kThreads = 256;

__device__ double block_sum(double v, double* scratch) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  double total = 0;
  if (threadIdx.x == 0) {
    for (int w = 0; w < kThreads / 32; ++w) total += scratch[w];
    scratch[kThreads / 32] = total;
  }
  __syncthreads();
  total = scratch[kThreads / 32];
  __syncthreads();
  return total;
}

__global__ void __launch_bounds__(kThreads)
    stats_kernel(const float* data, int area, double* stats) {
  __shared__ double scratch[kThreads / 32 + 1];
  const float* m = data + static_cast<long long>(blockIdx.x) * area;
  double sum = 0, sq = 0;
  for (int i = threadIdx.x; i < area; i += kThreads) {
    sum += m[i];
    sq += static_cast<double>(m[i]) * m[i];
  }
  const double mean = block_sum(sum, scratch) / area;
  const double sum_sq = block_sum(sq, scratch);
  double ss = 0;
  for (int i = threadIdx.x; i < area; i += kThreads) ss += (m[i] - mean) * (m[i] - mean);
  ss = block_sum(ss, scratch);
  if (threadIdx.x == 0) {
    stats[3 * blockIdx.x + 0] = mean;
    stats[3 * blockIdx.x + 1] = ss;
    stats[3 * blockIdx.x + 2] = sum_sq;
  }
}

}  // namespace

Status compute_matrix_stats(const float* data, int count, int area, DeviceBuffer<double>& stats,
                            cudaStream_t stream) {
  XCORR_RETURN_IF_ERROR(stats.allocate(static_cast<std::size_t>(3 * count)));
  stats_kernel<<<count, kThreads, 0, stream>>>(data, area, stats.get());
  XCORR_LAUNCH_TRY("stats_kernel");
  return Status::ok();
}

}  // namespace xcorr::gpu
