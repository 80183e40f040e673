#include "core/cpu/add_variants.hpp"

#include "core/cpu/cpu_variants.hpp"

namespace xcorr {

void add_cpu_variants(Registry& r) {
  r.add(cpu::make_reference_correlator());
  r.add(cpu::make_direct_correlator());
  if (auto fft = cpu::make_fft_correlator()) r.add(std::move(fft));
}

}  // namespace xcorr
