// gpu_zncc_tiled: valid-mode ZNCC with everything in one block, surface or fused peak search.
// Overview: a block takes one output tile of one (template, window) pair (for DIC-sized pairs the
// tile is the whole surface). It stages the template and the window region in shared memory,
// reduces their sums (float64), shifts both to zero mean in place (the numerator then needs no
// large-offset cancellation), computes horizontal window sums (sliding in float64, stored as
// float2 relative to each run's first value),
// and each thread accumulates RY consecutive output rows of one column with a rotating register
// window (per template element: one window load, one broadcast template load shared by RY
// outputs, RY FMAs). The epilogue slides the window sums down the thread's rows and applies
// core/zncc_rule.hpp. Surface output writes the tile; peak output reduces the block's maximum
// (64-bit keys, gpu/peak_key.cuh) and, when the tile is the whole surface, refines it from the
// 3x3 neighbourhood in shared memory and writes the record: the surface never reaches device
// memory. Larger surfaces use several tiles: a statistics pre-pass gives the search-matrix
// variance (flatness rule), tiles combine maxima with atomicMax, and zncc_peak_refine_kernel
// recomputes the 3x3 neighbourhood in float64 from the inputs.
// Layout, thread map and the host's plan: core/smem/zncc_tile_layout.hpp,
// core/profiling/zncc_tile_plan.hpp. When it wins: DIC- and tracking-sized searches (templates up
// to ~64 px in windows of a few hundred px); whole frames with larger templates are cuFFT's
// (gpu_fft). Constraints: valid mode, zncc; the tile's staging within 200 KiB. Instantiations: RY
// in {4..8} x {surface, peak}.
#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/profiling/zncc_tile_plan.hpp"
#include "core/zncc_rule.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_model.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/once_per_device.cuh"
#include "gpu/peak_key.cuh"
#include "gpu/variants.cuh"
#include "gpu/zncc_epilogue.cuh"

namespace xcorr::gpu {
namespace {

using smem::ZnccTilePlan;
constexpr int kStageBatch = 8;  // columns or rows a warp stages per round (loads in flight)

struct ZnccArgs {
  DeviceProblem p;
  ZnccTilePlan q;
  const double* right_stats;  // several tiles: {sum, sum of squares} per right matrix
  unsigned long long* keys;   // peak output, several tiles: the maximum per result
  float* out;                 // the surfaces, or the peak records
  SubpixelMethod subpixel;
};

__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sums v[0..N) over the block (every thread gets the totals) through the reduction slots.
template <int N>
__device__ inline void block_sum(double (&v)[N], float* sm, const ZnccTilePlan& q) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = warp_sum(v[k]);
  __syncthreads();  // earlier readers of the slots are done
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k)
      *reinterpret_cast<double*>(sm + smem::zncc_r_slot(q, warp, k)) = v[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < N; ++k) {
    double t = 0;
    for (int w = 0; w < q.warps(); ++w)
      t += *reinterpret_cast<const double*>(sm + smem::zncc_r_slot(q, w, k));
    v[k] = t;
  }
}

template <int RY, bool kPeak>
__global__ void __launch_bounds__(smem::kZnccMaxThreads) zncc_tiled_kernel(ZnccArgs a) {
  extern __shared__ __align__(16) float sm[];
  constexpr int TG = (RY + 3) / 4 * 4;  // template group pitch: 16-byte loads of RY rows
  const ZnccTilePlan& q = a.q;
  const int tiles = q.tiles_y * q.tiles_x;
  const int t = blockIdx.x / tiles, tile = blockIdx.x % tiles;
  const int U0 = tile / q.tiles_x * q.TR, V0 = tile % q.tiles_x * q.TC;
  const int2 lr = a.p.pair(t);
  const float* __restrict__ L = a.p.left + static_cast<long long>(lr.x) * q.h * q.w;
  const float* __restrict__ R = a.p.right + static_cast<long long>(lr.y) * q.H * q.W;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, warps = blockDim.x / 32;

  // 1. Staging: the template in column groups with zero rows up to n_iter (lanes down a column),
  //    the window region with zeros outside the window (lanes along a row); their sums.
  //    Each warp loads kStageBatch columns (template) or rows (window) into registers before it
  //    stores and sums them: the global loads' latencies overlap instead of adding up.
  double st[4] = {0, 0, 0, 0};  // sum T, sum T^2, sum S, sum S^2
  for (int j0 = warp; j0 < q.w; j0 += kStageBatch * warps) {
#pragma unroll 1
    for (int i = lane; i < q.n_iter; i += 32) {
      float v[kStageBatch];
#pragma unroll
      for (int k = 0; k < kStageBatch; ++k) {
        const int j = j0 + k * warps;
        v[k] = i < q.h && j < q.w ? L[i * q.w + j] : 0.0f;
      }
#pragma unroll
      for (int k = 0; k < kStageBatch; ++k) {
        const int j = j0 + k * warps;
        if (j >= q.w) break;
        sm[smem::zncc_t_slot(q, i, j)] = v[k];
        st[0] += v[k];
        st[1] += static_cast<double>(v[k]) * v[k];
      }
    }
  }
  const int rows_in = min(q.s_rows, q.H - U0), cols_in = min(q.s_cols, q.W - V0);
  for (int y0 = warp; y0 < q.s_rows; y0 += kStageBatch * warps) {
#pragma unroll 1
    for (int x = lane; x < q.s_cols; x += 32) {
      float v[kStageBatch];
#pragma unroll
      for (int k = 0; k < kStageBatch; ++k) {
        const int y = y0 + k * warps;
        const bool in = y < rows_in && x < cols_in;
        v[k] = in ? R[static_cast<long long>(U0 + y) * q.W + V0 + x] : 0.0f;
      }
#pragma unroll
      for (int k = 0; k < kStageBatch; ++k) {
        const int y = y0 + k * warps;
        if (y >= q.s_rows) break;
        sm[smem::zncc_s_slot(q, y, x)] = v[k];
        st[2] += v[k];
        st[3] += static_cast<double>(v[k]) * v[k];
      }
    }
  }
  block_sum(st, sm, q);
  const double n = static_cast<double>(q.h) * q.w, n_in = static_cast<double>(rows_in) * cols_in;
  const double t_mean = st[0] / n, s_mean = st[2] / n_in;
  double search_variance = fmax(0.0, st[3] - st[2] * st[2] / n_in) / n_in;
  if (a.right_stats != nullptr) {  // several tiles: the whole search matrix's
    const double area = static_cast<double>(q.H) * q.W;
    const double sum = a.right_stats[2 * lr.y], sq = a.right_stats[2 * lr.y + 1];
    search_variance = fmax(0.0, sq - sum * sum / area) / area;
  }

  // 2. Zero mean in place; delta = sum(T') and sum(T'^2) of the rounded template.
  double mo[2] = {0, 0};
  for (int j = warp; j < q.w; j += warps) {
#pragma unroll 1
    for (int i = lane; i < q.h; i += 32) {
      const int slot = smem::zncc_t_slot(q, i, j);
      const float v = static_cast<float>(sm[slot] - t_mean);
      sm[slot] = v;
      mo[0] += v;
      mo[1] += static_cast<double>(v) * v;
    }
  }
  for (int x = lane; x < cols_in; x += 32) {
#pragma unroll 4
    for (int y = warp; y < rows_in; y += warps) {
      const int slot = smem::zncc_s_slot(q, y, x);
      sm[slot] = static_cast<float>(sm[slot] - s_mean);
    }
  }
  block_sum(mo, sm, q);  // its barriers also publish the shifted arrays
  const double delta = mo[0], t_ss = fmax(0.0, mo[1] - delta * delta / n);
  const bool t_flat = t_ss <= kFlatRelative * st[1];

  // 3. Horizontal window sums relative to each run's first value r = row[c]: hs[y][c] =
  //    (sum(v - r), sum((v - r)^2)) over columns [c, c + w), one thread per row, sliding in
  //    float64, stored as float2 (a constant run stores exactly (0, 0)).
  for (int y = tid; y < q.hs_rows(); y += blockDim.x) {
    const float* row = sm + smem::zncc_s_slot(q, y, 0);  // column x at row[x * sp]
    float2* hs = reinterpret_cast<float2*>(sm + smem::zncc_h_slot(q, y, 0));  // c: hs[c * hp]
    double r = row[0], s = r, s2 = r * r;  // r: the first value of run c (loaded once)
    for (int j = 1; j < q.w; ++j) {
      const double v = row[j * q.sp];
      s += v;
      s2 += v * v;
    }
    for (int c = 0; c < q.TC; ++c) {
      if (c > 0) {
        const double add = row[(c + q.w - 1) * q.sp], sub = r;
        r = row[c * q.sp];
        s += add - sub;
        s2 += add * add - sub * sub;
      }
      hs[c * q.hp] = make_float2(static_cast<float>(s - q.w * r),
                                 static_cast<float>(s2 - r * (2 * s - q.w * r)));
    }
  }
  __syncthreads();

  // 4. Numerators of the thread's RY rows (tile rows g RY + a) of column c.
  const bool active = tid < q.tile_threads();
  const int g = active ? smem::zncc_group(q, tid) : 0, c = active ? smem::zncc_col(q, tid) : 0;
  float acc[RY];
#pragma unroll
  for (int k = 0; k < RY; ++k) acc[k] = 0.0f;
  if (active) {
    for (int j = 0; j < q.w; ++j) {
      const float* tc = sm + smem::zncc_t_slot(q, 0, j);
      const float* sc = sm + smem::zncc_s_slot(q, g * RY, c + j);  // consecutive rows
      float win[RY];
#pragma unroll
      for (int k = 0; k < RY - 1; ++k) win[k] = sc[k];
      for (int ii = 0, gi = 0; ii < q.n_iter; ii += RY, gi += TG) {
        float tv[TG];
#pragma unroll
        for (int k = 0; k < TG; k += 4) {
          const float4 v = *reinterpret_cast<const float4*>(tc + gi + k);
          tv[k] = v.x, tv[k + 1] = v.y, tv[k + 2] = v.z, tv[k + 3] = v.w;
        }
#pragma unroll
        for (int s = 0; s < RY; ++s) {
          win[(s + RY - 1) % RY] = sc[ii + s + RY - 1];
#pragma unroll
          for (int k = 0; k < RY; ++k) acc[k] = fmaf(tv[s], win[(s + k) % RY], acc[k]);
        }
      }
    }
  }

  // 5. ZNCC of those outputs: window sums slide down the rows (row i of the column: sum
  //    w r + a, sum of squares w r^2 + 2 r a + b, float64).
  const float2* hs = reinterpret_cast<const float2*>(sm + smem::zncc_h_slot(q, g * RY, c));
  const float* hr = sm + smem::zncc_s_slot(q, g * RY, c);  // r of row i: hr[i]
  auto row_sums = [&](int i, double& s, double& s2) {
    const float2 v = hs[i];
    const double r = hr[i], wr = q.w * r;
    s = wr + v.x;
    s2 = wr * r + 2 * r * v.x + v.y;
  };
  double ws = 0, ws2 = 0;
  if (active) {
    for (int i = 0; i < q.h; ++i) {
      double s, s2;
      row_sums(i, s, s2);
      ws += s;
      ws2 += s2;
    }
  }
  unsigned long long best = 0;
#pragma unroll
  for (int k = 0; k < RY; ++k) {
    const int row = g * RY + k;  // in the tile
    if (k > 0 && active) {
      double add, add2, sub, sub2;
      row_sums(k - 1 + q.h, add, add2);
      row_sums(k - 1, sub, sub2);
      ws += add - sub;
      ws2 += add2 - sub2;
    }
    const double window_ss = fmax(0.0, ws2 - ws * ws / n);
    const float z =
        zncc_from_sums(acc[k] - delta * (ws / n), t_ss, t_flat, window_ss, n, search_variance);
    const int r = U0 + row, col = V0 + c;
    const bool valid = active && r < q.out_rows && col < q.out_cols;
    if constexpr (kPeak) {
      if (active) sm[smem::zncc_z_slot(q, row, c)] = z;
      if (valid) {
        const unsigned long long key = peak_key(z, static_cast<unsigned>(r * q.out_cols + col));
        best = key > best ? key : best;
      }
    } else if (valid) {
      a.out[(static_cast<long long>(t) * q.out_rows + r) * q.out_cols + col] = z;
    }
  }
  if constexpr (kPeak) {
    // 6. The block's maximum.
    best = warp_max_key(best);
    __syncthreads();
    if (lane == 0)
      *reinterpret_cast<unsigned long long*>(sm + smem::zncc_r_slot(q, warp, 0)) = best;
    __syncthreads();
    unsigned long long block_best = 0;
    for (int w = 0; w < warps; ++w) {
      const unsigned long long k =
          *reinterpret_cast<const unsigned long long*>(sm + smem::zncc_r_slot(q, w, 0));
      block_best = k > block_best ? k : block_best;
    }
    if (tid != 0) return;
    if (!q.single_tile()) {
      atomicMax(a.keys + t, block_best);
      return;
    }
    // 7. Refinement from the 3x3 neighbourhood (always read, clamped: a fixed access pattern).
    const int index = static_cast<int>(peak_key_index(block_best));
    const int r = index / q.out_cols, col = index % q.out_cols;
    double nb[3][3];
#pragma unroll
    for (int y = 0; y < 3; ++y) {
#pragma unroll
      for (int x = 0; x < 3; ++x) {
        const int rr = min(max(r + y - 1, 0), q.out_rows - 1);
        const int cc = min(max(col + x - 1, 0), q.out_cols - 1);
        nb[y][x] = sm[smem::zncc_z_slot(q, rr, cc)];
      }
    }
    PeakFit fit;
    if (r > 0 && col > 0 && r + 1 < q.out_rows && col + 1 < q.out_cols)
      fit = refine_peak(nb, a.subpixel);
    encode_peak(a.out + static_cast<long long>(t) * kPeakFields, r, col, peak_key_value(block_best),
                fit);
  }
}

// Several tiles, peak output: one warp per result refines the combined maximum from its 3x3
// neighbourhood, recomputed in float64 from the inputs (lanes split the template). Every warp
// takes the same path (positions clamped; results past the end and border peaks discard theirs).
__global__ void __launch_bounds__(128)
    zncc_peak_refine_kernel(DeviceProblem p, const unsigned long long* __restrict__ keys,
                            const double* __restrict__ right_stats, SubpixelMethod subpixel,
                            float* __restrict__ out) {
  const int warp_t = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  const int t = min(warp_t, p.out_count - 1);
  const int h = p.left_rows, w = p.left_cols, W = p.right_cols;
  const int out_rows = p.right_rows - h + 1, out_cols = W - w + 1;
  const unsigned long long key = keys[t];
  const int index = static_cast<int>(peak_key_index(key));
  const int r = index / out_cols, col = index % out_cols;
  const int2 lr = p.pair(t);
  const float* L = p.left + static_cast<long long>(lr.x) * h * w;
  const float* R = p.right + static_cast<long long>(lr.y) * p.right_rows * W;
  const double n = static_cast<double>(h) * w;
  double ts = 0, tq = 0;
  for (int k = lane; k < h * w; k += 32) {
    ts += L[k];
    tq += static_cast<double>(L[k]) * L[k];
  }
  ts = warp_sum(ts);
  tq = warp_sum(tq);
  const double t_mean = ts / n, t_ss = fmax(0.0, tq - ts * t_mean);
  const double area = static_cast<double>(p.right_rows) * W;
  const double sum = right_stats[2 * lr.y], sq = right_stats[2 * lr.y + 1];
  const double search_variance = fmax(0.0, sq - sum * sum / area) / area;
  double nb[3][3];
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 3; ++x) {
      const int k0 = min(max(r + y - 1, 0), out_rows - 1),
                l0 = min(max(col + x - 1, 0), out_cols - 1);
      double s = 0, s2 = 0, ts2 = 0;
      for (int k = lane; k < h * w; k += 32) {
        const double v = R[static_cast<long long>(k0 + k / w) * W + l0 + k % w];
        s += v;
        s2 += v * v;
        ts2 += L[k] * v;
      }
      s = warp_sum(s);
      s2 = warp_sum(s2);
      ts2 = warp_sum(ts2);
      nb[y][x] = zncc_from_sums(ts2 - t_mean * s, t_ss, t_ss <= kFlatRelative * tq,
                                fmax(0.0, s2 - s * s / n), n, search_variance);
    }
  }
  PeakFit fit;
  if (r > 0 && col > 0 && r + 1 < out_rows && col + 1 < out_cols) fit = refine_peak(nb, subpixel);
  if (lane == 0 && warp_t < p.out_count)
    encode_peak(out + static_cast<long long>(t) * kPeakFields, r, col, peak_key_value(key), fit);
}

using KernelFn = void (*)(ZnccArgs);

// The kernels, one per rows-per-thread choice: instantiated from profiling::kZnccRowChoices,
// the list the plan chooses from and the variant's parameter offers.
constexpr std::size_t kRowChoices = std::size(profiling::kZnccRowChoices);

template <int kRy, bool kPeak>
constexpr KernelFn kernel_of() {
  return &zncc_tiled_kernel<kRy, kPeak>;
}

template <bool kPeak, std::size_t... I>
constexpr std::array<KernelFn, kRowChoices> instantiate(std::index_sequence<I...>) {
  return {kernel_of<profiling::kZnccRowChoices[I], kPeak>()...};
}

// The kernel for `ry` rows per thread; nullptr for a value the list does not hold.
KernelFn kernel_for(int ry, bool peak) {
  static constexpr auto kSurface = instantiate<false>(std::make_index_sequence<kRowChoices>{});
  static constexpr auto kPeakKernels = instantiate<true>(std::make_index_sequence<kRowChoices>{});
  for (std::size_t i = 0; i < kRowChoices; ++i)
    if (profiling::kZnccRowChoices[i] == ry) return peak ? kPeakKernels[i] : kSurface[i];
  return nullptr;
}

// rows_per_thread's values: 0 (the plan chooses), then every instantiated choice.
std::vector<int> rows_per_thread_values() {
  std::vector<int> v{0};
  v.insert(v.end(), std::begin(profiling::kZnccRowChoices), std::end(profiling::kZnccRowChoices));
  return v;
}

// Once per device: allow up to the device's opt-in limit (a host call here would sit in every
// run).
Status opt_in_all() {
  static OncePerDevice once;
  const cudaError_t e = once([] {
    for (int ry : profiling::kZnccRowChoices) {
      for (bool peak : {false, true}) {
        const cudaError_t r =
            cudaFuncSetAttribute(kernel_for(ry, peak), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(max_shared_bytes_per_block()));
        if (r != cudaSuccess) return r;
      }
    }
    return cudaSuccess;
  });
  return cuda_status(e, "cudaFuncSetAttribute(zncc_tiled_kernel)");
}

class ZnccTiledCorrelator final : public ParameterisedGpuCorrelator<ZnccTiledCorrelator> {
 public:
  explicit ZnccTiledCorrelator(const ParamValues& values = {})
      : ParameterisedGpuCorrelator(values) {}

  static const VariantInfo& variant_info() {
    static const VariantInfo info{
        "gpu_zncc_tiled",
        "zncc_tiled",
        "gpu",
        "valid-mode ZNCC in one block per output tile (zero-mean staging, register-tiled "
        "numerators, window sums in shared memory); peak output fused: no surface in memory",
        kAllForms,
        {Mode::valid},
        {Normalization::zncc},
        true,
        {{"rows_per_thread",
          rows_per_thread_values(),
          0,
          {},
          "output rows per thread (register window); 0 = the least padded multiply-adds, "
          "weighted by the latency the resident warps leave unhidden"}},
        {Output::surface, Output::peak}};
    return info;
  }

  Status can_implement(const CorrelationProblem& p) const override {
    XCORR_RETURN_IF_ERROR(Correlator::can_implement(p));
    return plan(static_cast<int>(p.left.rows), static_cast<int>(p.left.cols),
                static_cast<int>(p.right.rows), static_cast<int>(p.right.cols))
        .status();
  }

  double kernel_seconds(const CorrelationProblem& p) const override {
    auto q = plan(static_cast<int>(p.left.rows), static_cast<int>(p.left.cols),
                  static_cast<int>(p.right.rows), static_cast<int>(p.right.cols));
    if (!q.is_ok()) return 1e9;
    const ZnccTilePlan& z = q.value();
    // Prior, fitted to the H200 (run 12 of docs/perf/zncc-gpu.md): profiling::zncc_cost at ~11 T
    // multiply-add equivalents per second, the staging at ~3 TB/s, ~8 us of launch; several
    // tiles add the statistics pass.
    const double blocks = static_cast<double>(p.output_count()) * z.tiles_y * z.tiles_x;
    const double staged = blocks * 4.0 * (z.s_rows * z.s_cols + z.h * z.w);
    const double stats =
        z.single_tile()
            ? 0.0
            : 5e-6 + 4.0 * static_cast<double>(p.right.count * p.right.rows * p.right.cols) /
                         memory_rate(3e12);
    const DeviceInfo& d = current_device();
    return 8e-6 +
           profiling::zncc_cost(z, blocks, d.multiprocessors, d.sm_limits()) / compute_rate(11e12) +
           staged / memory_rate(3e12) + stats + transfer_seconds(p);
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    auto q = plan(p.left_rows, p.left_cols, p.right_rows, p.right_cols);
    if (!q.is_ok()) return {};
    const ZnccTilePlan z = q.value();
    const bool peak = p.request.output == Output::peak;
    std::vector<Launch> l;
    if (!z.single_tile()) l.push_back({"zncc_stats_kernel", matrix_sums_kernel(), 256, 0});
    const long long results = p.out_count;
    l.push_back({peak ? "zncc_tiled_kernel<peak>" : "zncc_tiled_kernel<surface>",
                 reinterpret_cast<const void*>(kernel_for(z.RY, peak)), z.threads,
                 4 * z.smem_floats,
                 [z, peak, results] { return profiling::model_zncc_tiled(z, peak, results); }});
    if (peak && !z.single_tile()) {
      l.push_back({"zncc_peak_refine_kernel",
                   reinterpret_cast<const void*>(&zncc_peak_refine_kernel), 128, 0});
    }
    return l;
  }

  double kernel_workspace_bytes(const DeviceProblem& p) const override {
    return 16.0 * p.n_right + 8.0 * p.out_count;
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    auto q = plan(p.left_rows, p.left_cols, p.right_rows, p.right_cols);
    if (!q.is_ok()) return q.status();
    XCORR_RETURN_IF_ERROR(opt_in_all());
    const ZnccTilePlan& z = q.value();
    const bool peak = p.request.output == Output::peak;
    const std::lock_guard lock(mutex_);  // the statistics and key buffers
    ZnccArgs args{p, z, nullptr, nullptr, out, p.request.subpixel};
    if (!z.single_tile()) {
      XCORR_RETURN_IF_ERROR(compute_matrix_sums(
          p.right, p.n_right, static_cast<long long>(p.right_rows) * p.right_cols, stats_, stream));
      args.right_stats = stats_.get();
      if (peak) {
        XCORR_RETURN_IF_ERROR(keys_.allocate(static_cast<std::size_t>(p.out_count)));
        XCORR_CUDA_TRY(
            cudaMemsetAsync(keys_.get(), 0, sizeof(unsigned long long) * p.out_count, stream));
        args.keys = keys_.get();
      }
    }
    const long long blocks = static_cast<long long>(p.out_count) * z.tiles_y * z.tiles_x;
    const KernelFn kernel = kernel_for(z.RY, peak);
    XCORR_CHECK(kernel != nullptr, "the plan's rows per thread is one of kZnccRowChoices");
    kernel<<<static_cast<unsigned>(blocks), z.threads, 4 * z.smem_floats, stream>>>(args);
    XCORR_LAUNCH_TRY("zncc_tiled_kernel");
    if (peak && !z.single_tile()) {
      zncc_peak_refine_kernel<<<(p.out_count + 3) / 4, 128, 0, stream>>>(
          p, keys_.get(), stats_.get(), p.request.subpixel, out);
      XCORR_LAUNCH_TRY("zncc_peak_refine_kernel");
    }
    return Status::ok();
  }

 protected:
  bool normalizes_itself() const override { return true; }
  bool finds_peaks_itself() const override { return true; }

 private:
  // The plan of a size, made once (its pitch searches price every warp's accesses: too slow to
  // repeat in every run, and the choice, the estimate, the run and the profile all ask for it).
  Result<ZnccTilePlan> plan(int h, int w, int H, int W) const {
    const std::lock_guard lock(plans_mutex_);
    const long long limit = max_shared_bytes_per_block();
    const auto key = std::make_tuple(h, w, H, W, limit);
    auto it = plans_.find(key);
    if (it == plans_.end()) {
      it = plans_
               .emplace(key, profiling::plan_zncc_tiles(h, w, H, W, param("rows_per_thread"), limit,
                                                        current_device().sm_limits()))
               .first;
    }
    return it->second;
  }

  mutable std::mutex plans_mutex_;
  mutable std::map<std::tuple<int, int, int, int, long long>, Result<ZnccTilePlan>> plans_;
  mutable std::mutex mutex_;
  mutable DeviceBuffer<double> stats_;
  mutable DeviceBuffer<unsigned long long> keys_;
};

}  // namespace

std::unique_ptr<Correlator> make_zncc_tiled_correlator() {
  return std::make_unique<ZnccTiledCorrelator>();
}

}  // namespace xcorr::gpu
