// Test images with shifts known exactly, for the phase-correlation tests (CPU and GPU): a
// smoothed random image, and the same moved by a periodic, band-limited sub-pixel shift computed
// in float64 (a separable DFT, so keep images below a few hundred px).
#pragma once

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "core/matrix.hpp"

namespace xcorr::test {

constexpr double kPi = 3.141592653589793;

// A random image, smoothed a little by a [1 2 1] / 4 binomial in each direction (its spectrum is
// zero only at the Nyquist frequency, so every other frequency carries phase).
inline Stack<float> random_image(Index rows, Index cols, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(0, 1000);
  Stack<float> raw(rows, cols, 1), out(rows, cols, 1);
  for (float& v : raw.values()) v = static_cast<float>(u(g));
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c) {
      double s = 0;
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc)
          s += (2 - std::abs(dr)) * (2 - std::abs(dc)) *
               raw[0]((r + dr + rows) % rows, (c + dc + cols) % cols);
      out[0](r, c) = static_cast<float>(s / 16);
    }
  return out;
}

#if defined(__x86_64__)
// Clears the upper halves of the calling thread's AVX registers (vzeroupper). Qt's GUI
// (QGuiApplication's construction, painting) leaves them dirty on the main thread on this VM's
// AVX-512 Xeon, and nothing clears them: every call from SSE code into libm (VEX) then costs
// about 20x (5 x 10^6 sin: 0.03 s before QGuiApplication, 0.65 s after, 0.03 s after a
// vzeroupper), which made fourier_shift's 16 x 10^6 sines per 160^2 image 8x slower in the Qt
// tests once OpenCV (whose reader happened to clear them) no longer read their PNGs.
__attribute__((target("avx"))) inline void clear_upper_vector_state_avx() {
  __builtin_ia32_vzeroupper();
}
inline void clear_upper_vector_state() {
  if (__builtin_cpu_supports("avx")) clear_upper_vector_state_avx();
}
#else
inline void clear_upper_vector_state() {}
#endif

// out(x, y) = in(x - dx, y - dy), periodic, band-limited (separable DFT in float64).
inline Stack<float> fourier_shift(const Stack<float>& in, double dx, double dy) {
  clear_upper_vector_state();
  const Index rows = in.rows(), cols = in.cols();
  using C = std::complex<double>;
  std::vector<C> a(static_cast<std::size_t>(rows * cols));
  for (Index i = 0; i < rows * cols; ++i) a[static_cast<std::size_t>(i)] = in.data()[i];
  const auto pass = [&](Index n, Index count, Index stride, Index step, double d) {
    std::vector<C> line(static_cast<std::size_t>(n)), spec(static_cast<std::size_t>(n));
    for (Index l = 0; l < count; ++l) {
      for (Index k = 0; k < n; ++k)
        line[static_cast<std::size_t>(k)] = a[static_cast<std::size_t>(l * step + k * stride)];
      for (Index f = 0; f < n; ++f) {
        C s = 0;
        for (Index k = 0; k < n; ++k)
          s += line[static_cast<std::size_t>(k)] *
               std::polar(1.0, -2 * kPi * static_cast<double>(f * k) / static_cast<double>(n));
        const double sf = static_cast<double>(f < (n + 1) / 2 ? f : f - n);
        // Nyquist of an even length: its phase is ambiguous; keep only its real part.
        C phase = std::polar(1.0, -2 * kPi * sf * d / static_cast<double>(n));
        if (n % 2 == 0 && f == n / 2) phase = std::cos(2 * kPi * sf * d / static_cast<double>(n));
        spec[static_cast<std::size_t>(f)] = s * phase;
      }
      for (Index k = 0; k < n; ++k) {
        C s = 0;
        for (Index f = 0; f < n; ++f)
          s += spec[static_cast<std::size_t>(f)] *
               std::polar(1.0, 2 * kPi * static_cast<double>(f * k) / static_cast<double>(n));
        a[static_cast<std::size_t>(l * step + k * stride)] = s / static_cast<double>(n);
      }
    }
  };
  pass(cols, rows, 1, cols, dx);  // along x, every row
  pass(rows, cols, cols, 1, dy);  // along y, every column
  Stack<float> out(rows, cols, 1);
  for (Index i = 0; i < rows * cols; ++i)
    out.data()[i] = static_cast<float>(a[static_cast<std::size_t>(i)].real());
  return out;
}

}  // namespace xcorr::test
