#include "core/register/missing_pixels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <vector>

#include "core/missing_data.hpp"

namespace xcorr::reg {

MissingPixels check_missing(MatrixView<const float> image) {
  MissingPixels m;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (Index y = 0; y < image.rows; ++y) {
    for (Index x = 0; x < image.cols; ++x) {
      const double v = image(y, x);
      if (!std::isfinite(v)) {
        ++m.missing;
        continue;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  const long n = static_cast<long>(image.rows * image.cols);
  const long finite = n - m.missing;
  char text[200];
  if (n == 0 || static_cast<double>(finite) < kMinFiniteShare * static_cast<double>(n)) {
    std::snprintf(text, sizeof text,
                  "has %ld finite pixel(s) of %ld (the rest NaN or Inf): too few to register (at "
                  "least %.0f %%)",
                  finite, n, 100 * kMinFiniteShare);
    m.why = text;
    return m;
  }
  if (std::max(std::abs(lo), std::abs(hi)) > kMaxRegistrableValue) {
    std::snprintf(text, sizeof text,
                  "has values up to %.3g: beyond what float32 transforms correlate (at most %.0e)",
                  std::max(std::abs(lo), std::abs(hi)), kMaxRegistrableValue);
    m.why = text;
    return m;
  }
  if (hi <= lo) {
    std::snprintf(text, sizeof text, "is flat (every finite pixel %.9g): nothing to register", lo);
    m.why = text;
    return m;
  }
  return m;
}

MissingPixels fill_missing(MatrixView<float> image) {
  MissingPixels m = check_missing(image);
  if (m.why.empty() && m.missing > 0) (void)fill_missing_with_mean(image);
  return m;
}

float finite_mean(MatrixView<const float> image, char& missing) {
  double sum = 0;
  long finite = 0;
  for (Index y = 0; y < image.rows; ++y) {
    const float* row = image.row(y);
    for (Index x = 0; x < image.cols; ++x) {
      if (std::isfinite(row[x])) {
        sum += row[x];
        ++finite;
      }
    }
  }
  missing = finite < image.rows * image.cols ? 1 : 0;
  return finite > 0 ? static_cast<float>(sum / static_cast<double>(finite)) : 0.0f;
}

void mark_missing_row(MatrixView<const float> original, double dx, double dy, Index r, float* row) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const double sy = static_cast<double>(r) + dy;
  // Source rows ym with |sy - ym| < 1, columns xm with |x + dx - xm| < 1.
  const auto y0 = static_cast<Index>(std::floor(sy - 1) + 1);
  for (Index ym = std::max<Index>(0, y0); ym < sy + 1 && ym < original.rows; ++ym) {
    const float* src = original.row(ym);
    for (Index xm = 0; xm < original.cols; ++xm) {
      if (std::isfinite(src[xm])) continue;
      const double cx = static_cast<double>(xm) - dx;  // output columns x in (cx - 1, cx + 1)
      for (auto x = static_cast<Index>(std::floor(cx - 1) + 1); x < cx + 1; ++x)
        if (x >= 0 && x < original.cols) row[x] = nan;
    }
  }
}

namespace {

// The pixels within `r` px along both axes of a non-finite pixel of `image` (1 each, row-major).
std::vector<char> near_missing(MatrixView<const float> image, Index r) {
  const Index rows = image.rows, cols = image.cols;
  std::vector<char> across(static_cast<std::size_t>(rows * cols), 0), out(across.size(), 0);
  for (Index y = 0; y < rows; ++y)
    for (Index x = 0; x < cols; ++x)
      if (!std::isfinite(image(y, x)))
        for (Index xx = std::max<Index>(0, x - r); xx <= std::min(cols - 1, x + r); ++xx)
          across[static_cast<std::size_t>(y * cols + xx)] = 1;
  for (Index y = 0; y < rows; ++y)
    for (Index x = 0; x < cols; ++x)
      if (across[static_cast<std::size_t>(y * cols + x)] != 0)
        for (Index yy = std::max<Index>(0, y - r); yy <= std::min(rows - 1, y + r); ++yy)
          out[static_cast<std::size_t>(yy * cols + x)] = 1;
  return out;
}

// One image's part of lack_alike's weight: the distance (px) from a point to its nearest
// non-finite pixel centre, looked for only up to kReach px away.
class Holes {
 public:
  static constexpr double kReach = 1 + kHoleTaper;
  explicit Holes(MatrixView<const float> image)
      : image_(image), near_(near_missing(image, static_cast<Index>(std::ceil(kReach)) + 1)) {}

  // The weight's factor at the point (x, y) of this image's pixels (outside: 1).
  double weight(double x, double y) const {
    const auto cx = static_cast<Index>(std::lround(x)), cy = static_cast<Index>(std::lround(y));
    if (cx < 0 || cy < 0 || cx >= image_.cols || cy >= image_.rows) return 1;
    if (near_[static_cast<std::size_t>(cy * image_.cols + cx)] == 0) return 1;
    double best = kReach * kReach;
    const auto y0 = std::max<Index>(0, static_cast<Index>(std::floor(y - kReach)));
    const auto y1 = std::min<Index>(image_.rows - 1, static_cast<Index>(std::ceil(y + kReach)));
    const auto x0 = std::max<Index>(0, static_cast<Index>(std::floor(x - kReach)));
    const auto x1 = std::min<Index>(image_.cols - 1, static_cast<Index>(std::ceil(x + kReach)));
    for (Index yy = y0; yy <= y1; ++yy) {
      const float* row = image_.row(yy);
      const double ey = static_cast<double>(yy) - y;
      for (Index xx = x0; xx <= x1; ++xx) {
        if (std::isfinite(row[xx])) continue;
        const double ex = static_cast<double>(xx) - x;
        best = std::min(best, ex * ex + ey * ey);
      }
    }
    const double d = std::sqrt(best);
    if (d <= 1) return 0;
    if (d >= kReach) return 1;
    return 0.5 - 0.5 * std::cos(3.141592653589793 * (d - 1) / kHoleTaper);
  }

 private:
  MatrixView<const float> image_;
  std::vector<char> near_;  // within reach of a missing pixel (else the factor is 1)
};

// `image` (its finite mean `mean`) weighed about its mean: each pixel (x, y) by w(x, y) (a
// missing one, of weight 0, becomes the mean). How many pixels kept a weight above 0.
template <class W>
long weigh(MatrixView<const float> image, double mean, const W& w, std::vector<float>& out) {
  out.resize(static_cast<std::size_t>(image.rows * image.cols));
  long kept = 0;
  for (Index y = 0; y < image.rows; ++y)
    for (Index x = 0; x < image.cols; ++x) {
      const double k = w(static_cast<double>(x), static_cast<double>(y));
      kept += k > 0 ? 1 : 0;
      out[static_cast<std::size_t>(y * image.cols + x)] =
          static_cast<float>(k > 0 ? mean + (image(y, x) - mean) * k : mean);
    }
  return kept;
}

}  // namespace

bool lack_alike(MatrixView<float> reference, MatrixView<float> frame, double dx, double dy) {
  const Holes in_reference(reference), in_frame(frame);
  // W at content position c: the reference's pixel c, the frame's pixel c + d.
  const auto w = [&](double cx, double cy) {
    return std::min(in_reference.weight(cx, cy), in_frame.weight(cx + dx, cy + dy));
  };
  char lacking = 0;
  std::vector<float> r, f;
  const long r_kept = weigh(reference, finite_mean(reference, lacking), w, r);
  const long f_kept = weigh(
      frame, finite_mean(frame, lacking), [&](double x, double y) { return w(x - dx, y - dy); }, f);
  const auto enough = [](long kept, const std::vector<float>& v) {
    return static_cast<double>(kept) >= kMinFiniteShare * static_cast<double>(v.size());
  };
  if (!enough(r_kept, r) || !enough(f_kept, f)) return false;
  for (Index y = 0; y < reference.rows; ++y)
    std::copy_n(r.data() + y * reference.cols, reference.cols, reference.row(y));
  for (Index y = 0; y < frame.rows; ++y)
    std::copy_n(f.data() + y * frame.cols, frame.cols, frame.row(y));
  return true;
}

Status measure_lacking_alike(const std::vector<const Stack<float>*>& frames,
                             const std::vector<const Stack<float>*>& references,
                             std::vector<Shift>& shifts, const MeasurePairs& measure) {
  const auto usable = [](const Shift& s) {
    return std::isfinite(s.dx) && std::isfinite(s.dy) && s.peak > 0;
  };
  std::map<const Stack<float>*, bool> lacks;  // each image looked at once (one reference for all)
  const auto lacking = [&lacks](const Stack<float>* image) {
    auto [at, fresh] = lacks.try_emplace(image, false);
    if (fresh) at->second = !all_finite((*image)[0]);
    return at->second;
  };
  std::vector<std::size_t> open;  // pairs still settling
  for (std::size_t k = 0; k < frames.size(); ++k)
    if (usable(shifts[k]) && (lacking(frames[k]) || lacking(references[k]))) open.push_back(k);
  // Per pair: where the next round places the weight (the last measurement, or the end of its
  // steps' geometric series) and the last step (px).
  std::vector<double> at_x(frames.size()), at_y(frames.size()), step_x(frames.size(), 0),
      step_y(frames.size(), 0);
  for (std::size_t k = 0; k < frames.size(); ++k) at_x[k] = shifts[k].dx, at_y[k] = shifts[k].dy;
  for (int round = 0; round < kLackAlikeRounds && !open.empty(); ++round) {
    std::vector<std::size_t> measured;
    std::vector<Stack<float>> f, r;
    for (const std::size_t k : open) {
      Stack<float> fk = *frames[k], rk = *references[k];
      if (!lack_alike(rk[0], fk[0], at_x[k], at_y[k])) continue;
      measured.push_back(k);
      f.push_back(std::move(fk));
      r.push_back(std::move(rk));
    }
    std::vector<const Stack<float>*> fp, rp;
    for (std::size_t j = 0; j < measured.size(); ++j) fp.push_back(&f[j]), rp.push_back(&r[j]);
    if (fp.empty()) break;
    auto found = measure(fp, rp);
    if (!found.is_ok()) return found.status();
    open.clear();
    for (std::size_t j = 0; j < measured.size(); ++j) {
      const std::size_t k = measured[j];
      const Shift& s = found.value()[j];
      if (!usable(s)) continue;
      const double dx = s.dx - at_x[k], dy = s.dy - at_y[k];
      shifts[k] = s;
      if (std::abs(dx) < kLackAlikeSettled && std::abs(dy) < kLackAlikeSettled) continue;
      open.push_back(k);
      // Steps shrinking by a factor q in one direction: the series ends at s + step q / (1 - q).
      const double last = step_x[k] * step_x[k] + step_y[k] * step_y[k];
      const double along = dx * step_x[k] + dy * step_y[k];
      const double q = last > 0 ? along / last : 0;
      const bool steady = q > 0 && q < 0.9 && along * along > 0.8 * last * (dx * dx + dy * dy);
      const double ahead = steady ? q / (1 - q) : 0;
      at_x[k] = s.dx + ahead * dx, at_y[k] = s.dy + ahead * dy;
      // After a jump the next step starts a new series.
      step_x[k] = steady ? 0 : dx, step_y[k] = steady ? 0 : dy;
    }
  }
  return Status::ok();
}

}  // namespace xcorr::reg
