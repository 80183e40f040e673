#include "core/fft_size.hpp"

namespace xcorr {

Index next_fast_fft_size(Index n) {
  for (Index m = n < 1 ? 1 : n;; ++m) {
    Index r = m;
    for (Index p : {2, 3, 5, 7}) {
      while (r % p == 0) r /= p;
    }
    if (r == 1) return m;
  }
}

}  // namespace xcorr
