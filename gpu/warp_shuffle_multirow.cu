// Instantiations of the warp-shuffle kernel for multirow_right, multirow_both and multirow_both
// combined with multimat_right / multimat_both (12 shapes x 2 modes). The parameter lists in
// gpu/warp_shuffle.cu match this table; the GPU tests run every entry.
#include <array>

#include "gpu/warp_shuffle.cuh"

namespace xcorr::gpu {

const ShuffleInstance* find_multirow_instance(const ShuffleShape& s) {
  static const std::array kTable = {
      // multirow_right: S rows, one template row per step
      shuffle_instance<2, 1, 1, 1>(),
      shuffle_instance<4, 1, 1, 1>(),
      shuffle_instance<8, 1, 1, 1>(),
      // multirow_both: S rows, LR template rows per step
      shuffle_instance<2, 2, 1, 1>(),
      shuffle_instance<2, 4, 1, 1>(),
      shuffle_instance<4, 2, 1, 1>(),
      shuffle_instance<4, 4, 1, 1>(),
      // multirow_both + multimat_right
      shuffle_instance<2, 2, 1, 2>(),
      shuffle_instance<2, 2, 1, 4>(),
      shuffle_instance<4, 2, 1, 2>(),
      shuffle_instance<4, 2, 1, 4>(),
      // multirow_both + multimat_both
      shuffle_instance<2, 2, 2, 2>(),
      shuffle_instance<4, 2, 2, 2>(),
      shuffle_instance<2, 2, 2, 4>(),
      shuffle_instance<4, 2, 2, 4>(),
  };
  for (const auto& e : kTable) {
    if (e.shape == s) return &e;
  }
  return nullptr;
}

}  // namespace xcorr::gpu
