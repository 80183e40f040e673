// Accuracy modes (core/correlation.hpp, docs/formats.md "Accuracy"): every CPU variant meets the
// bound docs/formats.md states for it on nonnegative inputs, uniform and over six decades; the
// per-element metric tells the FFT apart from direct sums on such data; accuracy exact makes
// auto pick only direct variants and refuses an FFT variant by name.
#include <gtest/gtest.h>

#include "core/cpu/cpu_variants.hpp"
#include "core/registry.hpp"
#include "tests/support/accuracy_testing.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr {
namespace {

TEST(Accuracy, TheMetricsAreTheThesisOnes) {
  Stack<float> a(1, 4, 1);
  Stack<double> b(1, 4, 1);
  const float av[] = {1.0f, 2e-6f, 100.0f, -3.0f};
  const double bv[] = {1.0001, 9e-6, 99.0, -3.0};
  for (int c = 0; c < 4; ++c) {
    a[0](0, c) = av[c];
    b[0](0, c) = bv[c];
  }
  const testing::AccuracyStats s = testing::accuracy_of(a.view(), b.view());
  // Worst element: |100 - 99| / 100 = 0.01; the pair below 1e-5 does not count.
  EXPECT_NEAR(s.element, 0.01, 1e-9);
  EXPECT_NEAR(s.relative_to_max, 1.0 / 99.0, 1e-9);
}

TEST(Accuracy, EveryCpuVariantMeetsItsStatedBound) {
  for (const auto& v : testing::cpu_registry().all()) {
    if (v->info().family == "reference") continue;  // the reference itself
    EXPECT_GE(testing::expect_stated_accuracy(*v), 20) << v->info().name;
  }
}

// Why the exact mode exists: on six decades the FFT's error, small against the largest output,
// is large against the small outputs at the full output's edges; the direct sum's is not.
TEST(Accuracy, TheElementMetricSeparatesTheFftFromDirectSums) {
  const Stack<float> l = testing::wide_range_stack(64, 64, 1, 11),
                     r = testing::wide_range_stack(64, 64, 1, 12);
  const CorrelationProblem p{{Form::one_to_one, Mode::full}, l.view(), r.view()};
  const Stack<double> ref = cpu::correlate_reference(p);
  const auto stats = [&](const char* name) {
    Stack<float> out = testing::poisoned_stack(127, 127, 1);
    EXPECT_TRUE(testing::cpu_registry().find(name)->run(p, out.view()).is_ok());
    return testing::accuracy_of(out.view(), ref.view());
  };
  EXPECT_GT(stats("cpu_fft").element, testing::kExactElementBound);
  EXPECT_LE(stats("cpu_direct").element, testing::kExactElementBound);
}

TEST(Accuracy, ExactAutoPicksOnlyDirectVariants) {
  for (const testing::AccuracyCase& c : testing::accuracy_cases()) {
    CorrelationProblem p = c.problem();
    p.request.accuracy = Accuracy::exact;
    auto chosen = choose_variant(testing::cpu_registry(), p, "auto");
    ASSERT_TRUE(chosen.is_ok()) << chosen.status().message();
    EXPECT_TRUE(computes_each_output_directly(chosen.value()->info())) << c.name;
  }
  const Stack<float> a = testing::random_stack(128, 128, 1, 3, 0, 1);
  CorrelationProblem big{{Form::one_to_one, Mode::full}, a.view(), a.view()};
  auto fast = choose_variant(testing::cpu_registry(), big, "auto");
  ASSERT_TRUE(fast.is_ok());
  EXPECT_EQ(fast.value()->info().name, "cpu_fft") << "the premise: fast picks the FFT here";
  big.request.accuracy = Accuracy::exact;
  auto exact = choose_variant(testing::cpu_registry(), big, "auto");
  ASSERT_TRUE(exact.is_ok());
  EXPECT_EQ(exact.value()->info().name, "cpu_direct");
  auto named = choose_variant(testing::cpu_registry(), big, "cpu_fft");
  ASSERT_FALSE(named.is_ok());
  EXPECT_NE(named.status().message().find("cpu_fft does not meet accuracy exact"),
            std::string::npos)
      << named.status().message();
}

}  // namespace
}  // namespace xcorr
