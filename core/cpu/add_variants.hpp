// The CPU correlators' entry in the registry (the engine facade composes the registry from it
// and the GPU backend's add_gpu_variants).
#pragma once

#include "core/registry.hpp"

namespace xcorr {

// Registers cpu_reference, cpu_direct and (when built with FFTW) cpu_fft.
void add_cpu_variants(Registry& r);

}  // namespace xcorr
