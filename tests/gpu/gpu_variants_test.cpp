// Every registered GPU variant x form x mode/normalisation x size (1x1 to 511x511, odd, prime,
// not multiples of 32) against cpu_reference (float64) on fresh seeded data, with device outputs
// poisoned with NaN: relative L2 error <= 1e-5 and every element written. CTest label gpu;
// skips where no CUDA device is present.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/cpu/cpu_variants.hpp"
#include "gpu/device.hpp"
#include "gpu/engine.hpp"
#include "tests/support/correlation_cases.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr {
namespace {

const Registry& gpu_registry() {
  static const Registry r = [] {
    Registry reg;
    gpu::register_gpu_variants(reg);
    gpu::set_poison_outputs(true);
    return reg;
  }();
  return r;
}

// A macro: GTEST_SKIP only leaves the function it is written in.
#define XCORR_SKIP_WITHOUT_GPU()                                      \
  do {                                                                \
    const auto devices = gpu::list_devices();                         \
    if (!devices.is_ok()) GTEST_SKIP() << devices.status().message(); \
  } while (false)

class GpuVariants : public ::testing::TestWithParam<testing::Case> {};

TEST_P(GpuVariants, MatchFloat64Reference) {
  XCORR_SKIP_WITHOUT_GPU();
  const testing::Case& c = GetParam();
  const testing::CaseData data = testing::make_case_data(c);
  const CorrelationProblem p = data.problem(c);
  const Stack<double> ref = cpu::correlate_reference(p);  // once per case, for every variant
  int ran = 0;
  for (const auto& v : gpu_registry().all()) {
    if (!v->can_implement(p).is_ok()) continue;
    Stack<float> out =
        testing::poisoned_stack(p.output_shape().rows, p.output_shape().cols, p.output_count());
    const Status s = v->run(p, out.view());
    ASSERT_TRUE(s.is_ok()) << v->info().name << ": " << s.message();
    EXPECT_MATRIX_NEAR(out.view(), ref.view(), 1e-5) << v->info().name;
    ++ran;
  }
  EXPECT_GE(ran, 1) << "no GPU variant can run " << testing::case_name(c);
}

INSTANTIATE_TEST_SUITE_P(AllCases, GpuVariants, ::testing::ValuesIn(testing::gpu_cases()),
                         [](const auto& param_info) {
                           return testing::case_name(param_info.param);
                         });

TEST(GpuRegistry, HasTheGpuVariantsAndTheyExplainWhatTheyCannotDo) {
  XCORR_SKIP_WITHOUT_GPU();
  for (const char* name : {"gpu_basic", "gpu_fft"})
    EXPECT_NE(gpu_registry().find(name), nullptr) << name;
  const Stack<float> t(5, 5, 1, 1.0f), s(9, 9, 1, 1.0f);
  const CorrelationProblem zncc{
      {Form::one_to_one, Mode::valid, Normalization::zncc}, t.view(), s.view()};
  const Status st = gpu_registry().find("gpu_tiled_4x1")->can_implement(zncc);
  EXPECT_EQ(st.code(), ErrorCode::unsupported);
  EXPECT_NE(st.message().find("zncc"), std::string::npos) << st.message();
}

TEST(GpuTuning, PicksAMeasuredWinnerAndCachesItInAJsonFile) {
  XCORR_SKIP_WITHOUT_GPU();
  const std::string path = ::testing::TempDir() + "xcorr_tuning_test.json";
  std::remove(path.c_str());
  setenv("XCORR_TUNING_CACHE", path.c_str(), 1);
  const Stack<float> a = testing::random_stack(24, 24, 1, 3, 0, 1),
                     b = testing::random_stack(24, 24, 16, 4, 0, 1);
  const CorrelationProblem p{{Form::one_to_many, Mode::full}, a.view(), b.view()};
  const auto first = gpu::tuned_gpu_variant(gpu_registry(), p);
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  EXPECT_TRUE(gpu::is_gpu_variant(*first.value()));
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find(first.value()->info().name), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("one_to_many|full|none|24x24|24x24|1|16"), std::string::npos)
      << text.str();
  const auto second = gpu::tuned_gpu_variant(gpu_registry(), p);
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(second.value(), first.value()) << "the cached winner is reused";
}

// Repeated device-resident runs of one problem replay captured CUDA graphs (gpu_fft): the last
// run's result must equal the reference too, for every variant that can run `p`.
void expect_repeated_runs_match_reference(const CorrelationProblem& p) {
  const Stack<double> ref = cpu::correlate_reference(p);
  for (const auto& v : gpu_registry().all()) {
    if (!v->can_implement(p).is_ok()) continue;
    Stack<float> out =
        testing::poisoned_stack(p.output_shape().rows, p.output_shape().cols, p.output_count());
    const auto t = gpu::time_on_gpu(*v, p, 1, 4, out.view());
    ASSERT_TRUE(t.is_ok()) << v->info().name << ": " << t.status().message();
    EXPECT_MATRIX_NEAR(out.view(), ref.view(), 1e-5) << v->info().name;
  }
}

TEST(GpuVariants, RepeatedRunsStayCorrect) {
  XCORR_SKIP_WITHOUT_GPU();
  const Stack<float> a = testing::random_stack(37, 37, 2, 5, 0, 1),
                     b = testing::random_stack(37, 37, 3, 6, 0, 1);
  expect_repeated_runs_match_reference({{Form::n_to_m, Mode::full}, a.view(), b.view()});
}

TEST(GpuVariants, RepeatedZnccRunsStayCorrect) {
  XCORR_SKIP_WITHOUT_GPU();
  const testing::Case c{Form::n_to_mn, Mode::valid, Normalization::zncc, {21, 21}, {41, 41}, 8, 16};
  const testing::CaseData data = testing::make_case_data(c);
  expect_repeated_runs_match_reference(data.problem(c));
}

TEST(GpuTiming, ReportsOrderedTimes) {
  XCORR_SKIP_WITHOUT_GPU();
  const Stack<float> a = testing::random_stack(64, 64, 1, 1, 0, 1),
                     b = testing::random_stack(64, 64, 8, 2, 0, 1);
  const CorrelationProblem p{{Form::one_to_many, Mode::full}, a.view(), b.view()};
  const auto t = gpu::time_on_gpu(*gpu_registry().find("gpu_fft"), p, 2, 10);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  EXPECT_GT(t.value().kernel_min_ms, 0.0);
  EXPECT_LE(t.value().kernel_min_ms, t.value().kernel_median_ms);
  EXPECT_LE(t.value().kernel_median_ms, t.value().kernel_p90_ms);
  EXPECT_GT(t.value().e2e_median_ms, t.value().kernel_min_ms);
}

}  // namespace
}  // namespace xcorr
