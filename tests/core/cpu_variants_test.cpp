// Every registered CPU variant x form x mode/normalisation x size against cpu_reference
// (float64), on fresh seeded random data, with poisoned outputs: relative L2 error <= 1e-5.
#include "core/cpu/cpu_variants.hpp"

#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "tests/support/correlation_cases.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/peak_testing.hpp"

namespace xcorr {
namespace {

using testing::Case;
using testing::case_name;

class CpuVariant : public ::testing::TestWithParam<std::tuple<std::string, Case>> {};

TEST_P(CpuVariant, MatchesFloat64Reference) {
  const auto& [name, c] = GetParam();
  const Correlator* v = testing::cpu_registry().find(name);
  ASSERT_NE(v, nullptr);
  const testing::CaseData data = testing::make_case_data(c);
  const CorrelationProblem p = data.problem(c);
  ASSERT_TRUE(p.validate().is_ok()) << p.validate().message();
  ASSERT_TRUE(v->can_implement(p).is_ok());
  Stack<float> out =
      testing::poisoned_stack(p.output_shape().rows, p.output_shape().cols, p.output_count());
  ASSERT_TRUE(v->run(p, out.view()).is_ok());
  EXPECT_MATRIX_NEAR(out.view(), cpu::correlate_reference(p).view(), 1e-5);
}

class CpuVariantPeak : public CpuVariant {};

// Peak output: the surfaces' maxima and refinements (core/peak_search.hpp) against the records
// the float64 reference finds on float64 surfaces.
TEST_P(CpuVariantPeak, MatchesFloat64Reference) {
  const auto& [name, c] = GetParam();
  const Correlator* v = testing::cpu_registry().find(name);
  ASSERT_NE(v, nullptr);
  const testing::CaseData data = testing::make_case_data(c);
  const CorrelationProblem p = data.problem(c);
  ASSERT_TRUE(v->can_implement(p).is_ok());
  Stack<float> out = testing::poisoned_stack(1, kPeakFields, p.output_count());
  ASSERT_TRUE(v->run(p, out.view()).is_ok());
  EXPECT_PEAKS_NEAR(out.view(), p);
}

INSTANTIATE_TEST_SUITE_P(
    ValidCases, CpuVariantPeak,
    ::testing::Combine(::testing::Values("cpu_reference", "cpu_direct", "cpu_fft"),
                       ::testing::ValuesIn(testing::as_peak_cases(testing::all_cases()))),
    [](const auto& param_info) {
      return std::get<0>(param_info.param) + "_" + case_name(std::get<1>(param_info.param));
    });

class CpuVariantZncc : public CpuVariant {};

TEST_P(CpuVariantZncc, FlatTemplatesAndWindowsGiveZero) {
  const auto& [name, c] = GetParam();
  Stack<float> left = testing::random_stack(c.left.rows, c.left.cols, c.n_left, 11, 0, 100);
  Stack<float> right = testing::random_stack(c.right.rows, c.right.cols, c.n_right, 12, 0, 100);
  std::fill(left[0].data, left[0].data + c.left.area(), 42.0f);  // flat template 0
  for (Index r = 0; r < c.left.rows; ++r) {
    for (Index k = 0; k < c.left.cols; ++k)
      right[0](r, k) = 7.0f;  // flat window at (0, 0) of right 0
  }
  const CorrelationProblem p{{c.form, c.mode, c.norm}, left.view(), right.view()};
  Stack<float> out =
      testing::poisoned_stack(p.output_shape().rows, p.output_shape().cols, p.output_count());
  ASSERT_TRUE(testing::cpu_registry().find(name)->run(p, out.view()).is_ok());
  for (Index t = 0; t < p.output_count(); ++t) {
    const auto [li, ri] = p.pair(t);
    if (li == 0) {
      for (Index r = 0; r < out.rows(); ++r) {
        for (Index k = 0; k < out.cols(); ++k)
          ASSERT_EQ(out[t](r, k), 0.0f) << "flat template, result " << t;
      }
    } else if (ri == 0) {
      EXPECT_EQ(out[t](0, 0), 0.0f) << "flat window, result " << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllCases, CpuVariant,
                         ::testing::Combine(::testing::Values("cpu_reference", "cpu_direct",
                                                              "cpu_fft"),
                                            ::testing::ValuesIn(testing::all_cases())),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) + "_" +
                                  case_name(std::get<1>(param_info.param));
                         });

INSTANTIATE_TEST_SUITE_P(
    ZnccCases, CpuVariantZncc,
    ::testing::Combine(::testing::Values("cpu_reference", "cpu_direct", "cpu_fft"),
                       ::testing::ValuesIn(testing::zncc_only(testing::all_cases()))),
    [](const auto& param_info) {
      return std::get<0>(param_info.param) + "_" + case_name(std::get<1>(param_info.param));
    });

TEST(CpuVariants, AllThreeAreRegistered) {
  for (const char* name : {"cpu_reference", "cpu_direct", "cpu_fft"})
    EXPECT_NE(testing::cpu_registry().find(name), nullptr) << name;
}

}  // namespace
}  // namespace xcorr
