// Shared-memory layout of gpu_tiled_RYxRX (gpu/tiled.cu), written once for the kernel and its
// bank-conflict model (core/profiling/kernel_smem.cpp). Units: elements are floats; indices are
// float offsets from the start of the block's dynamic shared memory.
//
// A block of kWarps warps owns BY = kWarps*RY output rows from U0 and BX = 32*RX columns from V0.
// It stages the template column-major (sT, column pitch tp = nI rounded up to 4 floats, so four
// consecutive template rows are one 16-byte load) and the window of the zero-padded source S it
// reads (sS, s_rows x s_cols, row-major).
#pragma once

#include "core/smem/int_math.hpp"

namespace xcorr::smem {

inline constexpr int kTiledWarps = 4;

struct TiledGeometry {
  bool full;
  int h, w, H, W;  // template (left) and source (right) sizes
  int out_rows, out_cols;
};

struct TiledBlock {
  int U0, V0;            // first output row and column
  int i_lo, j_lo, j_hi;  // template rows from i_lo, columns [j_lo, j_hi) that meet non-zero S
  int nI, nJ, tp;        // staged template rows (incl. RY zero rows), columns, column pitch
  int s_rows, s_cols;    // staged window
};

XCORR_HD inline int tiled_template_pitch(int nI) {
  return (nI + 3) / 4 * 4;
}

XCORR_HD inline TiledBlock tiled_block(const TiledGeometry& g, int RY, int RX, int bx, int by) {
  const int BY = kTiledWarps * RY, BX = 32 * RX;
  TiledBlock b{};
  b.U0 = by * BY;
  b.V0 = bx * BX;
  b.i_lo = g.full ? imax(0, g.h - 1 - (b.U0 + BY - 1)) : 0;
  b.j_lo = g.full ? imax(0, g.w - 1 - (b.V0 + BX - 1)) : 0;
  b.j_hi = g.full ? imin(g.w, 2 * g.w - 1 - b.V0) : g.w;
  b.nI = g.h + RY - b.i_lo;
  b.nJ = b.j_hi - b.j_lo;
  b.tp = tiled_template_pitch(b.nI);
  b.s_rows = b.nI + BY - 1;
  b.s_cols = b.nJ + BX - 1;
  return b;
}

// Floats of dynamic shared memory the largest block needs (block (0, 0) stages the most).
XCORR_HD inline long long tiled_smem_floats(const TiledGeometry& g, int RY, int RX) {
  const int BY = kTiledWarps * RY, BX = 32 * RX;
  const long long nI = g.h + RY, nJ = g.w;
  return tiled_template_pitch(static_cast<int>(nI)) * nJ + (nI + BY - 1) * (nJ + BX - 1);
}

// Staging stores: template element (ii, jj) and window element (yy, xx).
XCORR_HD inline int tiled_template_slot(const TiledBlock& b, int ii, int jj) {
  return jj * b.tp + ii;
}
XCORR_HD inline int tiled_window_slot(const TiledBlock& b, int yy, int xx) {
  return b.tp * b.nJ + yy * b.s_cols + xx;
}

// A warp's template rows: from a multiple of 4 above i_lo (for the 16-byte loads) to wi_hi;
// n_iter rows per column, a multiple of RY.
struct TiledWarp {
  int u0w, wi_lo, wi_hi, n_iter;
};

XCORR_HD inline TiledWarp tiled_warp(const TiledGeometry& g, const TiledBlock& b, int RY,
                                     int warp) {
  TiledWarp t{};
  t.u0w = b.U0 + warp * RY;
  t.wi_lo = b.i_lo + (g.full ? imax(0, g.h - 1 - (t.u0w + RY - 1)) - b.i_lo : 0) / 4 * 4;
  t.wi_hi = g.full ? imin(g.h, 2 * g.h - 1 - t.u0w) : g.h;
  t.n_iter = t.wi_hi > t.wi_lo ? (t.wi_hi - t.wi_lo + RY - 1) / RY * RY : 0;
  return t;
}

// Compute-loop loads at template column j: the 16-byte template load of rows ii..ii+3 (every
// lane the same address) and the window element a lane reads for template row `row` (relative
// to wi_lo) and register column b.
XCORR_HD inline int tiled_template_read(const TiledBlock& b, const TiledWarp& t, int j, int ii) {
  return (j - b.j_lo) * b.tp + (t.wi_lo - b.i_lo) + ii;
}
XCORR_HD inline int tiled_window_read(const TiledBlock& b, const TiledWarp& t, int j, int row,
                                      int rx, int lane) {
  return tiled_window_slot(b, t.wi_lo - b.i_lo + t.u0w - b.U0 + row, (j - b.j_lo) + lane + 32 * rx);
}

}  // namespace xcorr::smem
