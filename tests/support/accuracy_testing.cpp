#include "tests/support/accuracy_testing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/cpu/cpu_variants.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::testing {

AccuracyStats accuracy_of(StackView<const float> actual, StackView<const double> expected) {
  EXPECT_EQ(actual.shape(), expected.shape());
  EXPECT_EQ(actual.count, expected.count);
  AccuracyStats s;
  for (Index t = 0; t < std::min(actual.count, expected.count); ++t) {
    double largest = 0, worst_abs = 0;
    for (Index r = 0; r < expected.rows; ++r) {
      for (Index c = 0; c < expected.cols; ++c) {
        const double a = actual[t](r, c), b = expected[t](r, c);
        largest = std::max(largest, std::abs(b));
        const double err = std::abs(a - b);
        worst_abs = std::max(worst_abs, std::isfinite(a) ? err : INFINITY);
        const double scale = std::max(std::abs(a), std::abs(b));
        if (!std::isfinite(a)) {
          s.element = INFINITY;
        } else if (scale > 1e-5) {
          s.element = std::max(s.element, err / scale);
        }
      }
    }
    s.relative_to_max = std::max(s.relative_to_max, largest > 0 ? worst_abs / largest : worst_abs);
  }
  return s;
}

CorrelationProblem AccuracyCase::problem() const {
  return {{form, Mode::full}, left.view(), right.view()};
}

Stack<float> wide_range_stack(Index rows, Index cols, Index count, std::uint64_t stream) {
  Stack<float> s = random_stack(rows, cols, count, stream, -3.0f, 3.0f);
  for (float& v : s.values()) v = std::pow(10.0f, v);
  return s;
}

std::vector<AccuracyCase> accuracy_cases() {
  struct Shape3 {
    Form form;
    Index rows, cols, n_left, n_right;
  };
  // The thesis' validation shapes (10, 64, 128; its 12 files) plus odd and prime sizes.
  const std::vector<Shape3> shapes = {
      {Form::one_to_one, 10, 10, 1, 1},   {Form::one_to_one, 64, 64, 1, 1},
      {Form::one_to_one, 128, 128, 1, 1}, {Form::one_to_one, 37, 53, 1, 1},
      {Form::one_to_many, 10, 10, 1, 4},  {Form::one_to_many, 64, 64, 1, 2},
      {Form::one_to_many, 31, 17, 1, 3},  {Form::n_to_mn, 10, 10, 2, 8},
      {Form::n_to_mn, 128, 128, 2, 2},    {Form::n_to_mn, 23, 29, 2, 6},
      {Form::n_to_m, 10, 10, 4, 4},       {Form::n_to_m, 64, 64, 4, 2},
      {Form::n_to_m, 19, 41, 3, 2},
  };
  std::vector<AccuracyCase> cases;
  std::uint64_t stream = 7000;
  for (const Shape3& s : shapes) {
    for (int wide = 0; wide < 2; ++wide) {
      AccuracyCase c;
      c.form = s.form;
      c.name = std::string(to_string(s.form)) + "_" + std::to_string(s.rows) + "x" +
               std::to_string(s.cols) + "_" + std::to_string(s.n_left) + "_" +
               std::to_string(s.n_right) + (wide ? "_six_decades" : "_uniform01");
      c.left = wide ? wide_range_stack(s.rows, s.cols, s.n_left, stream++)
                    : random_stack(s.rows, s.cols, s.n_left, stream++, 0.0f, 1.0f);
      c.right = wide ? wide_range_stack(s.rows, s.cols, s.n_right, stream++)
                     : random_stack(s.rows, s.cols, s.n_right, stream++, 0.0f, 1.0f);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

int expect_stated_accuracy(const Correlator& v) {
  static const std::vector<AccuracyCase> cases = accuracy_cases();
  static const std::vector<Stack<double>> refs = [] {
    std::vector<Stack<double>> r;
    for (const AccuracyCase& c : cases) r.push_back(cpu::correlate_reference(c.problem()));
    return r;
  }();
  const bool exact = computes_each_output_directly(v.info());
  int ran = 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const CorrelationProblem p = cases[k].problem();
    if (!v.can_implement(p).is_ok()) continue;
    Stack<float> out =
        poisoned_stack(p.output_shape().rows, p.output_shape().cols, p.output_count());
    const Status st = v.run(p, out.view());
    EXPECT_TRUE(st.is_ok()) << v.info().name << " on " << cases[k].name << ": " << st.message();
    if (!st.is_ok()) continue;
    const AccuracyStats a = accuracy_of(out.view(), refs[k].view());
    std::printf("[ accuracy ] %-44s %-36s element %.2e  relative_to_max %.2e\n",
                v.info().name.c_str(), cases[k].name.c_str(), a.element, a.relative_to_max);
    if (exact) {
      EXPECT_LE(a.element, kExactElementBound) << v.info().name << " on " << cases[k].name;
    } else {
      EXPECT_LE(a.relative_to_max, kFftRelativeToMaxBound)
          << v.info().name << " on " << cases[k].name;
    }
    ++ran;
  }
  return ran;
}

}  // namespace xcorr::testing
