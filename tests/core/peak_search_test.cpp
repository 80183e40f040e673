// Peak output through surfaces (core/peak_search.hpp): result slices of every form, slicing that
// keeps every record, and the test helper that compares records (it must catch wrong ones).
#include "core/peak_search.hpp"

#include <gtest/gtest.h>

#include "core/cpu/cpu_variants.hpp"
#include "tests/support/correlation_cases.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/peak_testing.hpp"

namespace xcorr {
namespace {

TEST(ResultsSlice, EverySliceOfEveryFormIsTheSameResults) {
  const testing::Case cases[] = {
      {Form::one_to_many, Mode::valid, Normalization::zncc, {5, 4}, {13, 11}, 1, 7},
      {Form::n_to_mn, Mode::valid, Normalization::zncc, {5, 4}, {13, 11}, 3, 9},
      {Form::n_to_m, Mode::valid, Normalization::none, {5, 4}, {13, 11}, 4, 3},
  };
  for (const testing::Case& c : cases) {
    const testing::CaseData data = testing::make_case_data(c);
    const CorrelationProblem p = data.problem(c);
    const Stack<double> all = cpu::correlate_reference(p);
    const Index unit = result_unit(p);
    for (Index first = 0; first < p.output_count(); first += unit) {
      const Index count = std::min(2 * unit, p.output_count() - first);
      const CorrelationProblem s = results_slice(p, first, count);
      ASSERT_TRUE(s.validate().is_ok()) << s.validate().message();
      ASSERT_EQ(s.output_count(), count);
      const Stack<double> part = cpu::correlate_reference(s);
      for (Index t = 0; t < count; ++t) {
        for (Index k = 0; k < part.rows() * part.cols(); ++k)
          ASSERT_EQ(part[t].data[k], all[first + t].data[k]) << testing::case_name(c);
      }
    }
  }
}

TEST(PeakSearch, SlicesOfBoundedMemoryKeepEveryRecord) {
  const testing::Case c{Form::n_to_mn,
                        Mode::valid,
                        Normalization::zncc,
                        {7, 7},
                        {19, 17},
                        2,
                        14,
                        Output::peak,
                        SubpixelMethod::parabolic};
  const testing::CaseData data = testing::make_case_data(c);
  const CorrelationProblem p = data.problem(c);
  Stack<float> out = testing::poisoned_stack(1, kPeakFields, p.output_count());
  // 1 byte: one unit (2 results) per slice.
  ASSERT_TRUE(run_peaks_via_surfaces(*testing::cpu_registry().find("cpu_direct"), p, out.view(), 1)
                  .is_ok());
  EXPECT_PEAKS_NEAR(out.view(), p);
}

TEST(PeakTesting, ACorruptedRecordFails) {
  const testing::Case c{Form::one_to_many,
                        Mode::valid,
                        Normalization::zncc,
                        {9, 9},
                        {30, 30},
                        1,
                        3,
                        Output::peak,
                        SubpixelMethod::quadratic2d};
  const testing::CaseData data = testing::make_case_data(c);
  const CorrelationProblem p = data.problem(c);
  Stack<float> out(1, kPeakFields, p.output_count());
  ASSERT_TRUE(testing::cpu_registry().find("cpu_direct")->run(p, out.view()).is_ok());
  ASSERT_TRUE(testing::peaks_near(out.view(), p));
  for (int field : {0, 2, 3}) {
    Stack<float> bad = out;
    bad[1](0, field) += field == 3 ? 0.01f : 1.0f;
    EXPECT_FALSE(testing::peaks_near(bad.view(), p)) << "field " << field;
  }
}

TEST(PeakOutput, NeedsValidMode) {
  const Stack<float> a(4, 4, 1, 1.0f);
  const CorrelationProblem p{
      {Form::one_to_one, Mode::full, Normalization::none, Output::peak}, a.view(), a.view()};
  const Status s = p.validate();
  EXPECT_EQ(s.code(), ErrorCode::unsupported);
  EXPECT_NE(s.message().find("peak output needs valid mode"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace xcorr
