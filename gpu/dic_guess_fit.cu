// The sub-pixel start of IC-GN on the GPU: see gpu/dic_guess_fit.cuh.
#include "core/dic/guess_fit.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/dic_guess_fit.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kThreads = 256;  // 8 points per block

__device__ inline double lane_total(float v) {
  double t = v;
  for (int o = 16; o > 0; o /= 2) t += __shfl_xor_sync(0xffffffffu, t, o);
  return t;
}

__global__ void __launch_bounds__(kThreads) guess_fit_kernel(GuessFitArgs a) {
  const int k = static_cast<int>((blockIdx.x * static_cast<unsigned>(kThreads) + threadIdx.x) / 32);
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (k >= a.count) return;  // whole warps
  const dic::GuessWindow p = a.guesses[k];
  const int slot = a.dest[k];
  const int2 g = a.peak[slot];
  const int S = a.subset, h = S / 2;
  double2 out = make_double2(g.x, g.y);
  if (dic::fit_possible(p, g.x, g.y, S, a.window)) {
    const long long cols = a.cols;
    const float* t0 = a.ref + (p.y - h) * cols + (p.x - h);
    // The frame's (S + 2)^2 region: neighbour (dy, dx) in 0..2 starts at its row dy, column dx.
    const float* f0 = a.def + (p.y + g.y - h - 1) * cols + (p.x + g.x - h - 1);
    const float t_off = a.ref[p.y * cols + p.x];
    const float d_off = a.def[(p.y + g.y) * cols + p.x + g.x];
    // Per lane and frame column c + dx: the products under each neighbour row dy (3 FMAs a
    // row); the sums and sums of squares of rows 2..S-1, shared by all three dy, plus the two
    // rows at each end (rows 0, 1, S, S + 1 of the region).
    float st = 0, stt = 0, sw[9], sww[9], stw[9];
#pragma unroll
    for (int i = 0; i < 9; ++i) sw[i] = sww[i] = stw[i] = 0;
    for (int c = lane; c < S; c += 32) {
      float t1 = 0, t2 = 0;  // the template's rows r - 1 and r - 2 of this column
      float mid[3] = {0, 0, 0}, mid2[3] = {0, 0, 0}, end[3][4];
      for (int r = 0; r < S + 2; ++r) {
        const float t = r < S ? t0[r * cols + c] - t_off : 0.0f;
        st += t;
        stt = fmaf(t, t, stt);
        const float tr[3] = {t, t1, t2};  // the template row under neighbour row dy: r - dy
        const int e = r < 2 ? r : (r >= S ? r - S + 2 : -1);  // end row 0..3, or -1: a middle one
#pragma unroll
        for (int dx = 0; dx < 3; ++dx) {
          const float w = f0[r * cols + c + dx] - d_off;
          if (e < 0) {
            mid[dx] += w;
            mid2[dx] = fmaf(w, w, mid2[dx]);
          } else {
#pragma unroll
            for (int q = 0; q < 4; ++q)
              if (q == e) end[dx][q] = w;
          }
#pragma unroll
          for (int dy = 0; dy < 3; ++dy)
            if (r - dy >= 0 && r - dy < S) stw[dy * 3 + dx] = fmaf(tr[dy], w, stw[dy * 3 + dx]);
        }
        t2 = t1, t1 = t;
      }
#pragma unroll
      for (int dx = 0; dx < 3; ++dx) {
        const float* v = end[dx];  // rows 0, 1, S, S + 1
        sw[dx] += (v[0] + v[1]) + mid[dx];
        sw[3 + dx] += (v[1] + mid[dx]) + v[2];
        sw[6 + dx] += mid[dx] + (v[2] + v[3]);
        sww[dx] += fmaf(v[0], v[0], v[1] * v[1]) + mid2[dx];
        sww[3 + dx] += fmaf(v[1], v[1], mid2[dx]) + v[2] * v[2];
        sww[6 + dx] += mid2[dx] + fmaf(v[2], v[2], v[3] * v[3]);
      }
    }
    const double n = static_cast<double>(S) * S;
    const double tst = lane_total(st), tstt = lane_total(stt);
    double z[3][3];
#pragma unroll
    for (int i = 0; i < 9; ++i) {
      const double a_sw = lane_total(sw[i]), a_sww = lane_total(sww[i]), a_stw = lane_total(stw[i]);
      z[i / 3][i % 3] = dic::neighbour_zncc(n, tst, tstt, a_sw, a_sww, a_stw);
    }
    const PeakFit fit = refine_peak(z, dic::kGuessFit);
    out.x += fit.col_offset;
    out.y += fit.row_offset;
  }
  if (lane == 0) a.start[slot] = out;
}

}  // namespace

Status fit_guesses(const GuessFitArgs& args, cudaStream_t stream) {
  if (args.count == 0) return Status::ok();
  const int blocks =
      static_cast<int>((static_cast<long long>(args.count) * 32 + kThreads - 1) / kThreads);
  guess_fit_kernel<<<blocks, kThreads, 0, stream>>>(args);
  XCORR_LAUNCH_TRY("guess_fit_kernel");
  return Status::ok();
}

}  // namespace xcorr::gpu
