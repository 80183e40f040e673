// The pieces the FFTW-based registration code shares (phase_correlation.cpp, phase_volume.cpp,
// transform_fit.cpp): aligned FFTW storage, signed frequencies, the Tukey window and the vertex
// of a parabola. Include only where XCORR_HAVE_FFTW is defined (it includes <fftw3.h>).
#pragma once

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include "core/matrix.hpp"

namespace xcorr::reg::fftw {

// fftwf_malloc'd storage (the alignment FFTW's new-array execute needs).
struct Deleter {
  void operator()(void* p) const { fftwf_free(p); }
};
template <class T>
using Ptr = std::unique_ptr<T[], Deleter>;
template <class T>
Ptr<T> alloc(std::size_t n) {
  auto* p = static_cast<T*>(fftwf_malloc(sizeof(T) * std::max<std::size_t>(n, 1)));
  if (p == nullptr) throw std::bad_alloc();
  return Ptr<T>(p);
}

// Index k of an n-point transform as a signed frequency (or shift): k, or k - n past the middle.
inline double signed_frequency(Index k, Index n) {
  return static_cast<double>(k < (n + 1) / 2 ? k : k - n);
}

// Tukey window of n samples, alpha = 0.5 (cosine tapers over a quarter at each end), moved by
// `shift` samples (sample i takes the window's value at i - shift; 0 outside [0, n - 1]); all 1
// without a window.
inline std::vector<float> tukey(Index n, bool window = true, double shift = 0) {
  constexpr double kPi = 3.141592653589793;
  std::vector<float> w(static_cast<std::size_t>(n), 1.0f);
  if (!window) return w;
  const double last = static_cast<double>(n - 1), width = 0.5 * last / 2;
  for (Index i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) - shift;
    const double k = std::min(t, last - t);
    w[static_cast<std::size_t>(i)] = k < 0 ? 0.0f
                                     : k < width
                                         ? static_cast<float>(0.5 * (1 - std::cos(kPi * k / width)))
                                         : 1.0f;
  }
  return w;
}

// The vertex of the parabola through 3 samples at -1, 0, 1 (within +-0.5; 0 when it opens up).
inline double parabola_vertex(double a, double b, double c) {
  const double d = a - 2 * b + c;
  return d < 0 ? std::clamp(0.5 * (a - c) / d, -0.5, 0.5) : 0.0;
}

}  // namespace xcorr::reg::fftw
