// Accuracy of a correlation variant against the float64 reference, in the two measures
// docs/formats.md ("Accuracy") states bounds in:
//   element: max over outputs of |a - b| / max(|a|, |b|), 0 where both |a|, |b| <= 1e-5 (the
//            thesis' per-element metric, "Accelerating cross-correlation with GPUs");
//   relative_to_max: max |a - b| / max |b| over each result matrix (b the reference).
// accuracy_cases(): full-mode problems of every form on nonnegative inputs, uniform [0, 1) (the
// thesis' validation data) and with a large dynamic range (10^U(-3, 3): six decades), odd and
// prime sizes up to 128 x 128.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/correlator.hpp"
#include "core/matrix.hpp"

namespace xcorr::testing {

struct AccuracyStats {
  double element = 0;          // the thesis' per-element metric, worst element
  double relative_to_max = 0;  // worst |error| / largest |reference| of its matrix
};

// Both measures of `actual` against `expected` (same shapes; checked).
AccuracyStats accuracy_of(StackView<const float> actual, StackView<const double> expected);

// 10^U(-3, 3): nonnegative values over six decades (deterministic per stream and run seed).
Stack<float> wide_range_stack(Index rows, Index cols, Index count, std::uint64_t stream);

struct AccuracyCase {
  std::string name;
  Stack<float> left, right;
  CorrelationProblem problem() const;
  Form form = Form::one_to_one;
};
std::vector<AccuracyCase> accuracy_cases();

// The bounds docs/formats.md states: every variant that computes each output as its own sum
// (computes_each_output_directly) meets `kExactElementBound` per element; FFT variants meet
// `kFftRelativeToMaxBound` relative to each result's largest magnitude.
constexpr double kExactElementBound = 1e-4;
constexpr double kFftRelativeToMaxBound = 1e-5;

// Runs `v` on every accuracy case it can implement, checks its stated bound, and prints one
// line per case ("[ accuracy ] variant case element relative_to_max"); the number of cases run.
int expect_stated_accuracy(const Correlator& v);

}  // namespace xcorr::testing
