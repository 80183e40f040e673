// Every registered GPU variant x form x mode/normalisation x size (1x1 to 511x511, odd, prime,
// not multiples of 32) against cpu_reference (float64) on fresh seeded data, with device outputs
// poisoned with NaN: relative L2 error <= 1e-5 and every element written. CTest label gpu;
// skips where no CUDA device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/cpu/cpu_variants.hpp"
#include "core/engine/engine.hpp"
#include "gpu/device.hpp"
#include "gpu/engine.hpp"
#include "tests/support/accuracy_testing.hpp"
#include "tests/support/correlation_cases.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/peak_testing.hpp"

namespace xcorr {
namespace {

const Registry& gpu_registry() {
  static const Registry r = [] {
    Registry reg;
    gpu::add_gpu_variants(reg);
    gpu::set_poison_outputs(true);
    return reg;
  }();
  return r;
}

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

// Peak output (every valid-mode case, every refinement): every GPU variant, the fused search and
// the surface-plus-reduction path alike, against the float64 reference's records.
class GpuPeaks : public ::testing::TestWithParam<testing::Case> {};

TEST_P(GpuPeaks, MatchFloat64Reference) {
  XCORR_SKIP_WITHOUT_GPU();
  const testing::Case& c = GetParam();
  const testing::CaseData data = testing::make_case_data(c);
  const CorrelationProblem p = data.problem(c);
  int ran = 0;
  for (const auto& v : gpu_registry().all()) {
    if (!v->can_implement(p).is_ok()) continue;
    Stack<float> out = testing::poisoned_stack(1, kPeakFields, p.output_count());
    const Status s = v->run(p, out.view());
    ASSERT_TRUE(s.is_ok()) << v->info().name << ": " << s.message();
    EXPECT_PEAKS_NEAR(out.view(), p) << v->info().name;
    ++ran;
  }
  EXPECT_GE(ran, 1) << "no GPU variant can run " << testing::case_name(c);
}

INSTANTIATE_TEST_SUITE_P(AllValidCases, GpuPeaks,
                         ::testing::ValuesIn(testing::as_peak_cases(testing::gpu_cases())),
                         [](const auto& param_info) {
                           return testing::case_name(param_info.param);
                         });

// Every value combination of every parameterised GPU variant (for compile-time parameters: every
// template instantiation) runs and matches the reference on odd, non-square problems of each form
// it supports.
TEST(GpuParameters, EveryRegisteredCombinationIsInstantiatedAndCorrect) {
  XCORR_SKIP_WITHOUT_GPU();
  const std::vector<testing::Case> cases = {
      {Form::one_to_one, Mode::full, Normalization::none, {37, 29}, {37, 29}, 1, 1},
      {Form::one_to_many, Mode::valid, Normalization::none, {7, 5}, {33, 30}, 1, 7},
      {Form::n_to_m, Mode::full, Normalization::none, {19, 23}, {19, 23}, 3, 5},
      {Form::n_to_m, Mode::valid, Normalization::none, {13, 11}, {40, 37}, 5, 3},
      {Form::n_to_mn, Mode::full, Normalization::none, {23, 31}, {23, 31}, 2, 6},
      {Form::one_to_many, Mode::valid, Normalization::zncc, {7, 5}, {33, 30}, 1, 7},
      {Form::n_to_m, Mode::valid, Normalization::zncc, {13, 11}, {40, 37}, 5, 3},
      {Form::n_to_mn, Mode::valid, Normalization::zncc, {9, 9}, {21, 19}, 3, 6, Output::peak},
  };
  std::vector<testing::CaseData> data;
  std::vector<Stack<double>> refs;
  for (const auto& c : cases) {
    data.push_back(testing::make_case_data(c));
    refs.push_back(cpu::correlate_reference(data.back().problem(c)));
  }
  int combinations = 0, parameterised = 0;
  for (const auto& v : gpu_registry().all()) {
    if (v->info().params.empty()) continue;
    ++parameterised;
    std::size_t expected = 1;
    for (const Param& prm : v->info().params) expected *= prm.values.size();
    const auto all = all_param_combinations(v->info().params);
    ASSERT_EQ(all.size(), expected);
    for (const ParamValues& values : all) {
      const std::string label =
          v->info().name + "[" + format_params(v->info().params, values) + "]";
      auto configured = v->with_params(values);
      ASSERT_TRUE(configured.is_ok()) << label << ": " << configured.status().message();
      EXPECT_EQ(configured.value()->params(), values) << label;
      int ran = 0;
      for (std::size_t k = 0; k < cases.size(); ++k) {
        const CorrelationProblem p = data[k].problem(cases[k]);
        if (!configured.value()->can_implement(p).is_ok()) continue;
        Stack<float> out =
            testing::poisoned_stack(p.output_shape().rows, p.output_shape().cols, p.output_count());
        const Status s = configured.value()->run(p, out.view());
        ASSERT_TRUE(s.is_ok()) << label << ": " << s.message();
        if (p.request.output == Output::peak) {
          EXPECT_PEAKS_NEAR(out.view(), p) << label << " on " << testing::case_name(cases[k]);
        } else {
          EXPECT_MATRIX_NEAR(out.view(), refs[k].view(), 1e-5)
              << label << " on " << testing::case_name(cases[k]);
        }
        ++ran;
      }
      EXPECT_GE(ran, 2) << label;
      ++combinations;
    }
  }
  EXPECT_GE(parameterised, 8) << "the warp-shuffle family and gpu_zncc_tiled have parameters";
  std::printf("[ params   ] %d combinations of %d parameterised variants ran\n", combinations,
              parameterised);
}

TEST(GpuParameters, UnknownNamesAndValuesAreRefusedByName) {
  XCORR_SKIP_WITHOUT_GPU();
  const Correlator* v = gpu_registry().find("gpu_warp_shuffle_multirow_both");
  ASSERT_NE(v, nullptr);
  const auto bad_value = v->with_params({{"shifts_per_thread", 3}});
  ASSERT_FALSE(bad_value.is_ok());
  EXPECT_NE(bad_value.status().message().find("shifts_per_thread=3 is not one of 2,4"),
            std::string::npos)
      << bad_value.status().message();
  const auto bad_name = v->with_params({{"tile", 2}});
  ASSERT_FALSE(bad_name.is_ok());
  EXPECT_NE(bad_name.status().message().find("no parameter 'tile'"), std::string::npos)
      << bad_name.status().message();
}

// Work larger than the device memory budget runs in slices of outputs (one_to_many: rights,
// n_to_mn: pairs in multiples of the lefts, n_to_m: lefts) and still matches the reference;
// what cannot be split (one_to_one) gets a clear error.
TEST(GpuMemory, WorkLargerThanTheBudgetRunsInSlices) {
  XCORR_SKIP_WITHOUT_GPU();
  struct Reset {
    ~Reset() { gpu::set_device_memory_limit(0); }
  } reset;
  // Each case with a budget below its whole run but above its smallest slice. The peak case
  // needs more: a slice is a multiple of the 3 lefts, and the ZNCC epilogue and the peak
  // search's surfaces cost about 37 KiB per window in gpu_fft.
  struct Sliced {
    testing::Case c;
    std::size_t budget;  // bytes
  };
  const std::vector<Sliced> cases = {
      {{Form::one_to_many, Mode::full, Normalization::none, {21, 19}, {21, 19}, 1, 23}, 64 << 10},
      {{Form::n_to_mn, Mode::full, Normalization::none, {17, 17}, {17, 17}, 3, 27}, 64 << 10},
      {{Form::n_to_m, Mode::valid, Normalization::none, {9, 7}, {41, 44}, 11, 4}, 64 << 10},
      {{Form::n_to_m, Mode::valid, Normalization::zncc, {9, 7}, {41, 44}, 11, 4}, 64 << 10},
      {{Form::n_to_mn, Mode::valid, Normalization::zncc, {9, 9}, {40, 40}, 3, 60, Output::peak},
       192 << 10},
  };
  for (const auto& [c, budget] : cases) {
    gpu::set_device_memory_limit(budget);
    const testing::CaseData data = testing::make_case_data(c);
    const CorrelationProblem p = data.problem(c);
    const double bytes =
        4.0 * static_cast<double>(p.surface_shape().area() * p.output_count());  // surfaces
    ASSERT_GT(bytes, static_cast<double>(budget)) << "the case must exceed the budget";
    const Stack<double> ref = cpu::correlate_reference(p);
    for (const char* name :
         {"gpu_basic", "gpu_fft", "gpu_fft_shared", "gpu_tiled_4x1", "gpu_zncc_tiled"}) {
      const Correlator* v = gpu_registry().find(name);  // gpu_fft: absent under forced PTX JIT
      if (v == nullptr || !v->can_implement(p).is_ok()) continue;
      Stack<float> out =
          testing::poisoned_stack(p.output_shape().rows, p.output_shape().cols, p.output_count());
      const Status s = v->run(p, out.view());
      ASSERT_TRUE(s.is_ok()) << name << ": " << s.message();
      if (p.request.output == Output::peak) {
        EXPECT_PEAKS_NEAR(out.view(), p) << name << " " << testing::case_name(c);
      } else {
        EXPECT_MATRIX_NEAR(out.view(), ref.view(), 1e-5) << name << " " << testing::case_name(c);
      }
    }
  }
  gpu::set_device_memory_limit(64 << 10);
  const Stack<float> big = testing::random_stack(128, 128, 1, 7, 0, 1);
  const CorrelationProblem one{{Form::one_to_one, Mode::full}, big.view(), big.view()};
  Stack<float> out(255, 255, 1);
  const Status s = gpu_registry().find("gpu_basic")->run(one, out.view());
  EXPECT_EQ(s.code(), ErrorCode::out_of_memory);
  EXPECT_NE(s.message().find("too little GPU memory"), std::string::npos) << s.message();
}

// Strided host views (a sub-stack of every other row) go through the pinned staging unchanged.
TEST(GpuMemory, StridedHostViewsRoundTrip) {
  XCORR_SKIP_WITHOUT_GPU();
  const Stack<float> a = testing::random_stack(30, 26, 2, 8, 0, 1);
  const Stack<float> b = testing::random_stack(30, 26, 3, 9, 0, 1);
  StackView<const float> strided = b.view();
  strided.rows = 15;
  strided.row_stride *= 2;  // every other row
  StackView<const float> left = a.view();
  left.rows = 15;
  const CorrelationProblem p{{Form::n_to_m, Mode::full}, left, strided};
  const Stack<double> ref = cpu::correlate_reference(p);
  Stack<float> big_out = testing::poisoned_stack(29 * 2, 51, 6);
  StackView<float> out = big_out.view();
  out.rows = 29;
  out.row_stride *= 2;  // every other row of a larger output
  const Correlator* fft = gpu_registry().find("gpu_fft");
  if (fft == nullptr) {
    GTEST_SKIP() << "no gpu_fft: cuFFT cannot plan here (forced PTX JIT)";
  }
  const Status s = fft->run(p, out);
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_MATRIX_NEAR(StackView<const float>(out), ref.view(), 1e-5);
}

TEST(GpuRegistry, HasTheGpuVariantsAndTheyExplainWhatTheyCannotDo) {
  XCORR_SKIP_WITHOUT_GPU();
  for (const char* name : {"gpu_basic", "gpu_fft_shared", "gpu_small_direct"})
    EXPECT_NE(gpu_registry().find(name), nullptr) << name;
  // gpu_fft is left out only where cuFFT cannot plan (gpu/add_variants.cu: forced PTX JIT).
  const char* forced = std::getenv("CUDA_FORCE_PTX_JIT");
  if (forced == nullptr || std::string(forced) != "1") {
    EXPECT_NE(gpu_registry().find("gpu_fft"), nullptr);
  }
  if (gpu_registry().find("gpu_fft") == nullptr) {
    GTEST_SKIP() << "no gpu_fft: cuFFT cannot plan";
  }
  const Correlator* fused = gpu_registry().find("gpu_zncc_tiled");
  ASSERT_NE(fused, nullptr);
  const Stack<float> t(5, 5, 1, 1.0f), s(9, 9, 1, 1.0f);
  const CorrelationProblem plain{{Form::one_to_one, Mode::valid}, t.view(), s.view()};
  const Status st = fused->can_implement(plain);
  EXPECT_EQ(st.code(), ErrorCode::unsupported);
  EXPECT_NE(st.message().find("normalization none"), std::string::npos) << st.message();
  // A template whose tile does not fit in shared memory is refused by name, and gpu_fft runs it.
  const Stack<float> big_t(200, 200, 1, 1.0f), big_s(210, 210, 1, 1.0f);
  const CorrelationProblem big{
      {Form::one_to_one, Mode::valid, Normalization::zncc}, big_t.view(), big_s.view()};
  const Status too_big = fused->can_implement(big);
  EXPECT_EQ(too_big.code(), ErrorCode::unsupported);
  EXPECT_NE(too_big.message().find("KiB of shared memory"), std::string::npos) << too_big.message();
  EXPECT_TRUE(gpu_registry().find("gpu_fft")->can_implement(big).is_ok());
  // The on-chip FFT and the small direct kernel refuse what does not fit, saying what.
  const Status no_fft = gpu_registry().find("gpu_fft_shared")->can_implement(big);
  EXPECT_EQ(no_fft.code(), ErrorCode::unsupported);
  EXPECT_NE(no_fft.message().find("128 x 128"), std::string::npos) << no_fft.message();
  const Status no_small = gpu_registry().find("gpu_small_direct")->can_implement(big);
  EXPECT_EQ(no_small.code(), ErrorCode::unsupported);
  EXPECT_NE(no_small.message().find("48 KiB"), std::string::npos) << no_small.message();
}

TEST(GpuTuning, PicksAMeasuredWinnerAndCachesItInAJsonFile) {
  XCORR_SKIP_WITHOUT_GPU();
  const std::string path = ::testing::TempDir() + "xcorr_tuning_test.json";
  std::remove(path.c_str());
  setenv("XCORR_TUNING_CACHE", path.c_str(), 1);
  engine::install_gpu();  // the facade's tuning times through the installed backend
  const Stack<float> a = testing::random_stack(24, 24, 1, 3, 0, 1),
                     b = testing::random_stack(24, 24, 16, 4, 0, 1);
  const CorrelationProblem p{{Form::one_to_many, Mode::full}, a.view(), b.view()};
  const auto first = engine::tuned_gpu_variant(gpu_registry(), p);
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  EXPECT_TRUE(gpu::is_gpu_variant(*first.value()));
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find(first.value()->info().name), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("one_to_many|full|none|24x24|24x24|1|16"), std::string::npos)
      << text.str();
  const auto second = engine::tuned_gpu_variant(gpu_registry(), p);
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(second.value(), first.value()) << "the cached winner is reused";
}

// Repeated device-resident runs of one problem replay captured CUDA graphs (gpu_fft,
// gpu_fft_fused): the last run's result must equal the reference too, for every variant that can
// run `p`.
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
  // One pair (gpu_fft_fused transforms its columns per pair; 139 -> 256 transforms).
  const Stack<float> c = testing::random_stack(70, 70, 1, 7, 0, 1),
                     d = testing::random_stack(70, 70, 1, 8, 0, 1);
  expect_repeated_runs_match_reference({{Form::one_to_one, Mode::full}, c.view(), d.view()});
}

TEST(GpuVariants, RepeatedZnccRunsStayCorrect) {
  XCORR_SKIP_WITHOUT_GPU();
  const testing::Case c{Form::n_to_mn, Mode::valid, Normalization::zncc, {21, 21}, {41, 41}, 8, 16};
  const testing::CaseData data = testing::make_case_data(c);
  expect_repeated_runs_match_reference(data.problem(c));
}

// Every GPU variant meets the bound docs/formats.md states for it (per element for direct sums,
// relative to the largest output for FFT paths) on nonnegative inputs, uniform and over six
// decades; the measured numbers are printed ("[ accuracy ]" lines).
TEST(GpuAccuracy, EveryVariantMeetsItsStatedBound) {
  XCORR_SKIP_WITHOUT_GPU();
  for (const auto& v : gpu_registry().all()) {
    const auto& norms = v->info().norms;
    const bool plain = std::find(norms.begin(), norms.end(), Normalization::none) != norms.end();
    const int checked = testing::expect_stated_accuracy(*v);
    if (!plain || checked >= 4) continue;
    // Fewer cases only where the variant does not fit this GPU's shared memory (an emulated T4:
    // gpu_fft_fused's smallest transform needs 66 KiB a block), and it says so.
    const Stack<float> a(10, 10, 1, 1.0f), b(10, 10, 1, 1.0f);
    const Status s = v->can_implement({{Form::one_to_one, Mode::full}, a.view(), b.view()});
    EXPECT_NE(s.message().find("KiB of shared memory per block"), std::string::npos)
        << v->info().name << " checked on " << checked << " cases: " << s.message();
  }
}

TEST(GpuTiming, ReportsOrderedTimes) {
  XCORR_SKIP_WITHOUT_GPU();
  const Stack<float> a = testing::random_stack(64, 64, 1, 1, 0, 1),
                     b = testing::random_stack(64, 64, 8, 2, 0, 1);
  const CorrelationProblem p{{Form::one_to_many, Mode::full}, a.view(), b.view()};
  const Correlator* timed = gpu_registry().find("gpu_fft");
  if (timed == nullptr) timed = gpu_registry().find("gpu_basic");  // forced PTX JIT: no cuFFT
  const auto t = gpu::time_on_gpu(*timed, p, 2, 10);
  ASSERT_TRUE(t.is_ok()) << t.status().message();
  EXPECT_GT(t.value().kernel_min_ms, 0.0);
  EXPECT_LE(t.value().kernel_min_ms, t.value().kernel_median_ms);
  EXPECT_LE(t.value().kernel_median_ms, t.value().kernel_p90_ms);
  EXPECT_GT(t.value().e2e_median_ms, t.value().kernel_min_ms);
}

}  // namespace
}  // namespace xcorr
