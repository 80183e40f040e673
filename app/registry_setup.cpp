#include "app/registry_setup.hpp"

#include "gpu/engine.hpp"

namespace xcorr::app {

const Registry& engine_registry() {
  static const Registry r = [] {
    Registry reg;
    register_cpu_variants(reg);
    gpu::register_gpu_variants(reg);
    return reg;
  }();
  return r;
}

}  // namespace xcorr::app
