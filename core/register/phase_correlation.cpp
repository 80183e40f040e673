#include "core/register/phase_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <mutex>
#include <vector>

#ifdef XCORR_HAVE_FFTW
#include "core/register/fftw_helpers.hpp"
#endif

namespace xcorr::reg {

std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

#ifdef XCORR_HAVE_FFTW
namespace {

constexpr double kTwoPi = 6.283185307179586;

using fftw::parabola_vertex;
using fftw::signed_frequency;
using fftw::tukey;

std::mutex& planner_mutex() {
  return fftw_planner_mutex();
}

}  // namespace

struct PhaseCorrelator::Impl {
  Index rows = 0, cols = 0, half = 0;  // half = cols / 2 + 1 spectrum columns
  int upsample = 1;
  PhaseOptions options;
  std::vector<float> window_x, window_y;  // along x and y (all 1 without a window)
  fftwf_plan forward = nullptr, inverse = nullptr;
  struct Spectrum {  // a prepared reference: rows x half values and the image's energy
    std::vector<std::complex<float>> values;
    double energy = 0;
  };
  Spectrum reference;

  Result<Spectrum> spectrum_of(MatrixView<const float> image) const {
    if (image.rows != rows || image.cols != cols)
      return Status{ErrorCode::size_mismatch, "the reference is " +
                                                  to_string(Shape{image.rows, image.cols}) +
                                                  " px, not " + to_string(Shape{rows, cols})};
    auto real = fftw::alloc<float>(static_cast<std::size_t>(rows * cols));
    auto spec = fftw::alloc<fftwf_complex>(static_cast<std::size_t>(rows * half));
    Spectrum s;
    s.energy = transform(image, real.get(), spec.get());
    s.values.resize(static_cast<std::size_t>(rows * half));
    for (std::size_t k = 0; k < s.values.size(); ++k) s.values[k] = {spec[k][0], spec[k][1]};
    return s;
  }

  Result<Shift> measure(const Spectrum& ref, MatrixView<const float> image,
                        const Shift* near) const;
  ~Impl() {
    std::lock_guard lock(planner_mutex());
    if (forward != nullptr) fftwf_destroy_plan(forward);
    if (inverse != nullptr) fftwf_destroy_plan(inverse);
  }

  // The image without its mean, windowed (by window_x, window_y unless others are given),
  // transformed; returns its energy (sum of squares).
  double transform(MatrixView<const float> image, float* real, fftwf_complex* spec,
                   const std::vector<float>* wx = nullptr,
                   const std::vector<float>* wy_all = nullptr) const {
    const std::vector<float>& win_x = wx != nullptr ? *wx : window_x;
    const std::vector<float>& win_y = wy_all != nullptr ? *wy_all : window_y;
    double sum = 0;
    for (Index r = 0; r < rows; ++r)
      for (Index c = 0; c < cols; ++c) sum += image(r, c);
    const double mean = sum / static_cast<double>(rows * cols);
    double energy = 0;
    for (Index r = 0; r < rows; ++r) {
      const float* in = image.row(r);
      float* out = real + r * cols;
      const float wy = win_y[static_cast<std::size_t>(r)], mu = static_cast<float>(mean);
      float row_energy = 0;
      for (Index c = 0; c < cols; ++c) {
        const float v = (in[c] - mu) * wy * win_x[static_cast<std::size_t>(c)];
        out[c] = v;
        row_energy += v * v;
      }
      energy += row_energy;
    }
    fftwf_execute_dft_r2c(forward, real, spec);
    return energy;
  }

  // c(s) for the 3 x 3 points (x0 + i h, y0 + j h), i, j in {-1, 0, 1}, from the cross-power
  // spectrum R (rows x half, real and imaginary parts apart): out[j + 1][i + 1]. The real
  // signal's spectrum is Hermitian, so the half spectrum counts twice except its columns 0 and
  // (even cols) cols / 2. Float sums along a row (vectorised), double across rows.
  void evaluate3x3(const float* re, const float* im, double x0, double y0, double h,
                   double out[3][3]) const {
    const auto n = static_cast<std::size_t>(half);
    std::vector<float> wr(3 * n), wi(3 * n);
    for (Index v = 0; v < half; ++v) {
      const bool single = v == 0 || (cols % 2 == 0 && v == cols / 2);
      const double weight = single ? 1.0 : 2.0;
      for (int i = 0; i < 3; ++i) {
        const double a =
            kTwoPi * static_cast<double>(v) * (x0 + (i - 1) * h) / static_cast<double>(cols);
        wr[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(v)] =
            static_cast<float>(weight * std::cos(a));
        wi[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(v)] =
            static_cast<float>(weight * std::sin(a));
      }
    }
    double acc[3][3] = {};
    for (Index u = 0; u < rows; ++u) {
      const float* r_re = re + static_cast<std::size_t>(u) * n;
      const float* r_im = im + static_cast<std::size_t>(u) * n;
      double t_re[3], t_im[3];  // the row's sums over v for the 3 x offsets
      for (int i = 0; i < 3; ++i) {
        if (h == 0 && i != 1) continue;  // one point: the centre column only
        const float* c = wr.data() + static_cast<std::size_t>(i) * n;
        const float* d = wi.data() + static_cast<std::size_t>(i) * n;
        // 8 partial sums: independent lanes the compiler keeps in one SIMD register.
        float sr[8] = {}, si[8] = {};
        std::size_t v = 0;
        for (; v + 8 <= n; v += 8)
          for (std::size_t l = 0; l < 8; ++l) {
            sr[l] += r_re[v + l] * c[v + l] - r_im[v + l] * d[v + l];
            si[l] += r_re[v + l] * d[v + l] + r_im[v + l] * c[v + l];
          }
        for (; v < n; ++v) {
          sr[0] += r_re[v] * c[v] - r_im[v] * d[v];
          si[0] += r_re[v] * d[v] + r_im[v] * c[v];
        }
        t_re[i] = t_im[i] = 0;
        for (std::size_t l = 0; l < 8; ++l) t_re[i] += sr[l], t_im[i] += si[l];
      }
      const double fu = signed_frequency(u, rows);
      if (h == 0) t_re[0] = t_re[2] = t_re[1], t_im[0] = t_im[2] = t_im[1];
      for (int j = 0; j < 3; ++j) {
        const double a = kTwoPi * fu * (y0 + (j - 1) * h) / static_cast<double>(rows);
        const double cy = std::cos(a), sy = std::sin(a);
        for (int i = 0; i < 3; ++i) acc[j][i] += t_re[i] * cy - t_im[i] * sy;
      }
    }
    const double total = static_cast<double>(rows * cols);
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) out[j][i] = acc[j][i] / total;
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
  m.window_x = tukey(m.cols, o.window);
  m.window_y = tukey(m.rows, o.window);
  auto real = fftw::alloc<float>(static_cast<std::size_t>(m.rows * m.cols));
  auto spec = fftw::alloc<fftwf_complex>(static_cast<std::size_t>(m.rows * m.half));
  std::lock_guard lock(planner_mutex());
  // Large regions (whole frames of long stacks) are worth FFTW's measured plans (a second or two
  // of planning); small ones (tests, small regions) take estimated plans at once.
  const unsigned flags = m.rows * m.cols >= (1 << 20) ? FFTW_MEASURE : FFTW_ESTIMATE;
  m.forward = fftwf_plan_dft_r2c_2d(static_cast<int>(m.rows), static_cast<int>(m.cols), real.get(),
                                    spec.get(), flags);
  m.inverse = fftwf_plan_dft_c2r_2d(static_cast<int>(m.rows), static_cast<int>(m.cols), spec.get(),
                                    real.get(), flags);
  if (m.forward == nullptr || m.inverse == nullptr)
    return Status{ErrorCode::internal, "FFTW could not plan a " + to_string(shape) + " transform"};
  return p;
}

PhaseCorrelator::~PhaseCorrelator() = default;

Status PhaseCorrelator::set_reference(MatrixView<const float> image) {
  auto s = impl_->spectrum_of(image);
  if (!s.is_ok()) return s.status();
  impl_->reference = std::move(s).value();
  return Status::ok();
}

Result<Shift> PhaseCorrelator::measure(MatrixView<const float> image, const Shift* near) const {
  if (impl_->reference.values.empty())
    return Status{ErrorCode::invalid_argument, "no reference set"};
  return impl_->measure(impl_->reference, image, near);
}

Result<Shift> PhaseCorrelator::measure(MatrixView<const float> reference,
                                       MatrixView<const float> image, const Shift* near) const {
  auto s = impl_->spectrum_of(reference);
  if (!s.is_ok()) return s.status();
  return impl_->measure(s.value(), image, near);
}

Result<Shift> PhaseCorrelator::Impl::measure(const Spectrum& ref, MatrixView<const float> image,
                                             const Shift* near) const {
  const bool refining = near != nullptr;
  const Impl& m = *this;
  if (image.rows != m.rows || image.cols != m.cols)
    return Status{ErrorCode::size_mismatch, "the frame is " +
                                                to_string(Shape{image.rows, image.cols}) +
                                                " px, not " + to_string(Shape{m.rows, m.cols})};
  const auto n_spec = static_cast<std::size_t>(m.rows * m.half);
  auto real = fftw::alloc<float>(static_cast<std::size_t>(m.rows * m.cols));
  auto spec = fftw::alloc<fftwf_complex>(n_spec);
  // Refining: the frame's window moves with its content (by the drift found so far), so that
  // the windows no longer pull the peak towards no shift.
  const std::vector<float> moved_x =
      refining ? tukey(m.cols, m.options.window, near->dx) : std::vector<float>();
  const std::vector<float> moved_y =
      refining ? tukey(m.rows, m.options.window, near->dy) : std::vector<float>();
  const double energy = m.transform(image, real.get(), spec.get(), refining ? &moved_x : nullptr,
                                    refining ? &moved_y : nullptr);
  // R = F_ref conj(F_frame) (/ |.| when whitened): its inverse peaks at minus the shift (the DIC
  // convention). Unwhitened, R is divided by the images' energies so that c(s) is a correlation
  // coefficient (1 for identical images; Parseval: sum |F|^2 = N sum x^2, and c divides by N).
  const double norm = std::sqrt(ref.energy * energy);
  const float scale = norm > 0 ? static_cast<float>(1 / norm) : 0.0f;
  std::vector<float> re(n_spec), im(n_spec);
  for (std::size_t k = 0; k < n_spec; ++k) {
    const float ar = ref.values[k].real(), ai = ref.values[k].imag();
    const float br = spec[k][0], bi = spec[k][1];
    float pr = ar * br + ai * bi, pi = ai * br - ar * bi;  // a conj(b)
    const float a = std::sqrt(pr * pr + pi * pi);
    const float f = m.options.whiten ? (a > 1e-30f ? 1 / a : 0.0f) : scale;
    pr *= f, pi *= f;
    re[k] = pr, im[k] = pi;
    spec[k][0] = pr, spec[k][1] = pi;
  }
  const auto vertex = parabola_vertex;
  // Refining: start at the drift found so far (c peaks at minus the shift).
  double x = refining ? -near->dx : 0, y = refining ? -near->dy : 0, h = 1.0 / 16;
  Index best = 0;
  if (!refining) {
    fftwf_execute_dft_c2r(m.inverse, spec.get(), real.get());
    for (Index k = 1; k < m.rows * m.cols; ++k)
      if (real[static_cast<std::size_t>(k)] > real[static_cast<std::size_t>(best)]) best = k;
    // The peak at p means c(s) peaks at s = p (mod N) with s = -shift; a parabola through its
    // neighbours starts the search within a fraction of a pixel.
    const Index br = best / m.cols, bc = best % m.cols;
    const auto at = [&](Index r, Index c) {
      return static_cast<double>(
          real[static_cast<std::size_t>(((r + m.rows) % m.rows) * m.cols + (c + m.cols) % m.cols)]);
    };
    y = signed_frequency(br, m.rows) + vertex(at(br - 1, bc), at(br, bc), at(br + 1, bc));
    x = signed_frequency(bc, m.cols) + vertex(at(br, bc - 1), at(br, bc), at(br, bc + 1));
    h = 0.125;
  }
  double value[3][3];
  const double finest = 1.0 / m.upsample;
  h = std::max(h, finest);
  if (m.upsample > 1) {
    for (int pass = 0; pass < 64 && h >= finest * 0.999; ++pass) {
      m.evaluate3x3(re.data(), im.data(), x, y, h, value);
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
    x += h * vertex(value[1][0], value[1][1], value[1][2]);
    y += h * vertex(value[0][1], value[1][1], value[2][1]);
    m.evaluate3x3(re.data(), im.data(), x, y, 0, value);
  } else {
    x = std::round(x), y = std::round(y);  // integer shifts
    m.evaluate3x3(re.data(), im.data(), x, y, 0, value);
  }
  return Shift{-x, -y, value[1][1]};
}

std::string fftw_plans() {
  std::lock_guard lock(planner_mutex());
  char* text = fftwf_export_wisdom_to_string();
  if (text == nullptr) return {};
  std::string out(text);
  std::free(text);
  return out;
}

bool use_fftw_plans(const std::string& plans) {
  if (plans.empty()) return true;
  std::lock_guard lock(planner_mutex());
  return fftwf_import_wisdom_from_string(plans.c_str()) != 0;
}

#else  // without FFTW

std::string fftw_plans() {
  return {};
}
bool use_fftw_plans(const std::string& plans) {
  return plans.empty();
}

struct PhaseCorrelator::Impl {};
Result<std::unique_ptr<PhaseCorrelator>> PhaseCorrelator::create(Shape, PhaseOptions) {
  return Status{ErrorCode::unsupported,
                "phase correlation needs FFTW (this build has none); use --method zncc"};
}
PhaseCorrelator::~PhaseCorrelator() = default;
Status PhaseCorrelator::set_reference(MatrixView<const float>) {
  return {ErrorCode::unsupported, "phase correlation needs FFTW"};
}
Result<Shift> PhaseCorrelator::measure(MatrixView<const float>, const Shift*) const {
  return Status{ErrorCode::unsupported, "phase correlation needs FFTW"};
}
Result<Shift> PhaseCorrelator::measure(MatrixView<const float>, MatrixView<const float>,
                                       const Shift*) const {
  return Status{ErrorCode::unsupported, "phase correlation needs FFTW"};
}

#endif

}  // namespace xcorr::reg
