// The DIC stack pipeline against the sequential run: one frame's results taken later
// (DicSession::start) must equal next()'s bit for bit. Shared by the CPU test
// (tests/core/dic/dic_test.cpp) and the GPU one (tests/gpu/dic_gpu_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/dic/session.hpp"

namespace xcorr::testing {

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
