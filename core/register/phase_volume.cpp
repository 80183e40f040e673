#include "core/register/phase_volume.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "core/register/phase_correlation.hpp"

#ifdef XCORR_HAVE_FFTW
#include "core/register/fftw_helpers.hpp"
#endif

namespace xcorr::reg {

#ifdef XCORR_HAVE_FFTW
namespace {

constexpr double kTwoPi = 6.283185307179586;

using fftw::parabola_vertex;
using fftw::signed_frequency;

}  // namespace

struct VolumeCorrelator::Impl {
  VolumeShape s;
  Index half = 0;  // cols / 2 + 1
  int upsample = 100;
  std::vector<float> wx, wy, wz;
  fftwf_plan forward = nullptr, inverse = nullptr;
  struct Spectrum {
    std::vector<std::complex<float>> values;
    double energy = 0;
  };
  Spectrum reference;

  ~Impl() {
    std::lock_guard lock(fftw_planner_mutex());
    if (forward != nullptr) fftwf_destroy_plan(forward);
    if (inverse != nullptr) fftwf_destroy_plan(inverse);
  }
  std::size_t spectrum_size() const { return static_cast<std::size_t>(s.depth * s.rows * half); }

  // The volume without its mean, windowed (the window moved by `moved`, a shift found before),
  // transformed.
  Spectrum spectrum_of(const float* volume, const Shift3* moved = nullptr) const {
    const std::vector<float> mx = moved != nullptr ? fftw::tukey(s.cols, true, moved->dx) : wx;
    const std::vector<float> my = moved != nullptr ? fftw::tukey(s.rows, true, moved->dy) : wy;
    const std::vector<float> mz = moved != nullptr ? fftw::tukey(s.depth, true, moved->dz) : wz;
    auto real = fftw::alloc<float>(static_cast<std::size_t>(s.size()));
    auto spec = fftw::alloc<fftwf_complex>(spectrum_size());
    double sum = 0;
    for (Index i = 0; i < s.size(); ++i) sum += volume[i];
    const auto mean = static_cast<float>(sum / static_cast<double>(s.size()));
    Spectrum out;
    for (Index z = 0; z < s.depth; ++z)
      for (Index r = 0; r < s.rows; ++r) {
        const float w = mz[static_cast<std::size_t>(z)] * my[static_cast<std::size_t>(r)];
        const float* in = volume + (z * s.rows + r) * s.cols;
        float* o = real.get() + (z * s.rows + r) * s.cols;
        double e = 0;
        for (Index c = 0; c < s.cols; ++c) {
          o[c] = (in[c] - mean) * w * mx[static_cast<std::size_t>(c)];
          e += static_cast<double>(o[c]) * o[c];
        }
        out.energy += e;
      }
    fftwf_execute_dft_r2c(forward, real.get(), spec.get());
    out.values.resize(spectrum_size());
    for (std::size_t k = 0; k < out.values.size(); ++k) out.values[k] = {spec[k][0], spec[k][1]};
    return out;
  }

  // c(s) at the 27 points (x0 + i h, y0 + j h, z0 + k h), i, j, k in {-1, 0, 1}: out[k][j][i].
  // The half spectrum counts twice except its columns 0 and (even cols) cols / 2.
  void evaluate(const float* re, const float* im, double x0, double y0, double z0, double h,
                double out[3][3][3]) const {
    const auto n = static_cast<std::size_t>(half);
    std::vector<float> cr(3 * n), ci(3 * n);
    for (Index v = 0; v < half; ++v) {
      const double weight = v == 0 || (s.cols % 2 == 0 && v == s.cols / 2) ? 1.0 : 2.0;
      for (int i = 0; i < 3; ++i) {
        const double a =
            kTwoPi * static_cast<double>(v) * (x0 + (i - 1) * h) / static_cast<double>(s.cols);
        cr[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(v)] =
            static_cast<float>(weight * std::cos(a));
        ci[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(v)] =
            static_cast<float>(weight * std::sin(a));
      }
    }
    // exp(i 2 pi f s / N) for the 3 offsets along y and z.
    const auto phases = [](Index count, double s0, double step) {
      std::vector<std::complex<double>> p(static_cast<std::size_t>(count) * 3);
      for (Index u = 0; u < count; ++u)
        for (int j = 0; j < 3; ++j)
          p[static_cast<std::size_t>(u) * 3 + static_cast<std::size_t>(j)] =
              std::polar(1.0, kTwoPi * signed_frequency(u, count) * (s0 + (j - 1) * step) /
                                  static_cast<double>(count));
      return p;
    };
    const auto py = phases(s.rows, y0, h), pz = phases(s.depth, z0, h);
    std::complex<double> acc[3][3][3] = {};
    for (Index z = 0; z < s.depth; ++z)
      for (Index r = 0; r < s.rows; ++r) {
        const std::size_t row = static_cast<std::size_t>(z * s.rows + r) * n;
        std::complex<double> t[3];
        for (int i = 0; i < 3; ++i) {
          const float* c = cr.data() + static_cast<std::size_t>(i) * n;
          const float* d = ci.data() + static_cast<std::size_t>(i) * n;
          float sr[8] = {}, si[8] = {};
          std::size_t v = 0;
          for (; v + 8 <= n; v += 8)
            for (std::size_t l = 0; l < 8; ++l) {
              sr[l] += re[row + v + l] * c[v + l] - im[row + v + l] * d[v + l];
              si[l] += re[row + v + l] * d[v + l] + im[row + v + l] * c[v + l];
            }
          for (; v < n; ++v) {
            sr[0] += re[row + v] * c[v] - im[row + v] * d[v];
            si[0] += re[row + v] * d[v] + im[row + v] * c[v];
          }
          double tr = 0, ti = 0;
          for (std::size_t l = 0; l < 8; ++l) tr += sr[l], ti += si[l];
          t[i] = {tr, ti};
        }
        for (int k = 0; k < 3; ++k)
          for (int j = 0; j < 3; ++j) {
            const std::complex<double> p =
                py[static_cast<std::size_t>(r) * 3 + static_cast<std::size_t>(j)] *
                pz[static_cast<std::size_t>(z) * 3 + static_cast<std::size_t>(k)];
            for (int i = 0; i < 3; ++i) acc[k][j][i] += t[i] * p;
          }
      }
    const auto total = static_cast<double>(s.size());
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) out[k][j][i] = acc[k][j][i].real() / total;
  }

  // Measurements after the first move the frame's window with the shift found (so that the
  // windows no longer pull the peak towards no shift) and search from there.
  Shift3 measure(const Spectrum& ref, const float* volume) const {
    Shift3 s3 = measure_once(ref, volume, nullptr);
    // Each measurement moves the window by the shift found so far; few planes leave a pull
    // that one move does not remove (12 planes: 15 % of dz after one), so up to 6, until the
    // shift changes by less than 1/200 voxel.
    for (int i = 0; i < 6; ++i) {
      const Shift3 next = measure_once(ref, volume, &s3);
      const double change = std::max(
          {std::abs(next.dx - s3.dx), std::abs(next.dy - s3.dy), std::abs(next.dz - s3.dz)});
      s3 = next;
      if (change < 0.005) break;
    }
    return s3;
  }

  Shift3 measure_once(const Spectrum& ref, const float* volume, const Shift3* near) const {
    const Spectrum f = spectrum_of(volume, near);
    const std::size_t n = spectrum_size();
    const double norm = std::sqrt(ref.energy * f.energy);
    const float scale = norm > 0 ? static_cast<float>(1 / norm) : 0.0f;
    std::vector<float> re(n), im(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::complex<float> p = ref.values[k] * std::conj(f.values[k]) * scale;
      re[k] = p.real(), im[k] = p.imag();
    }
    // c(s) peaks at s = -shift (the DIC convention, as in 2-D).
    double x = 0, y = 0, z = 0, h = 1.0 / 16;
    if (near != nullptr) {
      x = -near->dx, y = -near->dy, z = -near->dz;
    } else {
      locate_peak(re, im, x, y, z);
      h = 0.125;
    }
    double v[3][3][3];
    const double finest = 1.0 / upsample;
    h = std::max(h, finest);
    if (upsample > 1) {
      for (int pass = 0; pass < 64; ++pass) {
        evaluate(re.data(), im.data(), x, y, z, h, v);
        int bi = 1, bj = 1, bk = 1;
        for (int k = 0; k < 3; ++k)
          for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i)
              if (v[k][j][i] > v[bk][bj][bi]) bi = i, bj = j, bk = k;
        if (bi == 1 && bj == 1 && bk == 1) {
          if (h / 2 < finest * 0.999) break;
          h /= 2;
        } else {
          x += (bi - 1) * h, y += (bj - 1) * h, z += (bk - 1) * h;
        }
      }
      x += h * parabola_vertex(v[1][1][0], v[1][1][1], v[1][1][2]);
      y += h * parabola_vertex(v[1][0][1], v[1][1][1], v[1][2][1]);
      z += h * parabola_vertex(v[0][1][1], v[1][1][1], v[2][1][1]);
    } else {
      x = std::round(x), y = std::round(y), z = std::round(z);
    }
    evaluate(re.data(), im.data(), x, y, z, 0, v);
    return Shift3{-x, -y, -z, v[1][1][1]};
  }

  // The inverse transform's integer peak and a parabola through its neighbours along each axis.
  void locate_peak(const std::vector<float>& re, const std::vector<float>& im, double& x, double& y,
                   double& z) const {
    auto spec = fftw::alloc<fftwf_complex>(re.size());
    for (std::size_t k = 0; k < re.size(); ++k) spec[k][0] = re[k], spec[k][1] = im[k];
    auto real = fftw::alloc<float>(static_cast<std::size_t>(s.size()));
    fftwf_execute_dft_c2r(inverse, spec.get(), real.get());
    Index best = 0;
    for (Index k = 1; k < s.size(); ++k)
      if (real[static_cast<std::size_t>(k)] > real[static_cast<std::size_t>(best)]) best = k;
    const Index bz = best / (s.rows * s.cols), br = (best / s.cols) % s.rows, bc = best % s.cols;
    const auto at = [&](Index zz, Index r, Index c) {
      zz = (zz + s.depth) % s.depth, r = (r + s.rows) % s.rows, c = (c + s.cols) % s.cols;
      return static_cast<double>(real[static_cast<std::size_t>((zz * s.rows + r) * s.cols + c)]);
    };
    x = signed_frequency(bc, s.cols) +
        parabola_vertex(at(bz, br, bc - 1), at(bz, br, bc), at(bz, br, bc + 1));
    y = signed_frequency(br, s.rows) +
        parabola_vertex(at(bz, br - 1, bc), at(bz, br, bc), at(bz, br + 1, bc));
    z = signed_frequency(bz, s.depth) +
        parabola_vertex(at(bz - 1, br, bc), at(bz, br, bc), at(bz + 1, br, bc));
  }
};

Result<std::unique_ptr<VolumeCorrelator>> VolumeCorrelator::create(VolumeShape shape,
                                                                   int upsample) {
  if (shape.depth < 2 || shape.rows < 2 || shape.cols < 2)
    return Status{ErrorCode::invalid_argument,
                  "3-D phase correlation needs volumes of at least 2 x 2 x 2 voxels, not " +
                      std::to_string(shape.cols) + " x " + std::to_string(shape.rows) + " x " +
                      std::to_string(shape.depth)};
  if (upsample < 1) return Status{ErrorCode::invalid_argument, "upsample must be >= 1"};
  std::unique_ptr<VolumeCorrelator> p(new VolumeCorrelator);
  p->impl_ = std::make_unique<Impl>();
  Impl& m = *p->impl_;
  m.s = shape;
  m.half = shape.cols / 2 + 1;
  m.upsample = upsample;
  m.wx = fftw::tukey(shape.cols), m.wy = fftw::tukey(shape.rows), m.wz = fftw::tukey(shape.depth);
  auto real = fftw::alloc<float>(static_cast<std::size_t>(shape.size()));
  auto spec = fftw::alloc<fftwf_complex>(m.spectrum_size());
  std::lock_guard lock(fftw_planner_mutex());
  const auto d = static_cast<int>(shape.depth), r = static_cast<int>(shape.rows),
             c = static_cast<int>(shape.cols);
  m.forward = fftwf_plan_dft_r2c_3d(d, r, c, real.get(), spec.get(), FFTW_ESTIMATE);
  m.inverse = fftwf_plan_dft_c2r_3d(d, r, c, spec.get(), real.get(), FFTW_ESTIMATE);
  if (m.forward == nullptr || m.inverse == nullptr)
    return Status{ErrorCode::internal, "FFTW could not plan a 3-D transform"};
  return p;
}

VolumeCorrelator::~VolumeCorrelator() = default;

Status VolumeCorrelator::set_reference(const float* reference) {
  impl_->reference = impl_->spectrum_of(reference);
  return Status::ok();
}

Result<Shift3> VolumeCorrelator::measure(const float* frame) const {
  if (impl_->reference.values.empty())
    return Status{ErrorCode::invalid_argument, "no reference set"};
  return Result<Shift3>(impl_->measure(impl_->reference, frame));
}

Result<Shift3> VolumeCorrelator::measure(const float* reference, const float* frame) const {
  return Result<Shift3>(impl_->measure(impl_->spectrum_of(reference), frame));
}

#else

struct VolumeCorrelator::Impl {};
Result<std::unique_ptr<VolumeCorrelator>> VolumeCorrelator::create(VolumeShape, int) {
  return Status{ErrorCode::unsupported,
                "this build has no FFTW: 3-D registration is not available"};
}
VolumeCorrelator::~VolumeCorrelator() = default;
Status VolumeCorrelator::set_reference(const float*) {
  return Status::ok();
}
Result<Shift3> VolumeCorrelator::measure(const float*) const {
  return Shift3{};
}
Result<Shift3> VolumeCorrelator::measure(const float*, const float*) const {
  return Shift3{};
}

#endif

}  // namespace xcorr::reg
