#include <algorithm>

#include "core/zncc_rule.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/zncc_epilogue.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 8;  // elements a thread sums in the statistics kernels
constexpr int kChunk = 32;     // outputs a thread slides over in the box-sum kernels

__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Blocks cover matrix m's elements in chunks: block b -> matrix b / per_matrix.
struct Chunks {
  long long area;
  int per_matrix;
};
Chunks chunks(long long area) {
  const long long per_block = static_cast<long long>(kThreads) * kPerThread;
  return {area, static_cast<int>((area + per_block - 1) / per_block)};
}

// stats[2m] += sum, stats[2m + 1] += sum of squares of matrix m (stats zeroed before).
__global__ void __launch_bounds__(kThreads)
    zncc_stats_kernel(const float* __restrict__ data, Chunks c, double* __restrict__ stats) {
  const int m = blockIdx.x / c.per_matrix;
  const long long first = static_cast<long long>(blockIdx.x % c.per_matrix) * kThreads * kPerThread;
  const float* x = data + m * c.area;
  double s = 0, q = 0;
  for (int k = 0; k < kPerThread; ++k) {
    const long long i = first + k * kThreads + threadIdx.x;
    if (i < c.area) {
      const double v = x[i];
      s += v;
      q += v * v;
    }
  }
  s = warp_sum(s);
  q = warp_sum(q);
  if (threadIdx.x % 32 == 0) {
    atomicAdd(stats + 2 * m, s);
    atomicAdd(stats + 2 * m + 1, q);
  }
}

// copy = x - mean (float32); with moments (templates), moments[2m] += sum(copy),
// moments[2m + 1] += sum(copy^2).
__global__ void __launch_bounds__(kThreads)
    zero_mean_kernel(const float* __restrict__ data, Chunks c, const double* __restrict__ stats,
                     float* __restrict__ copy, double* __restrict__ moments) {
  const int m = blockIdx.x / c.per_matrix;
  const long long first = static_cast<long long>(blockIdx.x % c.per_matrix) * kThreads * kPerThread;
  const double mean = stats[2 * m] / static_cast<double>(c.area);
  double s = 0, q = 0;
  for (int k = 0; k < kPerThread; ++k) {
    const long long i = first + k * kThreads + threadIdx.x;
    if (i < c.area) {
      const float v = static_cast<float>(data[m * c.area + i] - mean);
      copy[m * c.area + i] = v;
      s += v;
      q += static_cast<double>(v) * v;
    }
  }
  if (moments == nullptr) return;
  s = warp_sum(s);
  q = warp_sum(q);
  if (threadIdx.x % 32 == 0) {
    atomicAdd(moments + 2 * m, s);
    atomicAdd(moments + 2 * m + 1, q);
  }
}

// hs[(m H + y) out_cols + l] = (sum, sum of squares) of s[m][y][l .. l + w): one thread per
// (m, y, chunk of kChunk columns), sliding.
__global__ void __launch_bounds__(kThreads)
    row_box_kernel(const float* __restrict__ s, int count, int H, int W, int w, int out_cols,
                   double2* __restrict__ hs) {
  const int chunks = (out_cols + kChunk - 1) / kChunk;
  const long long id = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x;
  if (id >= static_cast<long long>(count) * H * chunks) return;
  const long long row = id / chunks;  // m * H + y
  const int l0 = static_cast<int>(id % chunks) * kChunk;
  const float* x = s + row * W;
  double a = 0, b = 0;
  for (int j = 0; j < w; ++j) {
    const double v = x[l0 + j];
    a += v;
    b += v * v;
  }
  double2* o = hs + row * out_cols;
  o[l0] = make_double2(a, b);
  const int l1 = min(out_cols, l0 + kChunk);
  for (int l = l0 + 1; l < l1; ++l) {
    const double add = x[l + w - 1], sub = x[l - 1];
    a += add - sub;
    b += add * add - sub * sub;
    o[l] = make_double2(a, b);
  }
}

// One thread per (result t, column l, chunk of kChunk rows): window sums sliding down the rows.
__global__ void __launch_bounds__(kThreads)
    zncc_normalize_kernel(DeviceProblem p, const double* __restrict__ left_stats,
                          const double* __restrict__ left_moments,
                          const double* __restrict__ right_stats, const double2* __restrict__ hs,
                          float* __restrict__ out) {
  const int chunks = (p.out_rows + kChunk - 1) / kChunk;
  const long long id = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x;
  if (id >= static_cast<long long>(p.out_count) * p.out_cols * chunks) return;
  const int l = static_cast<int>(id % p.out_cols);
  const long long rest = id / p.out_cols;
  const int k0 = static_cast<int>(rest % chunks) * kChunk;
  const int t = static_cast<int>(rest / chunks);
  const int2 lr = p.pair(t);
  const int h = p.left_rows, H = p.right_rows;
  const double n = static_cast<double>(h) * p.left_cols;
  const double delta = left_moments[2 * lr.x], q = left_moments[2 * lr.x + 1];
  const double t_ss = fmax(0.0, q - delta * delta / n);
  const bool t_flat = t_ss <= kFlatRelative * left_stats[2 * lr.x + 1];
  const double area_s = static_cast<double>(H) * p.right_cols;
  const double s_sum = right_stats[2 * lr.y], s_sq = right_stats[2 * lr.y + 1];
  const double search_variance = fmax(0.0, s_sq - s_sum * s_sum / area_s) / area_s;
  const double2* col = hs + static_cast<long long>(lr.y) * H * p.out_cols + l;
  double a = 0, b = 0;
  for (int i = 0; i < h; ++i) {
    const double2 v = col[static_cast<long long>(k0 + i) * p.out_cols];
    a += v.x;
    b += v.y;
  }
  float* o = out + static_cast<long long>(t) * p.out_rows * p.out_cols + l;
  const int k1 = min(p.out_rows, k0 + kChunk);
  for (int k = k0;; ++k) {
    const double window_ss = fmax(0.0, b - a * a / n);
    float* ok = o + static_cast<long long>(k) * p.out_cols;
    *ok = zncc_from_sums(*ok - delta * (a / n), t_ss, t_flat, window_ss, n, search_variance);
    if (k + 1 >= k1) break;
    const double2 add = col[static_cast<long long>(k + h) * p.out_cols];
    const double2 sub = col[static_cast<long long>(k) * p.out_cols];
    a += add.x - sub.x;
    b += add.y - sub.y;
  }
}

unsigned blocks_for(long long threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

}  // namespace

Result<DeviceProblem> ZnccEpilogue::prepare(const DeviceProblem& p, cudaStream_t stream) {
  const long long la = static_cast<long long>(p.left_rows) * p.left_cols;
  const long long ra = static_cast<long long>(p.right_rows) * p.right_cols;
  XCORR_RETURN_IF_ERROR(left_stats_.allocate(static_cast<std::size_t>(4 * p.n_left)));
  XCORR_RETURN_IF_ERROR(right_stats_.allocate(static_cast<std::size_t>(2 * p.n_right)));
  XCORR_RETURN_IF_ERROR(left_copy_.allocate(static_cast<std::size_t>(la * p.n_left)));
  XCORR_RETURN_IF_ERROR(right_copy_.allocate(static_cast<std::size_t>(ra * p.n_right)));
  XCORR_CUDA_TRY(cudaMemsetAsync(left_stats_.get(), 0, 4 * sizeof(double) * p.n_left, stream));
  XCORR_CUDA_TRY(cudaMemsetAsync(right_stats_.get(), 0, 2 * sizeof(double) * p.n_right, stream));
  const Chunks lc = chunks(la), rc = chunks(ra);
  zncc_stats_kernel<<<p.n_left * lc.per_matrix, kThreads, 0, stream>>>(p.left, lc,
                                                                       left_stats_.get());
  zncc_stats_kernel<<<p.n_right * rc.per_matrix, kThreads, 0, stream>>>(p.right, rc,
                                                                        right_stats_.get());
  XCORR_LAUNCH_TRY("zncc_stats_kernel");
  // Left moments after the left statistics: [2 n_left, 4 n_left).
  double* moments = left_stats_.get() + 2 * p.n_left;
  zero_mean_kernel<<<p.n_left * lc.per_matrix, kThreads, 0, stream>>>(p.left, lc, left_stats_.get(),
                                                                      left_copy_.get(), moments);
  zero_mean_kernel<<<p.n_right * rc.per_matrix, kThreads, 0, stream>>>(
      p.right, rc, right_stats_.get(), right_copy_.get(), nullptr);
  XCORR_LAUNCH_TRY("zero_mean_kernel");
  DeviceProblem q = p;
  q.left = left_copy_.get();
  q.right = right_copy_.get();
  q.request.norm = Normalization::none;
  return q;
}

Status ZnccEpilogue::normalize(const DeviceProblem& p, float* out, cudaStream_t stream) {
  const long long rows = static_cast<long long>(p.n_right) * p.right_rows;
  XCORR_RETURN_IF_ERROR(hs_.allocate(static_cast<std::size_t>(2 * rows * p.out_cols)));
  auto* hs = reinterpret_cast<double2*>(hs_.get());
  const int col_chunks = (p.out_cols + kChunk - 1) / kChunk;
  row_box_kernel<<<blocks_for(rows * col_chunks), kThreads, 0, stream>>>(
      right_copy_.get(), p.n_right, p.right_rows, p.right_cols, p.left_cols, p.out_cols, hs);
  XCORR_LAUNCH_TRY("row_box_kernel");
  const int row_chunks = (p.out_rows + kChunk - 1) / kChunk;
  zncc_normalize_kernel<<<blocks_for(static_cast<long long>(p.out_count) * p.out_cols * row_chunks),
                          kThreads, 0, stream>>>(
      p, left_stats_.get(), left_stats_.get() + 2 * p.n_left, right_stats_.get(), hs, out);
  XCORR_LAUNCH_TRY("zncc_normalize_kernel");
  return Status::ok();
}

std::vector<GpuCorrelator::Launch> ZnccEpilogue::launches(
    const std::vector<GpuCorrelator::Launch>& inner) {
  const auto k = [](const char* name, const void* f) {
    return GpuCorrelator::Launch{name, f, kThreads, 0};
  };
  std::vector<GpuCorrelator::Launch> all = {
      k("zncc_stats_kernel", reinterpret_cast<const void*>(&zncc_stats_kernel)),
      k("zncc_stats_kernel", reinterpret_cast<const void*>(&zncc_stats_kernel)),
      k("zero_mean_kernel", reinterpret_cast<const void*>(&zero_mean_kernel)),
      k("zero_mean_kernel", reinterpret_cast<const void*>(&zero_mean_kernel))};
  all.insert(all.end(), inner.begin(), inner.end());
  all.push_back(k("row_box_kernel", reinterpret_cast<const void*>(&row_box_kernel)));
  all.push_back(k("zncc_normalize_kernel", reinterpret_cast<const void*>(&zncc_normalize_kernel)));
  return all;
}

double ZnccEpilogue::workspace_bytes(const DeviceProblem& p) {
  const double la = static_cast<double>(p.left_rows) * p.left_cols * p.n_left;
  const double ra = static_cast<double>(p.right_rows) * p.right_cols * p.n_right;
  return 4.0 * (la + ra) + 16.0 * static_cast<double>(p.n_right) * p.right_rows * p.out_cols +
         8.0 * (4.0 * p.n_left + 2.0 * p.n_right);
}

Status compute_matrix_sums(const float* data, int count, long long area, DeviceBuffer<double>& sums,
                           cudaStream_t stream) {
  XCORR_RETURN_IF_ERROR(sums.allocate(static_cast<std::size_t>(2 * count)));
  XCORR_CUDA_TRY(cudaMemsetAsync(sums.get(), 0, 2 * sizeof(double) * count, stream));
  const Chunks c = chunks(area);
  zncc_stats_kernel<<<count * c.per_matrix, kThreads, 0, stream>>>(data, c, sums.get());
  XCORR_LAUNCH_TRY("zncc_stats_kernel");
  return Status::ok();
}

const void* matrix_sums_kernel() {
  return reinterpret_cast<const void*>(&zncc_stats_kernel);
}

}  // namespace xcorr::gpu
