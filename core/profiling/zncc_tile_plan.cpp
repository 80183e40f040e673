#include "core/profiling/zncc_tile_plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/profiling/occupancy.hpp"
#include "core/profiling/smem_model.hpp"

namespace xcorr::profiling {

using smem::kZnccMaxThreads;
using smem::kZnccReduce;
using smem::ZnccTilePlan;

namespace {

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
  p.hp = best_pitch(p, p.hs_rows(), 2);
  p.threads = round_up(p.tile_threads(), kWarp);
  p.off_t = 0;
  p.off_s = round_up(p.w * p.tp, 4);
  p.off_h = round_up(p.off_s + p.s_cols * p.sp, 2);
  p.off_z = p.off_h + 2 * p.TC * p.hp;
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

// Relative time of a plan for RY: zncc_cost of a launch that fills every SM.
double relative_cost(const ZnccTilePlan& p, const SmLimits& sm) {
  return zncc_cost(p, 1e9, 1, sm);
}

}  // namespace

// The padded multiply-adds, times the measured speed of the compiled main loop per RY (the
// body's template loads, 16 bytes per group of RY rows rounded up to 4, and its unrolling differ
// per RY), slowed by the latency that the warps resident on an SM do not hide, over the share of
// the SMs the launch occupies: macs x row_factor(RY) x (1 + 2.5 / resident warps) / SM share.
// Fitted to the H200 (run 12 of docs/perf/zncc-gpu.md: every RY timed on 21 in 41, 31 in 51,
// 41 in 61 x10^4 and 32 in 512^2, float2 window sums): it picks the fastest RY on all four
// (RY 7, 8, 7, 8) and predicts the others within 6 %.
double zncc_cost(const ZnccTilePlan& p, double blocks, double sms, const SmLimits& sm) {
  constexpr double kRowFactor[] = {1.0, 1.053, 1.0, 1.008, 0.87};  // RY 4..8
  const double per_sm = std::ceil(blocks / sms);
  const double resident = std::min<double>(zncc_blocks_per_sm(p, sm), per_sm) * p.warps();
  const double share = std::min(1.0, blocks / sms);
  const double macs = blocks * p.TR * p.TC * static_cast<double>(p.n_iter) * p.w;
  return macs * kRowFactor[p.RY - 4] * (1.0 + 2.5 / resident) / share;
}

int zncc_blocks_per_sm(const ZnccTilePlan& p, const SmLimits& sm) {
  const profiling::Occupancy o =
      profiling::theoretical_occupancy({p.threads, 0, 0, 4 * p.smem_floats}, sm);
  return std::max(1, o.blocks_per_sm);
}

Result<ZnccTilePlan> plan_zncc_tiles(int h, int w, int H, int W, int rows_per_thread,
                                     long long max_smem_bytes, const SmLimits& sm) {
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
      if (!found || relative_cost(c, sm) < relative_cost(best, sm)) best = c, found = true;
    }
    if (found) return best;
  }
  return Status{ErrorCode::unsupported, "gpu_zncc_tiled: a " + std::to_string(h) + "x" +
                                            std::to_string(w) + " template needs more than " +
                                            std::to_string(max_smem_bytes >> 10) +
                                            " KiB of shared memory per tile; gpu_fft runs it"};
}

}  // namespace xcorr::profiling
