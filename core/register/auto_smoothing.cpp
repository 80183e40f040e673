#include "core/register/auto_smoothing.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#include "core/register/phase_correlation.hpp"
#ifdef XCORR_HAVE_FFTW
#include "core/register/fftw_helpers.hpp"
#endif

namespace xcorr::reg {

#ifdef XCORR_HAVE_FFTW
double auto_smoothing(MatrixView<const float> image) {
  constexpr double kPi = 3.14159265358979323846;
  constexpr double kNoiseFrom = 0.42;  // cycles/px: the band the noise floor is taken on
  const Index rows = std::min(image.rows, kAutoSmoothingSide);
  const Index cols = std::min(image.cols, kAutoSmoothingSide);
  if (rows < 4 || cols < 4) return kMinAutoSmoothing;
  const Index y0 = (image.rows - rows) / 2, x0 = (image.cols - cols) / 2;
  const Index half = cols / 2 + 1;
  // cycles/px: rings at least 5 frequency samples wide, so that each holds enough
  const double ring_width = std::max(0.01, 5.0 / static_cast<double>(std::min(rows, cols)));
  auto in = fftw::alloc<float>(static_cast<std::size_t>(rows * cols));
  auto spec = fftw::alloc<fftwf_complex>(static_cast<std::size_t>(rows * half));
  double mean = 0;
  for (Index y = 0; y < rows; ++y)
    for (Index x = 0; x < cols; ++x) mean += image(y0 + y, x0 + x);
  mean /= static_cast<double>(rows * cols);
  const auto hann = [](Index i, Index n) {
    return 0.5 - 0.5 * std::cos(2 * kPi * static_cast<double>(i) / static_cast<double>(n - 1));
  };
  for (Index y = 0; y < rows; ++y)
    for (Index x = 0; x < cols; ++x)
      in[static_cast<std::size_t>(y * cols + x)] =
          static_cast<float>((image(y0 + y, x0 + x) - mean) * hann(y, rows) * hann(x, cols));
  fftwf_plan plan = nullptr;
  {
    std::lock_guard lock(fftw_planner_mutex());
    plan = fftwf_plan_dft_r2c_2d(static_cast<int>(rows), static_cast<int>(cols), in.get(),
                                 spec.get(), FFTW_ESTIMATE);
  }
  if (plan == nullptr) return 1;
  fftwf_execute(plan);
  {
    std::lock_guard lock(fftw_planner_mutex());
    fftwf_destroy_plan(plan);
  }
  // Power by ring (the half spectrum stands for both halves alike).
  const auto rings = static_cast<std::size_t>(std::ceil(0.5 * std::sqrt(2.0) / ring_width)) + 2;
  std::vector<double> sum(rings, 0);
  std::vector<long> count(rings, 0);
  std::vector<double> noise;
  for (Index ky = 0; ky < rows; ++ky) {
    const double fy = fftw::signed_frequency(ky, rows) / static_cast<double>(rows);
    for (Index kx = 0; kx < half; ++kx) {
      const double fx = static_cast<double>(kx) / static_cast<double>(cols);
      const double f = std::hypot(fx, fy);
      const fftwf_complex& c = spec[static_cast<std::size_t>(ky * half + kx)];
      const double power = static_cast<double>(c[0]) * c[0] + static_cast<double>(c[1]) * c[1];
      const auto ring = static_cast<std::size_t>(f / ring_width);
      sum[ring] += power;
      ++count[ring];
      if (f > kNoiseFrom && f <= 0.5) noise.push_back(power);
    }
  }
  double cutoff = 0.5;  // cycles/px
  if (!noise.empty()) {
    const auto mid = noise.begin() + static_cast<long>(noise.size() / 2);
    std::nth_element(noise.begin(), mid, noise.end());
    const double floor = *mid / std::log(2.0);  // a noise power's median is ln 2 of its mean
    // The band of ring r and the next: its mean power under (1 + kCutoffSignalToNoise) N.
    const auto below = [&](std::size_t r) {
      const long n = count[r] + count[r + 1];
      return n > 0 &&
             (sum[r] + sum[r + 1]) / static_cast<double>(n) < (1 + kCutoffSignalToNoise) * floor;
    };
    const auto first = static_cast<std::size_t>(std::ceil(0.02 / ring_width));
    for (std::size_t r = first; r + 1 < rings && static_cast<double>(r) * ring_width < 0.5; ++r) {
      if (below(r)) {
        cutoff = static_cast<double>(r) * ring_width;
        break;
      }
    }
  }
  const double sigma = std::sqrt(std::log(2.0) / 2) / (kPi * cutoff);
  return std::clamp(sigma, kMinAutoSmoothing, kMaxAutoSmoothing);
}
#else
double auto_smoothing(MatrixView<const float>) {
  return 1;
}  // transforms need FFTW
#endif

}  // namespace xcorr::reg
