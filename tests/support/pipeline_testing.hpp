// The DIC stack pipeline against the sequential run: one frame's results taken later
// (DicSession::start) must equal next()'s bit for bit. Shared by the CPU test
// (tests/core/dic/dic_test.cpp) and the GPU one (tests/gpu/dic_gpu_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/dic/session.hpp"
#include "core/synth/speckle.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::testing {

// Speckle of 200 x 200 px whose points travel 4-5 px right and 1.5-2.5 px up a frame (fresh each
// run), 7 frames, with a small ROI and options whose work window grows as they go: the stack the
// pipeline's tests run.
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
  std::mt19937_64 g(run_seed() ^ 0x919e);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  const double ux = 4.5 + u(g), vy = -2.0 + u(g);
  TravellingStack t;
  t.reference = synth::render_speckle_field(s, synth::translation_field(0, 0), 0);
  for (int k = 1; k <= 7; ++k)
    t.frames.push_back(synth::render_speckle_field(s, synth::translation_field(ux * k, vy * k),
                                                   static_cast<std::uint64_t>(k)));
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

// `frames` through two sessions of `registrar`: next() frame by frame, and start() of every
// frame before any result is taken (the session's finishing slots are reused while earlier
// frames are still held). Expects the same results bit for bit and the same window after; returns
// the sequential session's windows before and after, for the caller's checks.
inline std::pair<dic::Window, dic::Window> expect_pipeline_equals_sequential(
    dic::FrameRegistrar& registrar, MatrixView<const float> reference,
    const std::vector<Stack<float>>& frames, const dic::Roi& roi, const dic::DicOptions& o) {
  auto sequential = dic::DicSession::create(registrar, reference, roi, o);
  EXPECT_TRUE(sequential.is_ok()) << sequential.status().message();
  if (!sequential.is_ok()) return {};
  const dic::Window first = sequential.value().window();
  std::vector<dic::FrameResult> expected;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    auto r = sequential.value().next(frames[k][0], static_cast<Index>(k + 1));
    EXPECT_TRUE(r.is_ok()) << r.status().message();
    if (!r.is_ok()) return {};
    expected.push_back(std::move(r).value());
  }
  auto pipelined = dic::DicSession::create(registrar, reference, roi, o);
  EXPECT_TRUE(pipelined.is_ok());
  if (!pipelined.is_ok()) return {};
  std::vector<dic::PendingFrame> pending;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    auto p = pipelined.value().start(frames[k][0], static_cast<Index>(k + 1));
    EXPECT_TRUE(p.is_ok()) << p.status().message();
    if (!p.is_ok()) return {};
    pending.push_back(std::move(p).value());
  }
  EXPECT_EQ(pipelined.value().window(), sequential.value().window());
  for (std::size_t k = 0; k < frames.size(); ++k)
    EXPECT_GE(expect_same_frame(pending[k].get(), expected[k]), 20) << "frame " << k + 1;
  return {first, sequential.value().window()};
}

}  // namespace xcorr::testing
