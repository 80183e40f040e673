#include "tests/support/matrix_testing.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>

namespace xcorr::testing {

std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    std::uint64_t s = 0;
    if (const char* env = std::getenv("XCORR_TEST_SEED")) {
      s = std::strtoull(env, nullptr, 10);
    } else {
      std::random_device rd;
      s = (static_cast<std::uint64_t>(rd()) << 32) | rd();
    }
    std::cout << "[ seed     ] XCORR_TEST_SEED=" << s << " reproduces this run\n";
    return s;
  }();
  return seed;
}

Stack<float> random_stack(Index rows, Index cols, Index count, std::uint64_t stream, float lo,
                          float hi) {
  std::mt19937_64 rng(run_seed() ^ (0x9E3779B97F4A7C15ull * (stream + 1)));
  std::uniform_real_distribution<float> u(lo, hi);
  Stack<float> s(rows, cols, count);
  for (float& v : s.values()) v = u(rng);
  return s;
}

Stack<float> poisoned_stack(Index rows, Index cols, Index count) {
  return Stack<float>(rows, cols, count, std::numeric_limits<float>::quiet_NaN());
}

::testing::AssertionResult matrix_near(StackView<const float> a, StackView<const double> e,
                                       double tol) {
  if (a.rows != e.rows || a.cols != e.cols || a.count != e.count) {
    return ::testing::AssertionFailure()
           << "shape " << a.count << " x " << to_string(a.shape()) << " != expected " << e.count
           << " x " << to_string(e.shape());
  }
  for (Index t = 0; t < a.count; ++t) {
    double diff = 0, norm = 0;
    for (Index r = 0; r < a.rows; ++r) {
      for (Index c = 0; c < a.cols; ++c) {
        const double av = a[t](r, c), ev = e[t](r, c);
        if (!std::isfinite(av)) {
          return ::testing::AssertionFailure() << "result " << t << " element (" << r << ", " << c
                                               << ") is " << av << " (never written, or overflow)";
        }
        diff += (av - ev) * (av - ev);
        norm += ev * ev;
      }
    }
    const double err = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
    if (!(err <= tol)) {
      return ::testing::AssertionFailure()
             << "result " << t << ": relative L2 error " << err << " > " << tol;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace xcorr::testing
