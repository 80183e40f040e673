// The thesis' warp-shuffle family (Maděra, "Accelerating cross-correlation with GPUs", 2022;
// github MK4H/cross-corr) as one kernel template with its four
// compile-time knobs, plus the run-time work distribution.
//
// A warp computes 32 consecutive output columns (one per lane) of S consecutive output rows for
// NL left x NR right matrices. It walks the template (left) rows i assigned to it, LR at a time,
// and, as the thesis does, the right columns in 32-wide chunks: each lane loads one column of
// each of the NR x (S + LR - 1) right rows those template rows meet; at each of the chunk's 32
// steps that column is broadcast (__shfl_sync) while each lane's template values slide one lane
// along (two shuffles per template row), and the lane does NL * NR * S * LR FMAs with
// NR * (S + LR - 1) + 2 * NL * LR shuffles (the kernel's loop says why). The thesis' names:
//   simple                         S = LR = NL = NR = 1
//   multimat_right                 NR > 1 (one_to_many, n_to_m: one left against NR rights)
//   multimat_both                  NL, NR > 1 (n_to_m)
//   multirow_right                 S > 1, LR = 1 (one template row against S right rows)
//   multirow_both                  S > 1, LR > 1 (LR template rows against S + LR - 1 right rows)
//   multirow_both + multimat_right / + multimat_both: both at once.
// Work distribution (thesis: none / rectangle / triangle, "rows per worker"): the template rows
// a warp task needs are split into workers of `rows_per_worker` rows that add their partial sums
// with atomicAdd into a zeroed output. rectangle launches the largest worker count for every row
// group (idle workers exit); triangle launches exactly the workers each row group needs (a prefix
// table over row groups; the output rows near the edges of full mode overlap few rows).
// Zero padding: template values beyond the worker's rows or the template's columns and right
// values outside the right matrix read as 0, so every (template row, output row) term is counted
// exactly once and partial tiles need no special cases.
#pragma once

#include <cuda_runtime.h>

#include "gpu/device_problem.cuh"

namespace xcorr::gpu {

enum class Distribution { none = 0, rectangle = 1, triangle = 2 };

// Compile-time knobs: output rows per warp (S), template rows per step (LR), left and right
// matrices per warp (NL, NR).
struct ShuffleShape {
  int shifts = 1, left_rows = 1, left_mats = 1, right_mats = 1;
  bool operator==(const ShuffleShape&) const = default;
};

// Host-computed task layout, passed by value.
struct ShuffleGrid {
  int row_groups = 0;                  // ceil(out_rows / S)
  int chunks = 0;                      // ceil(out_cols / 32)
  int left_groups = 1;                 // n_to_m: ceil(n_left / NL); else 1
  int right_groups = 1;                // ceil(n_right / NR) (n_to_mn: n_left * ceil(m / NR))
  int distribution = 0;                // Distribution
  int rows_per_worker = 0;             // template rows per worker (distribution != none)
  int workers_per_task = 1;            // none: 1; rectangle: the most any row group needs
  const int* worker_prefix = nullptr;  // triangle: row_groups + 1 entries (device)
  long long tasks = 0;
};

// Template rows [first, last) that output rows r0 .. min(r0 + S, out_rows) - 1 overlap.
// Full mode: template row i meets right row i - (r - (h - 1)); valid: every template row.
__host__ __device__ inline int2 shuffle_template_rows(Mode mode, int r0, int S, int out_rows, int h,
                                                      int right_rows) {
  if (mode == Mode::valid) return make_int2(0, h);
  const int r_last = (r0 + S < out_rows ? r0 + S : out_rows) - 1;
  const int lo = r0 - (h - 1), hi = r_last - (h - 1) + right_rows;
  return make_int2(lo > 0 ? lo : 0, hi < h ? hi : h);
}

// (left, right, output) of member (a, b) of pair group (lg, rg); false when past the counts.
__device__ inline bool shuffle_pair(const DeviceProblem& p, int lg, int rg, int a, int b, int NL,
                                    int NR, int& li, int& ri, int& t) {
  switch (p.request.form) {
    case Form::one_to_one:
      li = ri = t = 0;
      return a == 0 && b == 0;
    case Form::one_to_many:
      li = 0;
      ri = rg * NR + b;
      t = ri;
      return a == 0 && ri < p.n_right;
    case Form::n_to_m:
      li = lg * NL + a;
      ri = rg * NR + b;
      t = li * p.n_right + ri;
      return li < p.n_left && ri < p.n_right;
    case Form::n_to_mn: {
      // Right ri pairs with left ri % n_left: group rg takes left rg % n_left with its rights
      // number k = (rg / n_left) * NR + b among the m = n_right / n_left it has.
      li = rg % p.n_left;
      const int k = (rg / p.n_left) * NR + b;
      ri = t = li + k * p.n_left;
      return a == 0 && k < p.n_right / p.n_left;
    }
  }
  return false;
}

template <Mode M, int S, int LR, int NL, int NR>
__global__ void __launch_bounds__(128)
    warp_shuffle_kernel(DeviceProblem p, ShuffleGrid g, float* __restrict__ out) {
  constexpr unsigned kFull = 0xffffffffu;
  constexpr int D = S + LR - 1;  // right rows per step
  const int lane = threadIdx.x % 32;
  const long long warp0 = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  const int h = p.left_rows, w = p.left_cols, H = p.right_rows, W = p.right_cols;
  const bool split = g.distribution != static_cast<int>(Distribution::none);
  for (long long task = warp0; task < g.tasks; task += warps) {
    // Decode (pair group, chunk, row group, worker).
    int group = 0, worker = 0;
    long long rest = 0;
    if (g.distribution == static_cast<int>(Distribution::triangle)) {
      const int total = g.worker_prefix[g.row_groups];
      const int wi = static_cast<int>(task % total);
      rest = task / total;
      int lo = 0, hi = g.row_groups;  // last group with prefix <= wi
      while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (g.worker_prefix[mid] <= wi)
          lo = mid;
        else
          hi = mid;
      }
      group = lo;
      worker = wi - g.worker_prefix[lo];
    } else {
      worker = static_cast<int>(task % g.workers_per_task);
      rest = task / g.workers_per_task;
      group = static_cast<int>(rest % g.row_groups);
      rest /= g.row_groups;
    }
    const int c0 = static_cast<int>(rest % g.chunks) * 32;
    const int pg = static_cast<int>(rest / g.chunks);
    const int lg = pg / g.right_groups, rg = pg % g.right_groups;
    const int r0 = group * S;

    const int2 rows = shuffle_template_rows(M, r0, S, p.out_rows, h, H);
    int i_begin = rows.x, i_end = rows.y;
    if (split) {
      i_begin = rows.x + worker * g.rows_per_worker;
      i_end = min(rows.y, i_begin + g.rows_per_worker);
      if (i_begin >= i_end) continue;  // rectangle: an idle worker
    }

    const float* Lm[NL];
    const float* Rm[NR];
#pragma unroll
    for (int a = 0; a < NL; ++a) {
      int li = 0, ri = 0, t = 0;
      shuffle_pair(p, lg, rg, a, 0, NL, NR, li, ri, t);
      Lm[a] = p.left + static_cast<long long>(li < p.n_left ? li : 0) * h * w;
    }
#pragma unroll
    for (int b = 0; b < NR; ++b) {
      int li = 0, ri = 0, t = 0;
      shuffle_pair(p, lg, rg, 0, b, NL, NR, li, ri, t);
      Rm[b] = p.right + static_cast<long long>(ri < p.n_right ? ri : 0) * H * W;
    }

    // The thesis' loop: step x walks the right columns. Lane q holds R[rho][xc + q] of the
    // current 32-column chunk and broadcasts it at step x = xc + q; lane k multiplies it with
    // template column j = x + e0 + sigma * k, as output column c = c0 + k needs (full:
    // x = j + (w - 1) - c, so sigma = +1, e0 = c0 - (w - 1); valid: x = j + c, so sigma = -1,
    // e0 = -c0). From step x to x + 1 lane k's template column becomes its neighbour's (lane
    // k + sigma), so the template values slide one lane per step: two shuffles per template row
    // (the value, and `nxt`, which rotates the next chunk's values to the edge lane that takes
    // the one entering the window). Per step: NR * D broadcasts and NL * LR * 2 shuffles for
    // NL * NR * S * LR FMAs; the 32 steps are unrolled, so every shuffle source is a constant.
    constexpr int sigma = M == Mode::full ? 1 : -1;
    const int e0 = M == Mode::full ? c0 - (w - 1) : -c0;
    const int from = (lane + sigma) & 31;
    const bool edge = lane == (M == Mode::full ? 0 : 31);
    // Right columns some lane needs: j in [0, w) for some k in [0, 32), clamped to [0, W).
    const int x_lo = max(0, M == Mode::full ? -e0 - 31 : -e0);
    const int x_hi = min(W, M == Mode::full ? w - e0 : w - e0 + 31);

    float acc[NL][NR][S];
#pragma unroll
    for (int a = 0; a < NL; ++a)
#pragma unroll
      for (int b = 0; b < NR; ++b)
#pragma unroll
        for (int s = 0; s < S; ++s) acc[a][b][s] = 0.0f;

    for (int i = i_begin; i < i_end; i += LR) {
      // Right row of step row d: full: row of (template row i + l, output row r0 + s) with
      // d = l - s + S - 1 is i + d - (S - 1) - (r0 - (h - 1)); valid: d = l + s, row i + r0 + d.
      const int rho0 = M == Mode::full ? i - (S - 1) - (r0 - (h - 1)) : i + r0;
      // Template value of row i + l, column j; 0 outside the template or the worker's rows.
      auto tval = [&](int a, int l, int j) {
        return (i + l < i_end && j >= 0 && j < w) ? __ldg(Lm[a] + (i + l) * w + j) : 0.0f;
      };
      float cur[NL][LR], nxt[NL][LR];
#pragma unroll
      for (int a = 0; a < NL; ++a)
#pragma unroll
        for (int l = 0; l < LR; ++l) cur[a][l] = tval(a, l, x_lo + e0 + sigma * lane);
      for (int xc = x_lo; xc < x_hi; xc += 32) {
        // The next chunk's first window (what `cur` holds after this chunk's 32 steps).
#pragma unroll
        for (int a = 0; a < NL; ++a)
#pragma unroll
          for (int l = 0; l < LR; ++l) nxt[a][l] = tval(a, l, xc + 32 + e0 + sigma * lane);
        const int x = xc + lane;
        float rr[NR][D];
#pragma unroll
        for (int b = 0; b < NR; ++b)
#pragma unroll
          for (int d = 0; d < D; ++d) {
            const int rho = rho0 + d;
            const bool ok = rho >= 0 && rho < H && x < W;
            rr[b][d] = ok ? __ldg(Rm[b] + static_cast<long long>(rho) * W + x) : 0.0f;
          }
#pragma unroll
        for (int t = 0; t < 32; ++t) {
#pragma unroll
          for (int b = 0; b < NR; ++b)
#pragma unroll
            for (int d = 0; d < D; ++d) {
              const float rv = __shfl_sync(kFull, rr[b][d], t);
#pragma unroll
              for (int l = 0; l < LR; ++l) {
                const int s = M == Mode::full ? l + S - 1 - d : d - l;
                if (s < 0 || s >= S) continue;
#pragma unroll
                for (int a = 0; a < NL; ++a) acc[a][b][s] = fmaf(cur[a][l], rv, acc[a][b][s]);
              }
            }
#pragma unroll
          for (int a = 0; a < NL; ++a)
#pragma unroll
            for (int l = 0; l < LR; ++l) {
              cur[a][l] = __shfl_sync(kFull, edge ? nxt[a][l] : cur[a][l], from);
              nxt[a][l] = __shfl_sync(kFull, nxt[a][l], from);
            }
        }
      }
    }

    const int c = c0 + lane;
    if (c >= p.out_cols) continue;
#pragma unroll
    for (int a = 0; a < NL; ++a)
#pragma unroll
      for (int b = 0; b < NR; ++b) {
        int li = 0, ri = 0, t = 0;
        if (!shuffle_pair(p, lg, rg, a, b, NL, NR, li, ri, t)) continue;
#pragma unroll
        for (int s = 0; s < S; ++s) {
          if (r0 + s >= p.out_rows) continue;
          float* o = out + (static_cast<long long>(t) * p.out_rows + r0 + s) * p.out_cols + c;
          if (split)
            atomicAdd(o, acc[a][b][s]);
          else
            *o = acc[a][b][s];
        }
      }
  }
}

// Launches one instantiation; defined per family file (the instantiation table there).
using ShuffleLaunch = void (*)(const DeviceProblem&, const ShuffleGrid&, float*, cudaStream_t,
                               int blocks);

template <Mode M, int S, int LR, int NL, int NR>
void launch_warp_shuffle(const DeviceProblem& p, const ShuffleGrid& g, float* out,
                         cudaStream_t stream, int blocks) {
  warp_shuffle_kernel<M, S, LR, NL, NR><<<blocks, 128, 0, stream>>>(p, g, out);
}

struct ShuffleInstance {
  ShuffleShape shape;
  ShuffleLaunch full, valid;
  const void *full_kernel, *valid_kernel;  // for the profiler
};

template <int S, int LR, int NL, int NR>
inline ShuffleInstance shuffle_instance() {
  return {{S, LR, NL, NR},
          &launch_warp_shuffle<Mode::full, S, LR, NL, NR>,
          &launch_warp_shuffle<Mode::valid, S, LR, NL, NR>,
          reinterpret_cast<const void*>(&warp_shuffle_kernel<Mode::full, S, LR, NL, NR>),
          reinterpret_cast<const void*>(&warp_shuffle_kernel<Mode::valid, S, LR, NL, NR>)};
}

// The instantiated shapes: gpu/warp_shuffle_multimat.cu and gpu/warp_shuffle_multirow.cu.
// nullptr when `s` is not instantiated.
const ShuffleInstance* find_multimat_instance(const ShuffleShape& s);
const ShuffleInstance* find_multirow_instance(const ShuffleShape& s);

}  // namespace xcorr::gpu
