// Instantiations of the warp-shuffle kernel for simple, multimat_right and multimat_both
// (8 shapes x 2 modes). The parameter lists in gpu/warp_shuffle.cu match this table; the GPU
// tests run every entry.
#include <array>

#include "gpu/warp_shuffle.cuh"

namespace xcorr::gpu {

const ShuffleInstance* find_multimat_instance(const ShuffleShape& s) {
  static const std::array kTable = {
      shuffle_instance<1, 1, 1, 1>(),                                  // simple
      shuffle_instance<1, 1, 1, 2>(), shuffle_instance<1, 1, 1, 4>(),  // multimat_right
      shuffle_instance<1, 1, 1, 8>(), shuffle_instance<1, 1, 2, 2>(),
      shuffle_instance<1, 1, 2, 4>(),  // multimat_both
      shuffle_instance<1, 1, 4, 2>(), shuffle_instance<1, 1, 4, 4>(),
      shuffle_instance<1, 1, 2, 8>(), shuffle_instance<1, 1, 8, 2>(),
      shuffle_instance<1, 1, 4, 8>(), shuffle_instance<1, 1, 8, 4>(),
      shuffle_instance<1, 1, 8, 8>(),
  };
  for (const auto& e : kTable) {
    if (e.shape == s) return &e;
  }
  return nullptr;
}

}  // namespace xcorr::gpu
