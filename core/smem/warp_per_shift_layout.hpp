// Index math of the warp-per-shift kernels (gpu/warp_per_shift.cu), written once for the kernels
// and the bank-conflict model of the shared variant (core/profiling/kernel_smem.cpp).
// Units: elements are floats; shared slots are float offsets from the block's dynamic shared
// memory: the left (h x w, pitch w) from slot 0, then `rights` staged rights of H rows x xw
// columns (pitch xw, the columns the block's output columns read).
#pragma once

#include "core/smem/int_math.hpp"

namespace xcorr::smem {

inline constexpr int kWpsWarpsPerBlock = 8;

// Overlap of output (r, c): template rows [i0, i1), columns [j0, j1); the right element of
// template element (i, j) sits at (i - dy, j - dx).
struct Overlap {
  int i0, i1, j0, j1, dy, dx;
};

XCORR_HD inline Overlap overlap_at(bool full, int r, int c, int h, int w) {
  if (full) {
    const int dy = r - (h - 1), dx = c - (w - 1);
    return {imax(0, dy), imin(h, h + dy), imax(0, dx), imin(w, w + dx), dy, dx};
  }
  return {0, h, 0, w, -r, -c};  // valid: S[r + i][c + j] = R[i - dy][j - dx]
}

// The 32 lanes split an overlap as (32 / lw) rows x lw columns, lw = 2^lw_log2: lane's first
// element is (i0 + row, j0 + col); it steps by rows_per_step rows and lw columns.
struct LaneSplit {
  int row, col, rows_per_step, lw;
};

XCORR_HD inline LaneSplit lane_split(int lane, int lw_log2) {
  const int lw = 1 << lw_log2;
  return {lane >> lw_log2, lane & (lw - 1), 32 >> lw_log2, lw};
}

// Right columns [first, last) that output columns [c0, c1) read.
struct ColumnRange {
  int first, last;
};

XCORR_HD inline ColumnRange right_columns(bool full, int c0, int c1, int w, int W) {
  if (full) return {imax(0, w - c1), imin(W, 2 * w - 1 - c0)};
  return {c0, imin(W, c1 - 1 + w)};
}

// Shared slots: left element k (row-major), staged right b's element k (row-major, pitch xw).
XCORR_HD inline int wps_left_slot(int k) { return k; }
XCORR_HD inline int wps_right_slot(int h, int w, int H, int xw, int b, int k) {
  return h * w + b * H * xw + k;
}

// Blocks per group of the shared kernel: enough to fill the GPU (4 blocks on each of `sms`
// SMs), at most one per kWpsWarpsPerBlock outputs.
XCORR_HD inline int wps_blocks_per_group(int groups, int outputs_per_group, int sms) {
  const int want = (sms * 4 + groups - 1) / groups;
  const int most = (outputs_per_group + kWpsWarpsPerBlock - 1) / kWpsWarpsPerBlock;
  return imax(1, imin(want, most));
}

}  // namespace xcorr::smem
