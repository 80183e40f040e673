// Integer min/max for the shared-memory layout headers (core/smem/*_layout.hpp), whose index
// math is written once, XCORR_HD (core/hd.hpp), for the CUDA kernel and its CPU bank-conflict
// model.
#pragma once

#include "core/hd.hpp"

namespace xcorr::smem {

XCORR_HD inline int imin(int a, int b) {
  return a < b ? a : b;
}
XCORR_HD inline int imax(int a, int b) {
  return a > b ? a : b;
}

}  // namespace xcorr::smem
