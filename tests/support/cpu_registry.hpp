// The registry of CPU variants that tests and benchmarks iterate.
#pragma once

#include "core/cpu/add_variants.hpp"
#include "core/registry.hpp"

namespace xcorr::testing {

inline const Registry& cpu_registry() {
  static const Registry r = [] {
    Registry reg;
    add_cpu_variants(reg);
    return reg;
  }();
  return r;
}

}  // namespace xcorr::testing
