// Shared-memory layout and thread map of gpu_zncc_tiled (gpu/zncc_tiled.cu), written once for the
// kernel and its bank-conflict model (core/profiling/kernel_smem.cpp). Units: elements are floats
// (hs: float2); slots are float offsets from the block's dynamic shared memory.
//
// A block computes one output tile of one (template, window) pair of a valid-mode ZNCC request:
// output rows [U0, U0 + TR) and columns [V0, V0 + TC). Thread f of the tile owns column
// c = f % TC and the RY consecutive rows from g * RY, g = f / TC (a row group). Arrays:
//   sT  the template, zero-mean, column-major in groups: rows [k RY, (k + 1) RY) of column j
//       start at j * tp + k * tg (tg = RY rounded up to 4: 16-byte loads of a group); rows
//       h .. n_iter - 1 are zero (n_iter = h rounded up to RY), so every row group walks
//       n_iter rows.
//   sS  the window rows [U0, U0 + s_rows) and columns [V0, V0 + s_cols) the tile reads,
//       shifted by the block's mean, column-major with pitch sp: a thread's rows are
//       consecutive words (immediate offsets in the main loop); sp odd and chosen on the host so
//       that a warp's loads hit distinct banks; zeros outside the window.
//   sH  hs[y][c] = (sum of (v - r), sum of (v - r)^2) over sS row y, columns [c, c + w), with
//       r = sS[y][c] the run's first value: float2, column-major with pitch hp, rows
//       [0, TR + h - 1). Relative to r, a constant run stores exactly (0, 0), so the epilogue
//       (which adds w r and w r^2 + 2 r a back in float64) still resolves the flatness rule
//       (a window's spread against 1e-10 of the search variance); plain float sums could not,
//       and float64 sums took twice the shared memory (8 instead of 6 blocks per SM, 31 in 51).
//   sZ  the tile's ZNCC values (peak output), row-major TR x TC.
//   sR  block reductions: one double slot per warp and quantity (kZnccReduce doubles a warp).
#pragma once

#include "core/smem/int_math.hpp"

namespace xcorr::smem {

inline constexpr int kZnccReduce = 4;        // doubles reduced at once per warp
inline constexpr int kZnccMaxThreads = 256;  // a tile's threads

struct ZnccTilePlan {
  int h, w, H, W;          // template and window sizes
  int out_rows, out_cols;  // surface
  int RY;                  // rows per thread (a compile-time kernel parameter)
  int TR, TC;              // tile (TR a multiple of RY)
  int tiles_y, tiles_x;    // tiles per pair
  int n_iter, tg, tp;      // template rows walked (h rounded up to RY), group and column pitch
  int s_rows, s_cols, sp;  // staged window rows, columns, column pitch (floats)
  int hp;                  // column pitch of hs (float2 elements)
  int threads;             // block size: the tile's threads rounded up to 32
  int off_t, off_s, off_h, off_z, off_r;  // array offsets (floats; off_h and off_r
                                          // even)
  int smem_floats;                        // dynamic shared memory, floats

  XCORR_HD int groups() const { return TR / RY; }
  XCORR_HD int tile_threads() const { return groups() * TC; }
  XCORR_HD int warps() const { return threads / 32; }
  XCORR_HD int hs_rows() const { return TR + h - 1; }
  XCORR_HD bool single_tile() const { return tiles_y == 1 && tiles_x == 1; }
};

// Template element (i, j); window element (y, x) relative to the tile's origin.
XCORR_HD inline int zncc_t_slot(const ZnccTilePlan& p, int i, int j) {
  return p.off_t + j * p.tp + i / p.RY * p.tg + i % p.RY;
}
XCORR_HD inline int zncc_s_slot(const ZnccTilePlan& p, int y, int x) {
  return p.off_s + x * p.sp + y;
}
// hs element (row y, column c) as a float2 slot, in floats.
XCORR_HD inline int zncc_h_slot(const ZnccTilePlan& p, int y, int c) {
  return p.off_h + 2 * (c * p.hp + y);
}
XCORR_HD inline int zncc_z_slot(const ZnccTilePlan& p, int r, int c) {
  return p.off_z + r * p.TC + c;
}
// Reduction slot (double) of quantity q of warp `warp`, in floats.
XCORR_HD inline int zncc_r_slot(const ZnccTilePlan& p, int warp, int q) {
  return p.off_r + 2 * (warp * kZnccReduce + q);
}

// Thread f's row group and column (f < tile_threads()).
XCORR_HD inline int zncc_group(const ZnccTilePlan& p, int f) {
  return f / p.TC;
}
XCORR_HD inline int zncc_col(const ZnccTilePlan& p, int f) {
  return f % p.TC;
}

}  // namespace xcorr::smem
