// gpu_tiled_RYxRX: register-tiled direct correlation with shared-memory staging.
// Overview: full mode is computed as a valid correlation of the left matrix over the right one
// zero-padded by (h-1, w-1): V[u][v] = sum_ij L[i][j] S[i+u][j+v], out[2h-2-u][2w-2-v] = V[u][v];
// valid mode is V itself. A block of 4 warps stages the template and the part of S it needs in
// shared memory (zeros outside the matrix). Each warp owns RY consecutive output rows and
// 32*RX columns (lane + 32 b, so shared-memory reads of a warp are consecutive: no bank
// conflicts); it walks the template rows with an RY-row register window that is rotated at
// compile time (no register moves): per step RX loads of S, a quarter of a 16-byte broadcast
// load of T (the staged template is column-major) and RY*RX FMAs (8x1: 8 FMAs per 1.25
// shared-memory wavefronts, above the 4:1 FMA-bound line; 4x1: 4 per 1.25).
// Row ranges are trimmed per warp to the rows that overlap (full mode), columns per block.
// When it wins: small and medium sizes (up to ~64x64), where FFT launch overhead dominates.
// Constraints: normalisation none; the staged template and window must fit in shared memory
// (checked in can_implement). Instantiations: 2 (RY x RX = 4x1, 8x1; RY a multiple of 4).
#include <algorithm>
#include <memory>
#include <string>

#include "core/smem/tiled_layout.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_model.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/once_per_device.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kWarps = smem::kTiledWarps;
constexpr int kThreads = 32 * kWarps;

__host__ __device__ inline smem::TiledGeometry tile_geometry(const DeviceProblem& p) {
  return {p.request.mode == Mode::full,
          p.left_rows,
          p.left_cols,
          p.right_rows,
          p.right_cols,
          p.out_rows,
          p.out_cols};
}

// Shared-memory index math: core/smem/tiled_layout.hpp (shared with the bank-conflict model).
template <int RY, int RX>
__global__ void __launch_bounds__(kThreads) tiled_kernel(DeviceProblem p, float* __restrict__ out) {
  extern __shared__ float smem[];
  const smem::TiledGeometry g = tile_geometry(p);
  const smem::TiledBlock blk = smem::tiled_block(g, RY, RX, blockIdx.x, blockIdx.y);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // S(y, x) = R[y - oy][x - ox], zero outside.
  const int oy = g.full ? g.h - 1 : 0, ox = g.full ? g.w - 1 : 0;
  const smem::TiledWarp tw = smem::tiled_warp(g, blk, RY, warp);
  const long long out_size = static_cast<long long>(g.out_rows) * g.out_cols;

  for (int t = blockIdx.z; t < p.out_count; t += gridDim.z) {
    const int2 lr = p.pair(t);
    const float* __restrict__ L = p.left + static_cast<long long>(lr.x) * g.h * g.w;
    const float* __restrict__ R = p.right + static_cast<long long>(lr.y) * g.H * g.W;
    __syncthreads();  // the previous pair's reads are done
    // Staging: warps take rows, lanes take columns (no per-element division); zeros for template
    // rows >= h and outside the source.
    for (int ii = warp; ii < blk.nI; ii += kWarps) {
      const int i = blk.i_lo + ii;
      for (int jj = lane; jj < blk.nJ; jj += 32)
        smem[smem::tiled_template_slot(blk, ii, jj)] = i < g.h ? L[i * g.w + blk.j_lo + jj] : 0.0f;
    }
    for (int yy = warp; yy < blk.s_rows; yy += kWarps) {
      const int y = blk.i_lo + blk.U0 + yy - oy;
      const bool row_in = y >= 0 && y < g.H;
      for (int xx = lane; xx < blk.s_cols; xx += 32) {
        const int x = blk.j_lo + blk.V0 + xx - ox;
        smem[smem::tiled_window_slot(blk, yy, xx)] =
            (row_in && x >= 0 && x < g.W) ? R[y * g.W + x] : 0.0f;
      }
    }
    __syncthreads();
    if (tw.u0w >= g.out_rows) continue;

    float acc[RY][RX];
#pragma unroll
    for (int a = 0; a < RY; ++a) {
#pragma unroll
      for (int b = 0; b < RX; ++b) acc[a][b] = 0.0f;
    }
    for (int j = blk.j_lo; j < blk.j_hi; ++j) {
      const float* tcol = smem + smem::tiled_template_read(blk, tw, j, 0);
      const float* scol = smem + smem::tiled_window_read(blk, tw, j, 0, 0, lane);
      const int s_cols = blk.s_cols;
      float win[RY][RX];
#pragma unroll
      for (int a = 0; a < RY - 1; ++a) {
#pragma unroll
        for (int b = 0; b < RX; ++b) win[a][b] = scol[a * s_cols + 32 * b];
      }
      for (int ii = 0; ii < tw.n_iter; ii += RY) {
        float tq[RY];  // T[row][j] for the RY rows of this step, 4 per 16-byte load
#pragma unroll
        for (int q = 0; q < RY; q += 4) {
          const float4 t4 = *reinterpret_cast<const float4*>(tcol + ii + q);
          tq[q] = t4.x;
          tq[q + 1] = t4.y;
          tq[q + 2] = t4.z;
          tq[q + 3] = t4.w;
        }
#pragma unroll
        for (int s = 0; s < RY; ++s) {
          const int row = ii + s;
#pragma unroll
          for (int b = 0; b < RX; ++b)
            win[(s + RY - 1) % RY][b] = scol[(row + RY - 1) * s_cols + 32 * b];
          const float tv = tq[s];
#pragma unroll
          for (int a = 0; a < RY; ++a) {
#pragma unroll
            for (int b = 0; b < RX; ++b) acc[a][b] = fmaf(tv, win[(s + a) % RY][b], acc[a][b]);
          }
        }
      }
    }
    float* o = out + t * out_size;
#pragma unroll
    for (int a = 0; a < RY; ++a) {
#pragma unroll
      for (int b = 0; b < RX; ++b) {
        const int u = tw.u0w + a, v = blk.V0 + lane + 32 * b;
        if (u < g.out_rows && v < g.out_cols) {
          const long long idx =
              g.full ? static_cast<long long>(2 * g.h - 2 - u) * g.out_cols + (2 * g.w - 2 - v)
                     : static_cast<long long>(u) * g.out_cols + v;
          o[idx] = acc[a][b];
        }
      }
    }
  }
}

template <int RY, int RX>
class TiledCorrelator final : public GpuCorrelator {
 public:
  TiledCorrelator()
      : info_{"gpu_tiled_" + std::to_string(RY) + "x" + std::to_string(RX),
              "tiled",
              "gpu",
              "register-tiled direct kernel (" + std::to_string(RY) + "x" + std::to_string(RX) +
                  " outputs per thread), shared-memory staging; small and medium sizes",
              kAllForms,
              kBothModes,
              {Normalization::none, Normalization::zncc}} {}

  const VariantInfo& info() const override { return info_; }

  Status can_implement(const CorrelationProblem& p) const override {
    XCORR_RETURN_IF_ERROR(Correlator::can_implement(p));
    // The kernel runs on surfaces (the base finds peaks after them): size the surface's tiles.
    const DeviceProblem d = surface_problem(make_device_problem(p, nullptr, nullptr));
    const long long bytes = smem::tiled_smem_floats(tile_geometry(d), RY, RX) * 4;
    return check_shared_bytes(info_.name, bytes, " for " + to_string(p.left.shape()));
  }

  double kernel_seconds(const CorrelationProblem& p) const override {
    // Fitted to docs/perf/gpu-engine.md (H200): ~4.5 (4x1) TMAC/s of useful work (8x1: a guess, ~5)
    // once the GPU is full (2 blocks per SM); fewer blocks get that fraction of it.
    constexpr int BY = kWarps * RY, BX = 32 * RX;
    const Shape o = p.surface_shape();
    const double blocks =
        static_cast<double>(((o.rows + BY - 1) / BY) * ((o.cols + BX - 1) / BX) * p.output_count());
    const double rate =
        compute_rate(RY >= 8 ? 5e12 : 4.5e12) * std::min(1.0, blocks / (2.0 * sm_count()));
    return 10e-6 + p.direct_multiply_adds() / rate + transfer_seconds(p);
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    const smem::TiledGeometry g = tile_geometry(p);
    const long long pairs = p.out_count;
    return {{"tiled_kernel", reinterpret_cast<const void*>(&tiled_kernel<RY, RX>), kThreads,
             static_cast<int>(smem::tiled_smem_floats(g, RY, RX) * 4),
             [g, pairs] { return profiling::model_tiled(g, RY, RX, pairs); }}};
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    constexpr int BY = kWarps * RY, BX = 32 * RX;
    const smem::TiledGeometry g = tile_geometry(p);
    const auto bytes = static_cast<int>(smem::tiled_smem_floats(g, RY, RX) * 4);
    // Once per kernel and device: allow up to the device's opt-in limit (a host call here would
    // sit inside every timed run).
    static OncePerDevice once;
    XCORR_CUDA_TRY(once([] {
      return cudaFuncSetAttribute(tiled_kernel<RY, RX>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(max_shared_bytes_per_block()));
    }));
    const dim3 grid((g.out_cols + BX - 1) / BX, (g.out_rows + BY - 1) / BY,
                    std::min(p.out_count, 65535));
    tiled_kernel<RY, RX><<<grid, kThreads, bytes, stream>>>(p, out);
    XCORR_LAUNCH_TRY("tiled_kernel");
    return Status::ok();
  }

 private:
  VariantInfo info_;
};

}  // namespace

std::unique_ptr<Correlator> make_tiled_correlator_4x1() {
  return std::make_unique<TiledCorrelator<4, 1>>();
}
std::unique_ptr<Correlator> make_tiled_correlator_8x1() {
  return std::make_unique<TiledCorrelator<8, 1>>();
}

}  // namespace xcorr::gpu
