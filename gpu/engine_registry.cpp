// The registry every front end uses, in both builds (with CUDA, add_gpu_variants adds the GPU
// variants when a device is present; without, it adds nothing).
#include "gpu/engine.hpp"

namespace xcorr::gpu {

const Registry& engine_registry() {
  static const Registry r = [] {
    Registry reg;
    add_cpu_variants(reg);
    add_gpu_variants(reg);
    return reg;
  }();
  return r;
}

}  // namespace xcorr::gpu
