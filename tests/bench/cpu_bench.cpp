// cpu_direct, cpu_fft and auto against OpenCV matchTemplate(TM_CCORR) doing the same work:
// full-mode correlation (output (2h-1)x(2w-1)) of one_to_one h x h and one_to_many 64x64 1x16.
// OpenCV gets the right matrix already zero-padded (its padding is not timed); ours is timed
// through run() into a preallocated output, and `auto` through correlate() (validation,
// allocation and choice included). Both use all hardware threads.
// Run: build/dev/tests/bench/xcorr_cpu_bench --benchmark_out=bench.json --benchmark_out_format=json
//      python3 scripts/bench_table.py bench.json
#include <benchmark/benchmark.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "core/registry.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/matrix_testing.hpp"

namespace {

using namespace xcorr;

struct Inputs {
  Stack<float> left, right;
  CorrelationProblem problem() const {
    return {{right.count() == 1 ? Form::one_to_one : Form::one_to_many, Mode::full},
            left.view(),
            right.view()};
  }
};

Inputs make_inputs(Index n, Index count) {
  return {xcorr::testing::random_stack(n, n, 1, 1), xcorr::testing::random_stack(n, n, count, 2)};
}

void bench_variant(benchmark::State& state, Index n, Index count, const std::string& name) {
  const Inputs in = make_inputs(n, count);
  const CorrelationProblem p = in.problem();
  Stack<float> out(p.output_shape().rows, p.output_shape().cols, p.output_count());
  const Correlator* v = xcorr::testing::cpu_registry().find(name);
  for (auto _ : state) {
    benchmark::DoNotOptimize(v->run(p, out.view()));
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPs"] = benchmark::Counter(2 * p.direct_multiply_adds(),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void bench_auto(benchmark::State& state, Index n, Index count) {
  const Inputs in = make_inputs(n, count);
  const CorrelationProblem p = in.problem();
  std::string chosen;
  for (auto _ : state) {
    auto r = correlate(xcorr::testing::cpu_registry(), p);
    chosen = r.value().variant;
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(chosen);
}

void bench_opencv(benchmark::State& state, Index n, Index count) {
  const Inputs in = make_inputs(n, count);
  const int h = static_cast<int>(n);
  const cv::Mat left(h, h, CV_32F, const_cast<float*>(in.left.data()));
  std::vector<cv::Mat> padded_rights;
  for (Index i = 0; i < count; ++i) {
    cv::Mat r(h, h, CV_32F, const_cast<float*>(in.right[i].data)), padded;
    cv::copyMakeBorder(r, padded, h - 1, h - 1, h - 1, h - 1, cv::BORDER_CONSTANT, 0);
    padded_rights.push_back(padded);
  }
  cv::Mat result;
  for (auto _ : state) {
    for (const cv::Mat& pr : padded_rights) {
      cv::matchTemplate(pr, left, result, cv::TM_CCORR);  // (2h-1) x (2h-1): the full correlation
      benchmark::DoNotOptimize(result.data);
    }
  }
}

void register_case(const std::string& label, Index n, Index count) {
  benchmark::RegisterBenchmark((label + "/opencv").c_str(), bench_opencv, n, count)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  if (n <= 256) {  // 512 x 512 direct is ~7e10 multiply-adds: tens of seconds
    benchmark::RegisterBenchmark((label + "/cpu_direct").c_str(), bench_variant, n, count,
                                 std::string("cpu_direct"))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark((label + "/cpu_fft").c_str(), bench_variant, n, count,
                               std::string("cpu_fft"))
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark((label + "/auto").c_str(), bench_auto, n, count)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  for (Index n : {16, 32, 64, 128, 256, 512})
    register_case("one_to_one/" + std::to_string(n) + "x" + std::to_string(n), n, 1);
  register_case("one_to_many/64x64x16", 64, 16);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
