#include "core/register/phase_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <mutex>
#include <vector>

#ifdef XCORR_HAVE_FFTW
#include <fftw3.h>
#endif

namespace xcorr::reg {

#ifdef XCORR_HAVE_FFTW
namespace {

constexpr double kTwoPi = 6.283185307179586;

// fftwf_malloc'd storage (the alignment FFTW's new-array execute needs).
struct FftwDeleter {
  void operator()(void* p) const { fftwf_free(p); }
};
template <class T>
using FftwPtr = std::unique_ptr<T[], FftwDeleter>;
template <class T>
FftwPtr<T> fftw_alloc(std::size_t n) {
  auto* p = static_cast<T*>(fftwf_malloc(sizeof(T) * std::max<std::size_t>(n, 1)));
  if (p == nullptr) throw std::bad_alloc();
  return FftwPtr<T>(p);
}

std::mutex& planner_mutex() {  // FFTW's planner is not thread-safe; execution is
  static std::mutex m;
  return m;
}

double signed_frequency(Index k, Index n) {
  return static_cast<double>(k < (n + 1) / 2 ? k : k - n);
}

// Tukey window of n samples, alpha = 0.5 (cosine tapers over a quarter at each end).
std::vector<float> tukey(Index n) {
  std::vector<float> w(static_cast<std::size_t>(n), 1.0f);
  const double alpha = 0.5, width = alpha * static_cast<double>(n - 1) / 2;
  for (Index i = 0; i < n; ++i) {
    const double k = static_cast<double>(std::min(i, n - 1 - i));
    if (k < width)
      w[static_cast<std::size_t>(i)] =
          static_cast<float>(0.5 * (1 - std::cos(kTwoPi / 2 * k / width)));
  }
  return w;
}

}  // namespace

struct PhaseCorrelator::Impl {
  Index rows = 0, cols = 0, half = 0;  // half = cols / 2 + 1 spectrum columns
  int upsample = 1;
  PhaseOptions options;
  std::vector<float> window_x, window_y;  // along x and y (all 1 without a window)
  double reference_energy = 0;            // sum of the prepared reference's squares
  fftwf_plan forward = nullptr, inverse = nullptr;
  std::vector<std::complex<float>> reference;  // rows x half
  ~Impl() {
    std::lock_guard lock(planner_mutex());
    if (forward != nullptr) fftwf_destroy_plan(forward);
    if (inverse != nullptr) fftwf_destroy_plan(inverse);
  }

  // The image without its mean, windowed, transformed; returns its energy (sum of squares).
  double transform(MatrixView<const float> image, float* real, fftwf_complex* spec) const {
    double sum = 0;
    for (Index r = 0; r < rows; ++r)
      for (Index c = 0; c < cols; ++c) sum += image(r, c);
    const double mean = sum / static_cast<double>(rows * cols);
    double energy = 0;
    for (Index r = 0; r < rows; ++r) {
      const float* in = image.row(r);
      float* out = real + r * cols;
      for (Index c = 0; c < cols; ++c) {
        const double v = (in[c] - mean) * window_y[static_cast<std::size_t>(r)] *
                         window_x[static_cast<std::size_t>(c)];
        out[c] = static_cast<float>(v);
        energy += v * v;
      }
    }
    fftwf_execute_dft_r2c(forward, real, spec);
    return energy;
  }

  // c(s) for the 3 x 3 points (x0 + i h, y0 + j h), i, j in {-1, 0, 1}, from the normalised
  // cross-power spectrum R (rows x half): out[j + 1][i + 1]. The real signal's spectrum is
  // Hermitian, so the half spectrum counts twice except its columns 0 and (even cols) cols / 2.
  void evaluate3x3(const std::complex<float>* R, double x0, double y0, double h,
                   double out[3][3]) const {
    std::vector<std::complex<double>> wx(static_cast<std::size_t>(3 * half));
    for (Index v = 0; v < half; ++v) {
      const bool single = v == 0 || (cols % 2 == 0 && v == cols / 2);
      const double weight = single ? 1.0 : 2.0;
      for (int i = 0; i < 3; ++i) {
        const double a =
            kTwoPi * static_cast<double>(v) * (x0 + (i - 1) * h) / static_cast<double>(cols);
        wx[static_cast<std::size_t>(i * half + v)] = weight * std::complex<double>(cos(a), sin(a));
      }
    }
    double acc[3][3] = {};
    for (Index u = 0; u < rows; ++u) {
      const std::complex<float>* row = R + u * half;
      std::complex<double> t[3] = {};  // the row's sums over v for the 3 x offsets
      for (Index v = 0; v < half; ++v) {
        const std::complex<double> r(row[v].real(), row[v].imag());
        for (int i = 0; i < 3; ++i) t[i] += r * wx[static_cast<std::size_t>(i * half + v)];
      }
      const double fu = signed_frequency(u, rows);
      for (int j = 0; j < 3; ++j) {
        const double a = kTwoPi * fu * (y0 + (j - 1) * h) / static_cast<double>(rows);
        const std::complex<double> wy(cos(a), sin(a));
        for (int i = 0; i < 3; ++i) acc[j][i] += (t[i] * wy).real();
      }
    }
    const double n = static_cast<double>(rows * cols);
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) out[j][i] = acc[j][i] / n;
  }
};

Result<std::unique_ptr<PhaseCorrelator>> PhaseCorrelator::create(Shape shape, PhaseOptions o) {
  const int upsample = o.upsample;
  if (shape.rows < 2 || shape.cols < 2)
    return Status{ErrorCode::invalid_argument,
                  "phase correlation needs a region of at least 2 x 2 px, not " + to_string(shape)};
  if (upsample < 1)
    return Status{ErrorCode::invalid_argument,
                  "upsample " + std::to_string(upsample) + ": must be >= 1"};
  std::unique_ptr<PhaseCorrelator> p(new PhaseCorrelator);
  p->impl_ = std::make_unique<Impl>();
  Impl& m = *p->impl_;
  m.rows = shape.rows;
  m.cols = shape.cols;
  m.half = shape.cols / 2 + 1;
  m.upsample = upsample;
  m.options = o;
  m.window_x =
      o.window ? tukey(m.cols) : std::vector<float>(static_cast<std::size_t>(m.cols), 1.0f);
  m.window_y =
      o.window ? tukey(m.rows) : std::vector<float>(static_cast<std::size_t>(m.rows), 1.0f);
  auto real = fftw_alloc<float>(static_cast<std::size_t>(m.rows * m.cols));
  auto spec = fftw_alloc<fftwf_complex>(static_cast<std::size_t>(m.rows * m.half));
  std::lock_guard lock(planner_mutex());
  m.forward = fftwf_plan_dft_r2c_2d(static_cast<int>(m.rows), static_cast<int>(m.cols), real.get(),
                                    spec.get(), FFTW_ESTIMATE);
  m.inverse = fftwf_plan_dft_c2r_2d(static_cast<int>(m.rows), static_cast<int>(m.cols), spec.get(),
                                    real.get(), FFTW_ESTIMATE);
  if (m.forward == nullptr || m.inverse == nullptr)
    return Status{ErrorCode::internal, "FFTW could not plan a " + to_string(shape) + " transform"};
  return p;
}

PhaseCorrelator::~PhaseCorrelator() = default;

Status PhaseCorrelator::set_reference(MatrixView<const float> image) {
  Impl& m = *impl_;
  if (image.rows != m.rows || image.cols != m.cols)
    return {ErrorCode::size_mismatch, "the reference is " +
                                          to_string(Shape{image.rows, image.cols}) + " px, not " +
                                          to_string(Shape{m.rows, m.cols})};
  auto real = fftw_alloc<float>(static_cast<std::size_t>(m.rows * m.cols));
  auto spec = fftw_alloc<fftwf_complex>(static_cast<std::size_t>(m.rows * m.half));
  m.reference_energy = m.transform(image, real.get(), spec.get());
  m.reference.resize(static_cast<std::size_t>(m.rows * m.half));
  for (std::size_t k = 0; k < m.reference.size(); ++k) m.reference[k] = {spec[k][0], spec[k][1]};
  return Status::ok();
}

Result<Shift> PhaseCorrelator::measure(MatrixView<const float> image) const {
  const Impl& m = *impl_;
  if (m.reference.empty()) return Status{ErrorCode::invalid_argument, "no reference set"};
  if (image.rows != m.rows || image.cols != m.cols)
    return Status{ErrorCode::size_mismatch, "the frame is " +
                                                to_string(Shape{image.rows, image.cols}) +
                                                " px, not " + to_string(Shape{m.rows, m.cols})};
  const auto n_spec = static_cast<std::size_t>(m.rows * m.half);
  auto real = fftw_alloc<float>(static_cast<std::size_t>(m.rows * m.cols));
  auto spec = fftw_alloc<fftwf_complex>(n_spec);
  const double energy = m.transform(image, real.get(), spec.get());
  // R = F_ref conj(F_frame) (/ |.| when whitened): its inverse peaks at minus the shift (the DIC
  // convention). Unwhitened, R is divided by the images' energies so that c(s) is a correlation
  // coefficient (1 for identical images; Parseval: sum |F|^2 = N sum x^2, and c divides by N).
  const double norm = std::sqrt(m.reference_energy * energy);
  const float scale = norm > 0 ? static_cast<float>(1 / norm) : 0.0f;
  std::vector<std::complex<float>> R(n_spec);
  for (std::size_t k = 0; k < n_spec; ++k) {
    const std::complex<float> p =
        m.reference[k] * std::conj(std::complex<float>(spec[k][0], spec[k][1]));
    if (m.options.whiten) {
      const float a = std::abs(p);
      R[k] = a > 1e-30f ? p / a : std::complex<float>(0, 0);
    } else {
      R[k] = p * scale;
    }
    spec[k][0] = R[k].real();
    spec[k][1] = R[k].imag();
  }
  fftwf_execute_dft_c2r(m.inverse, spec.get(), real.get());
  Index best = 0;
  for (Index k = 1; k < m.rows * m.cols; ++k)
    if (real[static_cast<std::size_t>(k)] > real[static_cast<std::size_t>(best)]) best = k;
  // The peak at p means c(s) peaks at s = p (mod N) with s = -shift.
  double y = signed_frequency(best / m.cols, m.rows);
  double x = signed_frequency(best % m.cols, m.cols);
  double value[3][3];
  double h = 0.5;
  const double finest = 1.0 / m.upsample;
  if (m.upsample > 1) {
    for (int pass = 0; pass < 64 && h >= finest * 0.999; ++pass) {
      m.evaluate3x3(R.data(), x, y, h, value);
      int bi = 1, bj = 1;
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i)
          if (value[j][i] > value[bj][bi]) bi = i, bj = j;
      if (bi == 1 && bj == 1) {
        if (h / 2 < finest * 0.999) break;  // the last 3 x 3 around the best point
        h /= 2;
      } else {
        x += (bi - 1) * h;
        y += (bj - 1) * h;
      }
    }
    // A parabola through the centre row and column gives the fraction below h.
    const auto vertex = [](double a, double b, double c) {
      const double d = a - 2 * b + c;
      return d < 0 ? std::clamp(0.5 * (a - c) / d, -0.5, 0.5) : 0.0;
    };
    x += h * vertex(value[1][0], value[1][1], value[1][2]);
    y += h * vertex(value[0][1], value[1][1], value[2][1]);
    m.evaluate3x3(R.data(), x, y, 0, value);
  } else {
    value[1][1] = real[static_cast<std::size_t>(best)] / static_cast<double>(m.rows * m.cols);
  }
  return Shift{-x, -y, value[1][1]};
}

#else  // without FFTW

struct PhaseCorrelator::Impl {};
Result<std::unique_ptr<PhaseCorrelator>> PhaseCorrelator::create(Shape, PhaseOptions) {
  return Status{ErrorCode::unsupported,
                "phase correlation needs FFTW (this build has none); use --method zncc"};
}
PhaseCorrelator::~PhaseCorrelator() = default;
Status PhaseCorrelator::set_reference(MatrixView<const float>) {
  return {ErrorCode::unsupported, "phase correlation needs FFTW"};
}
Result<Shift> PhaseCorrelator::measure(MatrixView<const float>) const {
  return Status{ErrorCode::unsupported, "phase correlation needs FFTW"};
}

#endif

}  // namespace xcorr::reg
