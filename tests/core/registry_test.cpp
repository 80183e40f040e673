#include "core/registry.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <limits>

#include "core/cpu/add_variants.hpp"
#include "core/cpu/cpu_variants.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr {
namespace {

Registry cpu() {
  Registry r;
  add_cpu_variants(r);
  return r;
}

TEST(Registry, NamesAreUniqueAndFindable) {
  Registry r = cpu();
  EXPECT_NE(r.find("cpu_direct"), nullptr);
  EXPECT_EQ(r.find("nope"), nullptr);
  EXPECT_THROW(r.add(cpu::make_direct_correlator()), InternalError);
}

TEST(Dispatch, AutoNeverPicksTheOracleAndPrefersFftForLargeDirectForTiny) {
  const Registry r = cpu();
  const Stack<float> tiny(4, 4, 1), large(256, 256, 1);
  auto pick = [&](const Stack<float>& s) {
    return choose_variant(r, {{Form::one_to_one, Mode::full}, s.view(), s.view()}, "auto")
        .value()
        ->info()
        .name;
  };
  EXPECT_EQ(pick(tiny), "cpu_direct");
  EXPECT_EQ(pick(large), "cpu_fft");
}

TEST(Dispatch, ForcedMethodMustExist) {
  const Registry r = cpu();
  const Stack<float> s(4, 4, 1);
  const auto c =
      choose_variant(r, {{Form::one_to_one, Mode::full}, s.view(), s.view()}, "gpu_magic");
  ASSERT_FALSE(c.is_ok());
  EXPECT_NE(c.status().message().find("unknown method 'gpu_magic'"), std::string::npos);
}

TEST(Correlate, RejectsNanInputsByName) {
  const Registry r = cpu();
  Stack<float> a = testing::random_stack(5, 5, 1, 1), b = testing::random_stack(5, 5, 1, 2);
  b[0](1, 2) = std::numeric_limits<float>::quiet_NaN();
  const auto out = correlate(r, {{Form::one_to_one, Mode::full}, a.view(), b.view()});
  ASSERT_FALSE(out.is_ok());
  EXPECT_EQ(out.status().message(), "right matrix 0 has a NaN at row 1, column 2");
}

TEST(Correlate, RefusesAResultLargerThanMemoryWithoutAllocatingIt) {
  const Registry r = cpu();
  // n x n pairs of 1x1 matrices: a result of 4 n^2 bytes, 1.5x this machine's physical memory.
  const double physical =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  const auto n = static_cast<Index>(std::ceil(std::sqrt(1.5 * physical / sizeof(float))));
  const Stack<float> a(1, 1, n, 1.0f);
  const auto out = correlate(r, {{Form::n_to_m, Mode::full}, a.view(), a.view()});
  ASSERT_FALSE(out.is_ok());
  EXPECT_EQ(out.status().code(), ErrorCode::out_of_memory);
  EXPECT_NE(out.status().message().find("too little memory"), std::string::npos);
}

TEST(Correlate, RunsAndReportsTheVariant) {
  const Registry r = cpu();
  const Stack<float> a = testing::random_stack(9, 9, 1, 3, 0, 1);
  const CorrelationProblem p{{Form::one_to_one, Mode::full}, a.view(), a.view()};
  const auto out = correlate(r, p, "cpu_fft");
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(out.value().variant, "cpu_fft");
  EXPECT_MATRIX_NEAR(out.value().result.view(), cpu::correlate_reference(p).view(), 1e-5);
}

}  // namespace
}  // namespace xcorr
