// Index math of the warp-per-shift kernels (gpu/warp_per_shift.cu), written once for the kernels
// and the bank-conflict model of the shared variant (core/profiling/kernel_smem.cpp).
// Units: elements are floats; shared slots are float offsets from the block's dynamic shared
// memory: the left (h x w, pitch w) from slot 0, then `rights` staged rights of H rows x xw
// columns (pitch xw, the columns the block's output columns read).
#pragma once

#include "core/smem/int_math.hpp"

namespace xcorr::smem {

inline constexpr int kWpsWarpsPerBlock = 8;
// The shared kernel's blocks: 32 warps, since its staging (up to 200 KiB) often leaves room for
// one block per SM, and 8 warps per SM could not hide the shared loads' latency (H200: the
// 8-warp blocks ran one_to_one 128 at 4.2x the thesis' kernel, runs 49-52).
inline constexpr int kWpsSharedWarpsPerBlock = 32;

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

// The 32 lanes walk an overlap's oh x ow elements as one row-major sequence (the thesis' warp
// per shift): lane k takes elements k, k + 32, k + 64, ..., so every step but the last keeps all
// 32 lanes busy whatever the overlap's width. OverlapWalk tracks a lane's (row, col) within the
// overlap; next() moves it 32 elements on without a division.
struct OverlapWalk {
  int row, col, dr, dc, ow;
  XCORR_HD void next() {
    row += dr;
    col += dc;
    if (col >= ow) {
      col -= ow;
      ++row;
    }
  }
};

// Lane `lane`'s first element of an overlap `ow` columns wide (ow >= 1).
XCORR_HD inline OverlapWalk overlap_walk(int lane, int ow) {
  return {lane / ow, lane % ow, 32 / ow, 32 % ow, ow};
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
XCORR_HD inline int wps_left_slot(int k) {
  return k;
}
XCORR_HD inline int wps_right_slot(int h, int w, int H, int xw, int b, int k) {
  return h * w + b * H * xw + k;
}

// Blocks per group of the shared kernel: enough to fill the GPU (4 blocks on each of `sms`
// SMs), at most one per kWpsSharedWarpsPerBlock outputs.
XCORR_HD inline int wps_blocks_per_group(int groups, int outputs_per_group, int sms) {
  const int want = (sms * 4 + groups - 1) / groups;
  const int most = (outputs_per_group + kWpsSharedWarpsPerBlock - 1) / kWpsSharedWarpsPerBlock;
  return imax(1, imin(want, most));
}

}  // namespace xcorr::smem
