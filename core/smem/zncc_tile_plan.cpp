#include "core/smem/zncc_tile_plan.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "core/profiling/occupancy.hpp"
#include "core/profiling/smem_model.hpp"

namespace xcorr::smem {
namespace {

using profiling::kWarp;
using Addresses = std::array<std::uint32_t, kWarp>;

int round_up(int n, int m) {
  return (n + m - 1) / m * m;
}

// Wavefronts over all warps of a tile of one access of the epilogue or main loop: lane f reads
// word (column c(f)) * pitch * width + row group g(f) * RY * width (width in words).
long long lane_cost(const ZnccTilePlan& p, int pitch, int width_words) {
  long long total = 0;
  for (int w0 = 0; w0 < p.tile_threads(); w0 += kWarp) {
    Addresses a{};
    std::uint32_t on = 0;
    for (int l = 0; l < kWarp && w0 + l < p.tile_threads(); ++l) {
      const int f = w0 + l;
      a[l] = static_cast<std::uint32_t>((zncc_col(p, f) * pitch + zncc_group(p, f) * p.RY) *
                                        width_words) *
             4u;
      on |= 1u << l;
    }
    total += profiling::smem_cost(4 * width_words, a, on).wavefronts;
  }
  return total;
}

// The odd pitch >= least with the fewest wavefronts (ties: the smallest).
int best_pitch(const ZnccTilePlan& p, int least, int width_words) {
  int pitch = least | 1;
  long long best = -1;
  for (int c = least | 1; c < least + 2 * kWarp; c += 2) {
    const long long cost = lane_cost(p, c, width_words);
    if (best < 0 || cost < best) best = cost, pitch = c;
  }
  return pitch;
}

// Fills pitches and offsets for a chosen RY and tile; returns the bytes it needs.
long long layout(ZnccTilePlan& p) {
  p.tiles_y = (p.out_rows + p.TR - 1) / p.TR;
  p.tiles_x = (p.out_cols + p.TC - 1) / p.TC;
  p.n_iter = round_up(p.h, p.RY);
  p.tg = round_up(p.RY, 4);
  p.tp = p.n_iter / p.RY * p.tg;
  p.s_rows = p.TR + p.n_iter - 1;
  p.s_cols = p.TC + p.w - 1;
  // Pitches: odd (staging stores and the horizontal-sum pass walk consecutive columns or rows),
  // the fewest wavefronts for the main loop's window loads and the epilogue's hs loads.
  p.sp = best_pitch(p, p.s_rows, 1);
  p.hp = best_pitch(p, p.hs_rows(), 4);
  p.threads = round_up(p.tile_threads(), kWarp);
  p.off_t = 0;
  p.off_s = round_up(p.w * p.tp, 4);
  p.off_h = round_up(p.off_s + p.s_cols * p.sp, 4);
  p.off_z = p.off_h + 4 * p.TC * p.hp;
  p.off_r = round_up(p.off_z + p.TR * p.TC, 2);
  p.smem_floats = p.off_r + 2 * p.warps() * kZnccReduce;
  return 4LL * p.smem_floats;
}

// The tile for a fixed RY: one tile for the whole surface when its threads fit a block; else
// tiles of up to 64 columns and as many row groups as 256 threads allow, shrunk until the shared
// memory fits. False when nothing fits.
bool choose_tile(ZnccTilePlan& p, int ry, long long max_smem_bytes) {
  p.RY = ry;
  const int groups_all = (p.out_rows + ry - 1) / ry;
  if (groups_all * p.out_cols <= kZnccMaxThreads) {
    p.TR = groups_all * ry;
    p.TC = p.out_cols;
    if (layout(p) <= max_smem_bytes) return true;
  }
  for (int tc : {64, 32}) {
    p.TC = tc < p.out_cols ? tc : p.out_cols;
    for (int groups = kZnccMaxThreads / p.TC; groups >= 1; groups /= 2) {
      p.TR = (groups < groups_all ? groups : groups_all) * ry;
      if (layout(p) <= max_smem_bytes) return true;
    }
  }
  return false;
}

// Relative time of a plan: the padded multiply-adds, slowed by the latency that the warps an SM
// keeps resident do not hide: macs x (1 + 3.56 / resident warps). Fitted to the H200 (run of
// 2026-11-23 with batched staging, docs/perf/zncc-gpu.md): RY 7 (no row padding, 2 warps a
// block) beat RY 4 on 21 in 41 (0.286 vs 0.342 ms) and tied it on 41 in 61 (0.964 vs 0.965);
// RY 4 (more resident warps) won 31 in 51 (0.538 ms), where RY 7 pads the template rows.
double relative_cost(const ZnccTilePlan& p) {
  const double warps = static_cast<double>(zncc_blocks_per_sm(p) * p.warps());
  const double macs = static_cast<double>(p.tiles_y) * p.tiles_x * p.TR * p.TC * p.n_iter * p.w;
  return macs * (1.0 + 3.56 / warps);
}

}  // namespace

int zncc_blocks_per_sm(const ZnccTilePlan& p) {
  const profiling::Occupancy o =
      profiling::theoretical_occupancy({p.threads, 0, 0, 4 * p.smem_floats});
  return std::max(1, o.blocks_per_sm);
}

Result<ZnccTilePlan> plan_zncc_tiles(int h, int w, int H, int W, int rows_per_thread,
                                     long long max_smem_bytes) {
  ZnccTilePlan p{};
  p.h = h, p.w = w, p.H = H, p.W = W;
  p.out_rows = H - h + 1;
  p.out_cols = W - w + 1;
  if (p.out_rows < 1 || p.out_cols < 1)
    return Status{ErrorCode::invalid_argument, "gpu_zncc_tiled: template larger than the window"};
  if (rows_per_thread != 0) {
    if (choose_tile(p, rows_per_thread, max_smem_bytes)) return p;
  } else {  // the cheapest by relative_cost (ties: the smaller RY)
    bool found = false;
    ZnccTilePlan best{};
    for (int r : kZnccRowChoices) {
      ZnccTilePlan c = p;
      if (!choose_tile(c, r, max_smem_bytes)) continue;
      if (!found || relative_cost(c) < relative_cost(best)) best = c, found = true;
    }
    if (found) return best;
  }
  return Status{ErrorCode::unsupported, "gpu_zncc_tiled: a " + std::to_string(h) + "x" +
                                            std::to_string(w) + " template needs more than " +
                                            std::to_string(max_smem_bytes >> 10) +
                                            " KiB of shared memory per tile; gpu_fft runs it"};
}

}  // namespace xcorr::smem
