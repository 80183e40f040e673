// Test helpers shared by every correctness test: fresh seeded random data, poisoned outputs,
// and the one comparison against a float64 reference.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "core/matrix.hpp"

namespace xcorr::testing {

// Seed of this test run: $XCORR_TEST_SEED if set, else fresh from std::random_device.
// Printed once per process so that any failure can be reproduced.
std::uint64_t run_seed();

// Uniform values in [lo, hi), deterministic for (run_seed(), stream).
Stack<float> random_stack(Index rows, Index cols, Index count, std::uint64_t stream,
                          float lo = -1.0f, float hi = 1.0f);

// A stack filled with NaN: any element a correlator does not write shows up as NaN.
Stack<float> poisoned_stack(Index rows, Index cols, Index count);

// Per result matrix: relative L2 error ||a - e|| / ||e|| <= tol (absolute when ||e|| == 0),
// shapes equal, and every element of `actual` finite.
::testing::AssertionResult matrix_near(StackView<const float> actual,
                                       StackView<const double> expected, double tol);

}  // namespace xcorr::testing

#define EXPECT_MATRIX_NEAR(actual, expected, tol) \
  EXPECT_TRUE(::xcorr::testing::matrix_near((actual), (expected), (tol)))
