// Peak output (Output::peak, core/correlation.hpp) through any surface variant: the surfaces of a
// slice of results at a time (bounded memory), then find_peak on each. The CPU variants answer
// peak requests this way; the GPU variants do the same on the device (gpu/peak_reduce.cu) unless
// they fuse the search.
#pragma once

#include "core/correlator.hpp"

namespace xcorr {

// Results [first, first + count) of `p` as a problem of its own (same request). `first` and
// `count` are whole units of result_unit(p) (count may end at output_count()).
CorrelationProblem results_slice(const CorrelationProblem& p, Index first, Index count);

// The fewest results a slice can hold: n_left (n_to_mn), n_right (n_to_m), else 1.
Index result_unit(const CorrelationProblem& p);

// Writes the peak record of every result of `p` (output peak) into `out`, computing surfaces
// with `surface_variant` (which must run p's surface request) for at most ~`max_surface_bytes`
// of surfaces at a time.
Status run_peaks_via_surfaces(const Correlator& surface_variant, const CorrelationProblem& p,
                              StackView<float> out, double max_surface_bytes = 256.0 * (1 << 20));

}  // namespace xcorr
