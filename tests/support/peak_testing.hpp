// The comparison of peak output (Output::peak, core/peak_fit.hpp) against the float64 reference.
#pragma once

#include <gtest/gtest.h>

#include "core/correlation.hpp"

namespace xcorr::testing {

// Peak records `actual` of the peak request `p` against cpu_reference's records of it, computed
// from float64 surfaces: every record finite; the same integer position, unless the reference
// surface's two largest values lie within `tie` of each other (then either position is right and
// only the value is checked); the value within `value_tol`; where the reference refines, the same
// fit and sub-pixel offsets within `offset_tol` px. `tie` and `value_tol` are absolute for
// surfaces whose maximum is at most 1 (zncc), else relative to it.
::testing::AssertionResult peaks_near(StackView<const float> actual, const CorrelationProblem& p,
                                      double value_tol = 2e-5, double offset_tol = 1e-3,
                                      double tie = 1e-4);

}  // namespace xcorr::testing

#define EXPECT_PEAKS_NEAR(actual, problem) \
  EXPECT_TRUE(::xcorr::testing::peaks_near((actual), (problem)))
