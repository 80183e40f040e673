// cpu_direct, cpu_fft and auto against OpenCV matchTemplate doing the same work:
//  - full mode (TM_CCORR, output (2h-1)x(2w-1)): one_to_one h x h and one_to_many 64x64 1x16;
//    OpenCV gets the right matrix already zero-padded (its padding is not timed);
//  - valid-mode ZNCC (TM_CCOEFF_NORMED): whole frames (32 in 512^2, 64 and 128 in 2048^2) and
//    DIC-shaped pairs (template t in a (t + 20)^2 window, 1000 pairs; OpenCV: one call per pair);
//  - the same as peak output (ours: the engine's peak request; OpenCV: matchTemplate + minMaxLoc).
// Ours is timed through run() into a preallocated output, and `auto` through correlate()
// (validation, allocation and choice included). Both use all hardware threads.
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

// Valid-mode ZNCC: `pairs` templates t x t, each in its own window w x w (n_to_mn; one_to_one
// when pairs == 1), as surfaces or peaks.
struct ZnccInputs {
  Stack<float> templates, windows;
  CorrelationProblem problem(Output output) const {
    return {{windows.count() == 1 ? Form::one_to_one : Form::n_to_mn, Mode::valid,
             Normalization::zncc, output, SubpixelMethod::quadratic2d},
            templates.view(),
            windows.view()};
  }
};

ZnccInputs make_zncc_inputs(Index t, Index w, Index pairs) {
  return {xcorr::testing::random_stack(t, t, pairs, 3, 0, 1),
          xcorr::testing::random_stack(w, w, pairs, 4, 0, 1)};
}

void bench_zncc_variant(benchmark::State& state, Index t, Index w, Index pairs, Output output,
                        const std::string& name) {
  const ZnccInputs in = make_zncc_inputs(t, w, pairs);
  const CorrelationProblem p = in.problem(output);
  Stack<float> out(p.output_shape().rows, p.output_shape().cols, p.output_count());
  const Correlator* v = xcorr::testing::cpu_registry().find(name);
  for (auto _ : state) {
    benchmark::DoNotOptimize(v->run(p, out.view()));
    benchmark::ClobberMemory();
  }
}

void bench_zncc_auto(benchmark::State& state, Index t, Index w, Index pairs, Output output) {
  const ZnccInputs in = make_zncc_inputs(t, w, pairs);
  const CorrelationProblem p = in.problem(output);
  std::string chosen;
  for (auto _ : state) {
    auto r = correlate(xcorr::testing::cpu_registry(), p);
    chosen = r.value().variant;
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(chosen);
}

void bench_zncc_opencv(benchmark::State& state, Index t, Index w, Index pairs, Output output) {
  const ZnccInputs in = make_zncc_inputs(t, w, pairs);
  const int ti = static_cast<int>(t), wi = static_cast<int>(w);
  cv::Mat result;
  for (auto _ : state) {
    for (Index k = 0; k < pairs; ++k) {
      const cv::Mat tm(ti, ti, CV_32F, const_cast<float*>(in.templates[k].data));
      const cv::Mat wm(wi, wi, CV_32F, const_cast<float*>(in.windows[k].data));
      cv::matchTemplate(wm, tm, result, cv::TM_CCOEFF_NORMED);
      if (output == Output::peak) {
        double best = 0;
        cv::Point at;
        cv::minMaxLoc(result, nullptr, &best, nullptr, &at);
        benchmark::DoNotOptimize(at);
      }
      benchmark::DoNotOptimize(result.data);
    }
  }
}

void register_zncc_case(Index t, Index w, Index pairs, Output output) {
  const std::string label = std::string(output == Output::peak ? "peak/" : "zncc/") +
                            std::to_string(t) + "in" + std::to_string(w) + "x" +
                            std::to_string(pairs);
  auto reg = [](const std::string& name, auto fn, auto... args) {
    benchmark::RegisterBenchmark(name.c_str(), fn, args...)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  };
  reg(label + "/opencv", bench_zncc_opencv, t, w, pairs, output);
  if (t * t * (w - t + 1) * (w - t + 1) * pairs < 2e10)
    reg(label + "/cpu_direct", bench_zncc_variant, t, w, pairs, output, std::string("cpu_direct"));
  reg(label + "/cpu_fft", bench_zncc_variant, t, w, pairs, output, std::string("cpu_fft"));
  reg(label + "/auto", bench_zncc_auto, t, w, pairs, output);
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
  for (Output output : {Output::surface, Output::peak}) {
    register_zncc_case(32, 512, 1, output);
    register_zncc_case(64, 2048, 1, output);
    register_zncc_case(128, 2048, 1, output);
    for (Index t : {21, 31, 41}) register_zncc_case(t, t + 20, 1000, output);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
