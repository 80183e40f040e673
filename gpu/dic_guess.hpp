// The strip search of the DIC integer guess (gpu/dic_guess_strips.cuh) and the fit of IC-GN's
// start (gpu/dic_guess_fit.cuh) from host memory, on the current device: for tests and tools
// (CUDA-free header).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "core/dic/guess_strips.hpp"
#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr::gpu {

// (u, v) in px of each point's ZNCC maximum between ref and def (equal sizes). `budget`: shared
// bytes per strip block (0: the device's, strip_budget) and `max_span`: they set how the points
// group into strips (core/dic/guess_strips.hpp), which must not change any result.
Result<std::vector<std::array<int, 2>>> strip_guesses(MatrixView<const float> ref,
                                                      MatrixView<const float> def,
                                                      const std::vector<dic::GuessWindow>& points,
                                                      int subset, int window,
                                                      std::size_t budget = 0,
                                                      int max_span = dic::kStripSpan);

// The refined start (u, v) in px of each point from its integer maximum peaks[k] = (u, v)
// (core/dic/guess_fit.hpp on the GPU), ref and def of equal sizes.
Result<std::vector<std::array<double, 2>>> guess_starts(
    MatrixView<const float> ref, MatrixView<const float> def,
    const std::vector<dic::GuessWindow>& points, const std::vector<std::array<int, 2>>& peaks,
    int subset, int window);

}  // namespace xcorr::gpu
