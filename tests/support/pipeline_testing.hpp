// The DIC stack pipeline against the sequential run: one frame's results taken later
// (DicSession::start) must equal next()'s bit for bit. Shared by the CPU test
// (tests/core/dic/dic_test.cpp) and the GPU one (tests/gpu/dic_gpu_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/dic/session.hpp"
#include "core/synth/speckle.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::testing {

// Speckle of 200 x 200 px whose points travel 4-5 px right and 1.5-2.5 px up a frame (fresh each
// run), 7 frames with camera noise and a missing (NaN) pixel each, with a small ROI and options
// whose work window grows as they go: the stack the pipeline's tests run.
struct TravellingStack {
  Stack<float> reference;
  std::vector<Stack<float>> frames;
  dic::Roi roi;
  dic::DicOptions options;
};
inline TravellingStack travelling_stack(std::uint32_t pattern_seed, double speckle_radius) {
  synth::SpeckleOptions s;
  s.rows = s.cols = 200;
  s.speckle_radius = speckle_radius;
  s.seed = pattern_seed;
  s.noise_sigma = 500;  // 1 % of the grey range: a tight max_deviation then makes suspects
  std::mt19937_64 g(run_seed() ^ 0x919e);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  const double ux = 4.5 + u(g), vy = -2.0 + u(g);
  TravellingStack t;
  t.reference = synth::render_speckle_field(s, synth::translation_field(0, 0), 0);
  for (int k = 1; k <= 7; ++k) {
    t.frames.push_back(synth::render_speckle_field(s, synth::translation_field(ux * k, vy * k),
                                                   static_cast<std::uint64_t>(k)));
    // A missing pixel that moves from frame to frame, among the matches (missing_data points).
    t.frames.back()[0].data[(80 - 2 * k) * 200 + 75 + 5 * k] = std::nanf("");
  }
  t.roi.shapes.push_back(dic::parse_roi_shape("rect:60,70,50,40").value());
  t.options.subset = 21;
  t.options.step = 6;
  t.options.search_radius = 5;
  return t;
}

// Bitwise: NaN equals NaN, -0 differs from 0.
inline bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Every field of every point, bit for bit; returns the converged points.
inline int expect_same_frame(const dic::FrameResult& got, const dic::FrameResult& want) {
  using dic::PointResult;
  EXPECT_EQ(got.frame, want.frame);
  EXPECT_EQ(got.points.size(), want.points.size());
  if (got.points.size() != want.points.size()) return 0;
  int converged = 0;
  for (std::size_t i = 0; i < want.points.size(); ++i) {
    const PointResult &a = got.points[i], &b = want.points[i];
    const std::string where = "frame " + std::to_string(want.frame) + " point " + std::to_string(i);
    EXPECT_EQ(a.status, b.status) << where;
    EXPECT_EQ(a.iterations, b.iterations) << where;
    for (const auto m : {&PointResult::x, &PointResult::y, &PointResult::u, &PointResult::v,
                         &PointResult::ux, &PointResult::uy, &PointResult::vx, &PointResult::vy,
                         &PointResult::exx, &PointResult::eyy, &PointResult::exy,
                         &PointResult::zncc, &PointResult::sigma_u, &PointResult::sigma_v}) {
      if (!same_bits(a.*m, b.*m)) {
        ADD_FAILURE() << where << ": " << a.*m << " against " << b.*m;
        return converged;
      }
    }
    converged += a.status == dic::PointStatus::converged ? 1 : 0;
  }
  return converged;
}

// What a session handed a registrar: preloads, and the calls that registered a preloaded frame
// (of which `taken`: those the registrar says it took from the preload).
struct PreloadCounts {
  int preloads = 0, preloaded_calls = 0, taken = 0;
};

// A registrar that counts into `counts` (and forwards everything to `inner`); `took_preload`,
// when given, is asked after each call that registered a preloaded frame whether the registrar
// really used the preload (a GPU registrar's stages). `run_ahead`: lets sessions register the
// next frame ahead with it (FrameRegistrar::may_run_ahead) whatever `inner` says: a CPU
// registrar then checks the session's side of it.
class CountingRegistrar final : public dic::ForwardingRegistrar {
 public:
  CountingRegistrar(dic::FrameRegistrar& inner, PreloadCounts& counts,
                    std::function<bool()> took_preload = {}, bool run_ahead = false)
      : ForwardingRegistrar(inner),
        counts_(counts),
        took_preload_(std::move(took_preload)),
        run_ahead_(run_ahead) {}
  bool may_run_ahead() const override { return run_ahead_ || inner().may_run_ahead(); }
  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions& o) override {
    auto r = inner().register_frame(in, o);
    if (r.is_ok() && in.deformed_preloaded) {
      ++counts_.preloaded_calls;
      if (took_preload_ && took_preload_()) ++counts_.taken;
    }
    return r;
  }
  void preload(MatrixView<const float> deformed, const dic::DicOptions& o) override {
    ++counts_.preloads;
    inner().preload(deformed, o);
  }

 private:
  PreloadCounts& counts_;
  std::function<bool()> took_preload_;
  bool run_ahead_ = false;
};

// What expect_pipeline_equals_sequential saw: the sequential session's windows before and after;
// in the run with each next frame handed over early, the suspects registered a second time, the
// registrar's calls on a preloaded frame (CountingRegistrar), the frames registered ahead and
// their points registered again (dic::FrameTimes).
struct PipelineRun {
  dic::Window first, last;
  std::size_t suspects = 0, ahead = 0, again = 0;
  int preloaded = 0, taken = 0;
};

// `frames` through three sessions of `registrar`: next() frame by frame; start() of every frame
// before any result is taken (the session's finishing slots are reused while earlier frames are
// still held); and start() with each next frame handed over early (dic::UpcomingFrame, through a
// CountingRegistrar with `took_preload` and `run_ahead`). Expects the same results bit for bit
// and the same window after, a preload for every frame but the first, and at least
// `min_converged` converged points a frame.
inline PipelineRun expect_pipeline_equals_sequential(
    dic::FrameRegistrar& registrar, MatrixView<const float> reference,
    const std::vector<Stack<float>>& frames, const dic::Roi& roi, const dic::DicOptions& o,
    std::function<bool()> took_preload = {}, int min_converged = 20, bool run_ahead = false) {
  PipelineRun run;
  auto sequential = dic::DicSession::create(registrar, reference, roi, o);
  EXPECT_TRUE(sequential.is_ok()) << sequential.status().message();
  if (!sequential.is_ok()) return run;
  run.first = sequential.value().window();
  std::vector<dic::FrameResult> expected;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    auto r = sequential.value().next(frames[k][0], static_cast<Index>(k + 1));
    EXPECT_TRUE(r.is_ok()) << r.status().message();
    if (!r.is_ok()) return run;
    expected.push_back(std::move(r).value());
  }
  run.last = sequential.value().window();
  auto pipelined = dic::DicSession::create(registrar, reference, roi, o);
  EXPECT_TRUE(pipelined.is_ok());
  if (!pipelined.is_ok()) return run;
  std::vector<dic::PendingFrame> pending;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    auto p = pipelined.value().start(frames[k][0], static_cast<Index>(k + 1));
    EXPECT_TRUE(p.is_ok()) << p.status().message();
    if (!p.is_ok()) return run;
    pending.push_back(std::move(p).value());
  }
  EXPECT_EQ(pipelined.value().window(), run.last);
  for (std::size_t k = 0; k < frames.size(); ++k)
    EXPECT_GE(expect_same_frame(pending[k].get(), expected[k]), min_converged) << "frame " << k + 1;

  PreloadCounts counts;
  CountingRegistrar counting(registrar, counts, std::move(took_preload), run_ahead);
  auto ahead = dic::DicSession::create(counting, reference, roi, o);
  EXPECT_TRUE(ahead.is_ok());
  if (!ahead.is_ok()) return run;
  pending.clear();
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const dic::UpcomingFrame upcoming = [&frames, k]() -> dic::Upcoming {
      if (k + 1 >= frames.size()) return {};
      return {static_cast<Index>(k + 2), frames[k + 1][0]};
    };
    auto p = ahead.value().start(frames[k][0], static_cast<Index>(k + 1), {}, upcoming);
    EXPECT_TRUE(p.is_ok()) << p.status().message();
    if (!p.is_ok()) return run;
    run.suspects += ahead.value().last_times().suspects;
    run.ahead += ahead.value().last_times().ahead;
    run.again += ahead.value().last_times().again;
    pending.push_back(std::move(p).value());
  }
  EXPECT_EQ(ahead.value().window(), run.last);
  for (std::size_t k = 0; k < frames.size(); ++k)
    EXPECT_GE(expect_same_frame(pending[k].get(), expected[k]), min_converged)
        << "frame " << k + 1 << ", handed over early";
  EXPECT_EQ(counts.preloads, static_cast<int>(frames.size()) - 1);
  run.preloaded = counts.preloaded_calls;
  run.taken = counts.taken;
  return run;
}

}  // namespace xcorr::testing
