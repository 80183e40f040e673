// gpu_warp_per_shift and gpu_warp_per_shift_shared: one warp per output element (the thesis'
// "warp per shift", plain and with shared memory; Maděra 2022, github MK4H/cross-corr).
// Overview: the 32 lanes walk the overlap of the two matrices at that shift as one row-major
// sequence, 32 elements per step (as the thesis does; a lane grid of the template's width left
// lanes idle on the narrow overlaps of full mode: 2.2x the thesis' time at 32x32), and reduce
// with warp shuffles. Every output is independent, so even one 16x16 pair spreads over
// ~1000 warps on all SMs. The plain kernel reads both inputs through the read-only cache; the
// shared one gives each block the outputs of one left with `right_matrices` rights (one_to_many,
// n_to_m) and `column_group` output columns, stages those (only the right columns the group
// reads) in shared memory first, and so trades L2 latency for one staging pass.
// When it wins: tiny problems (one_to_one up to ~32x32), where the other kernels leave most SMs
// idle. Constraints: shared: a block's staging within 200 KiB (column_group 0 falls back to 64,
// 32, 16 or 8 columns when the whole width does not fit). ZNCC through the shared epilogue.
// Instantiations: 4 (full, valid) x (plain, shared).
#include <algorithm>
#include <memory>
#include <string>

#include "core/smem/warp_per_shift_layout.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_model.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/once_per_device.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kWarpsPerBlock = smem::kWpsWarpsPerBlock;              // plain kernel
constexpr int kSharedWarpsPerBlock = smem::kWpsSharedWarpsPerBlock;  // shared kernel

template <Mode M>
__device__ inline smem::Overlap overlap_at(int r, int c, int h, int w) {
  return smem::overlap_at(M == Mode::full, r, c, h, w);
}

// The warp's sum over the overlap; every lane returns it. L has row pitch w; R row pitch W and
// holds right columns from col0 on (a staged column range). The lanes walk the overlap as one
// sequence (smem::OverlapWalk).
__device__ inline float warp_dot(const float* L, int w, const float* R, int W, int col0,
                                 const smem::Overlap& o, int lane) {
  const int ow = o.j1 - o.j0, n = ow * (o.i1 - o.i0);
  float sum = 0;
  if (ow > 0) {
    smem::OverlapWalk at = smem::overlap_walk(lane, ow);
    const float* l0 = L + o.i0 * w + o.j0;
    const float* r0 = R + (o.i0 - o.dy) * W + o.j0 - o.dx - col0;
    // n / 32 steps with every lane busy, then one step for the n % 32 left: warp-uniform trip
    // counts, so the unrolled loop neither diverges (one shared-load instruction per step and
    // matrix, as the bank-conflict model counts) nor tests a lane mask every step (H200 run 60:
    // masking every step cost 1.1-1.3x).
    const int steps = n / 32;
#pragma unroll 4
    for (int k = 0; k < steps; ++k) {
      sum = fmaf(l0[at.row * w + at.col], r0[at.row * W + at.col], sum);
      at.next();
    }
    if (lane < n % 32) sum = fmaf(l0[at.row * w + at.col], r0[at.row * W + at.col], sum);
  }
  for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  return sum;
}

template <Mode M>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    warp_per_shift_kernel(DeviceProblem p, float* __restrict__ out) {
  const int lane = threadIdx.x % 32;
  const long long total = static_cast<long long>(p.out_count) * p.out_rows * p.out_cols;
  const long long warp0 = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  const int h = p.left_rows, w = p.left_cols, W = p.right_cols;
  for (long long idx = warp0; idx < total; idx += warps) {
    const auto [r, c, lr, L, R] = p.site(idx);
    const float sum = warp_dot(L, w, R, W, 0, overlap_at<M>(r, c, h, w), lane);
    if (lane == 0) out[idx] = sum;
  }
}

// Launch layout of the shared kernel: pair groups (one left with up to `rights` rights) x column
// groups (output columns [k * group_cols, (k + 1) * group_cols)).
struct SharedLayout {
  int rights = 1;        // right matrices staged per block (one_to_many, n_to_m); else 1
  int right_groups = 1;  // per left
  int pair_groups = 1;
  int group_cols = 1, col_groups = 1;
  int staged_cols = 1;  // the most right columns a column group needs (shared-memory pitch)
};

// Blocks (x, (pair group, column group)): stage the left and the group's rights (only the right
// columns the column group reads), then the warps take the group's outputs.
template <Mode M>
__global__ void __launch_bounds__(32 * kSharedWarpsPerBlock)
    warp_per_shift_shared_kernel(DeviceProblem p, SharedLayout g, float* __restrict__ out) {
  extern __shared__ float smem[];
  const int h = p.left_rows, w = p.left_cols, H = p.right_rows, W = p.right_cols;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int by = blockIdx.y; by < g.pair_groups * g.col_groups; by += gridDim.y) {
    const int pg = by / g.col_groups, cg = by % g.col_groups;
    const int c0 = cg * g.group_cols, c1 = min(p.out_cols, c0 + g.group_cols);
    const smem::ColumnRange cols = smem::right_columns(M == Mode::full, c0, c1, w, W);
    const int xw = cols.last - cols.first;
    // Pair group -> left, first right, rights in the group, output index of its first pair.
    int left = 0, right0 = pg, count = 1;
    if (p.request.form == Form::one_to_many || p.request.form == Form::n_to_m) {
      left = pg / g.right_groups;
      right0 = (pg % g.right_groups) * g.rights;
      count = min(g.rights, p.n_right - right0);
    } else {
      left = p.pair(pg).x;
    }
    const float* L = p.left + static_cast<long long>(left) * h * w;
    __syncthreads();  // the previous group's staging is consumed
    for (int k = threadIdx.x; k < h * w; k += blockDim.x) smem[smem::wps_left_slot(k)] = L[k];
    for (int b = 0; b < count; ++b) {
      const float* R = p.right + static_cast<long long>(right0 + b) * H * W;
      for (int k = threadIdx.x; k < H * xw; k += blockDim.x)
        smem[smem::wps_right_slot(h, w, H, xw, b, k)] = R[(k / xw) * W + cols.first + k % xw];
    }
    __syncthreads();
    const int gc = c1 - c0, per_right = p.out_rows * gc;
    for (int o = blockIdx.x * kSharedWarpsPerBlock + warp; o < count * per_right;
         o += gridDim.x * kSharedWarpsPerBlock) {
      const int b = o / per_right, r = (o % per_right) / gc, c = c0 + o % gc;
      const float sum =
          warp_dot(smem + smem::wps_left_slot(0), w, smem + smem::wps_right_slot(h, w, H, xw, b, 0),
                   xw, cols.first, overlap_at<M>(r, c, h, w), lane);
      int t = pg;  // n_to_mn, one_to_one
      if (p.request.form == Form::one_to_many) t = right0 + b;
      if (p.request.form == Form::n_to_m) t = left * p.n_right + right0 + b;
      if (lane == 0) out[(static_cast<long long>(t) * p.out_rows + r) * p.out_cols + c] = sum;
    }
  }
}

// Model prior of both one-warp-per-output variants, fitted to gpu_warp_per_shift's kernel_ms on
// the 18 anchor cases of run 68 (H200, docs/perf/gpu-engine.md; least squares on relative error,
// every case within 6 %): ~8.4 us, ~0.32 ns per output and ~1.0 x 10^12 multiply-adds per second
// (one_to_one 16 / 32 / 64: 8.9 / 10.5 / 31 us; one_to_many 64 x64: 1.38 ms). Runs 49-50's fit
// (8 us, 1.4 ns, 0.5 x 10^12) predated the kernel's overlap walk and put one_to_one 32 at
// 16 us, so the untuned auto took gpu_small_direct there at 1.20x (run 68).
double warp_per_output_seconds(const CorrelationProblem& p) {
  const double outputs = static_cast<double>(p.surface_shape().area() * p.output_count());
  return 8.4e-6 + outputs * 0.32e-9 + p.direct_multiply_adds() / compute_rate(1.0e12) +
         transfer_seconds(p);
}

class WarpPerShiftCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }

  double kernel_seconds(const CorrelationProblem& p) const override {
    return warp_per_output_seconds(p);
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    return {{"warp_per_shift_kernel",
             p.request.mode == Mode::full
                 ? reinterpret_cast<const void*>(&warp_per_shift_kernel<Mode::full>)
                 : reinterpret_cast<const void*>(&warp_per_shift_kernel<Mode::valid>),
             32 * kWarpsPerBlock, 0}};
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const long long warps = p.out_elements();
    const int blocks = static_cast<int>(
        std::min<long long>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock, 16LL * sm_count()));
    if (p.request.mode == Mode::full) {
      warp_per_shift_kernel<Mode::full><<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(p, out);
    } else {
      warp_per_shift_kernel<Mode::valid><<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(p, out);
    }
    XCORR_LAUNCH_TRY("warp_per_shift_kernel");
    return Status::ok();
  }

 private:
  VariantInfo info_{
      "gpu_warp_per_shift",
      "warp_per_shift",
      "gpu",
      "one warp per output element, lanes split the overlap, shuffle reduction; tiny sizes",
      kAllForms,
      kBothModes,
      {Normalization::none, Normalization::zncc}};
};

class WarpPerShiftSharedCorrelator final
    : public ParameterisedGpuCorrelator<WarpPerShiftSharedCorrelator> {
 public:
  explicit WarpPerShiftSharedCorrelator(const ParamValues& values = {})
      : ParameterisedGpuCorrelator(values) {}

  static const VariantInfo& variant_info() {
    static const VariantInfo info{
        "gpu_warp_per_shift_shared",
        "warp_per_shift",
        "gpu",
        "one warp per output; a block stages one left, its rights and their column range; tiny "
        "sizes",
        kAllForms,
        kBothModes,
        {Normalization::none, Normalization::zncc},
        true,
        {{"right_matrices",
          {1, 2, 4},
          1,
          {},
          "right matrices staged per block with their left (one_to_many, n_to_m)"},
         {"column_group",
          {0, 32, 64},
          0,
          {},
          "output columns per block, 0 = all (or the widest of 64..8 that fits); only the right "
          "columns they read are staged"}}};
    return info;
  }

  Status can_implement(const CorrelationProblem& p) const override {
    XCORR_RETURN_IF_ERROR(Correlator::can_implement(p));
    // The kernels run on surfaces (the base finds peaks after them): size the surface's layout.
    const DeviceProblem d = surface_problem(make_device_problem(p, nullptr, nullptr));
    const SharedLayout g = layout(d.request, d);
    const long long bytes = shared_bytes(d, g);
    return check_shared_bytes(info().name, bytes);
  }

  double kernel_seconds(const CorrelationProblem& p) const override {
    return warp_per_output_seconds(p);
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    return {{"warp_per_shift_shared_kernel",
             p.request.mode == Mode::full
                 ? reinterpret_cast<const void*>(&warp_per_shift_shared_kernel<Mode::full>)
                 : reinterpret_cast<const void*>(&warp_per_shift_shared_kernel<Mode::valid>),
             32 * kSharedWarpsPerBlock, static_cast<int>(shared_bytes(p, layout(p.request, p))),
             [l = smem_launch(p)] { return profiling::model_warp_per_shift_shared(l); }}};
  }

  // The launch as the bank-conflict model sees it (the same layout and grid as run_device).
  profiling::WarpPerShiftSharedLaunch smem_launch(const DeviceProblem& p) const {
    const SharedLayout g = layout(p.request, p);
    profiling::WarpPerShiftSharedLaunch l;
    l.full = p.request.mode == Mode::full;
    l.h = p.left_rows, l.w = p.left_cols, l.H = p.right_rows, l.W = p.right_cols;
    l.out_rows = p.out_rows, l.out_cols = p.out_cols;
    l.group_cols = g.group_cols, l.col_groups = g.col_groups;
    l.blocks_per_group = grid_x(p, g);
    const bool one_left = p.request.form == Form::one_to_many || p.request.form == Form::n_to_m;
    const long long lefts = p.request.form == Form::n_to_m ? p.n_left : 1;
    if (!one_left) {
      l.rights_per_group = {{1, g.pair_groups}};
    } else {
      const int last =
          p.n_right - (g.right_groups - 1) * g.rights;  // rights of a left's last group
      if (last == g.rights) {
        l.rights_per_group = {{g.rights, g.right_groups * lefts}};
      } else {
        l.rights_per_group = {{g.rights, (g.right_groups - 1) * lefts}, {last, lefts}};
      }
    }
    return l;
  }
  static int grid_x(const DeviceProblem& p, const SharedLayout& g) {
    const int groups = std::min(g.pair_groups * g.col_groups, 65535);
    return smem::wps_blocks_per_group(groups, g.rights * p.out_rows * g.group_cols, sm_count());
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const SharedLayout g = layout(p.request, p);
    const auto bytes = static_cast<int>(shared_bytes(p, g));
    static OncePerDevice once;
    XCORR_CUDA_TRY(once([] {
      const auto limit = static_cast<int>(max_shared_bytes_per_block());
      const cudaError_t e =
          cudaFuncSetAttribute(warp_per_shift_shared_kernel<Mode::full>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
      return e != cudaSuccess
                 ? e
                 : cudaFuncSetAttribute(warp_per_shift_shared_kernel<Mode::valid>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
    }));
    // Enough blocks per group to fill the GPU (4 blocks per SM), at most one per 32 outputs.
    const dim3 grid(grid_x(p, g), std::min(g.pair_groups * g.col_groups, 65535));
    if (p.request.mode == Mode::full) {
      warp_per_shift_shared_kernel<Mode::full>
          <<<grid, 32 * kSharedWarpsPerBlock, bytes, stream>>>(p, g, out);
    } else {
      warp_per_shift_shared_kernel<Mode::valid>
          <<<grid, 32 * kSharedWarpsPerBlock, bytes, stream>>>(p, g, out);
    }
    XCORR_LAUNCH_TRY("warp_per_shift_shared_kernel");
    return Status::ok();
  }

 private:
  SharedLayout layout(const CorrelationRequest& r, const DeviceProblem& p) const {
    SharedLayout g;
    const bool one_left = r.form == Form::one_to_many || r.form == Form::n_to_m;
    g.rights = one_left ? std::min(param("right_matrices"), p.n_right) : 1;
    g.right_groups = one_left ? (p.n_right + g.rights - 1) / g.rights : 1;
    g.pair_groups =
        one_left ? g.right_groups * (r.form == Form::n_to_m ? p.n_left : 1) : p.out_count;
    const int cols = param("column_group");
    // 0: all columns, or the widest of 64, 32, 16, 8 whose staging fits.
    for (int group : {cols == 0 ? p.out_cols : cols, 64, 32, 16, 8}) {
      g.group_cols = std::min(group, p.out_cols);
      g.col_groups = (p.out_cols + g.group_cols - 1) / g.group_cols;
      g.staged_cols = 1;
      for (int k = 0; k < g.col_groups; ++k) {
        const smem::ColumnRange c = smem::right_columns(
            r.mode == Mode::full, k * g.group_cols, std::min(p.out_cols, (k + 1) * g.group_cols),
            p.left_cols, p.right_cols);
        g.staged_cols = std::max(g.staged_cols, c.last - c.first);
      }
      if (cols != 0 || shared_bytes(p, g) <= max_shared_bytes_per_block()) break;
    }
    return g;
  }
  static long long shared_bytes(const DeviceProblem& p, const SharedLayout& g) {
    return 4LL * (static_cast<long long>(p.left_rows) * p.left_cols +
                  static_cast<long long>(g.rights) * p.right_rows * g.staged_cols);
  }
};

}  // namespace

std::unique_ptr<Correlator> make_warp_per_shift_shared_correlator() {
  return std::make_unique<WarpPerShiftSharedCorrelator>();
}

std::unique_ptr<Correlator> make_warp_per_shift_correlator() {
  return std::make_unique<WarpPerShiftCorrelator>();
}

}  // namespace xcorr::gpu
