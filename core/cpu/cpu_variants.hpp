// Factories of the CPU correlators (registered by add_cpu_variants) and the float64 oracle.
#pragma once

#include <memory>

#include "core/correlator.hpp"

namespace xcorr::cpu {

// cpu_reference: the direct definition accumulated in float64, the oracle of every test.
Stack<double> correlate_reference(const CorrelationProblem& p);

std::unique_ptr<Correlator> make_reference_correlator();
std::unique_ptr<Correlator> make_direct_correlator();
std::unique_ptr<Correlator> make_fft_correlator();  // nullptr when built without FFTW

}  // namespace xcorr::cpu
