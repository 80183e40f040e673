#include "ui/lut.hpp"

#include <algorithm>
#include <cmath>

namespace xcorr::ui {

QRgb lut_rgb(Lut lut, double t) {
  t = std::clamp(t, 0.0, 1.0);
  const auto c = [](double v) { return static_cast<int>(v * 255.0 + 0.5); };
  const int g = c(t);
  switch (lut) {
    case Lut::grays:
      return qRgb(g, g, g);
    case Lut::green:
      return qRgb(0, g, 0);
    case Lut::magenta:
      return qRgb(g, 0, g);
    case Lut::cyan:
      return qRgb(0, g, g);
    case Lut::red:
      return qRgb(g, 0, 0);
    case Lut::blue:
      return qRgb(0, 0, g);
    case Lut::yellow:
      return qRgb(g, g, 0);
    case Lut::inverted:
      return qRgb(255 - g, 255 - g, 255 - g);
    case Lut::fire: {  // black, blue, red, orange, yellow, white (as ImageJ's Fire)
      static const double stops[][4] = {{0, 0, 0, 0},         {0.25, 0.35, 0, 0.55},
                                        {0.5, 0.9, 0.1, 0.1}, {0.75, 1, 0.6, 0},
                                        {0.9, 1, 0.95, 0.2},  {1, 1, 1, 1}};
      for (int k = 1; k < 6; ++k) {
        if (t > stops[k][0]) continue;
        const double f = (t - stops[k - 1][0]) / (stops[k][0] - stops[k - 1][0]);
        return qRgb(c(stops[k - 1][1] + f * (stops[k][1] - stops[k - 1][1])),
                    c(stops[k - 1][2] + f * (stops[k][2] - stops[k - 1][2])),
                    c(stops[k - 1][3] + f * (stops[k][3] - stops[k - 1][3])));
      }
      return qRgb(255, 255, 255);
    }
  }
  return qRgb(g, g, g);
}

Lut default_lut(long k, long n) {
  if (n <= 1) return Lut::grays;
  static const Lut order[] = {Lut::green,  Lut::magenta, Lut::cyan,
                              Lut::yellow, Lut::red,     Lut::blue};
  return order[k % 6];
}

Levels percentile_levels(const std::vector<float>& pixels) {
  std::vector<float> sorted;  // the finite pixels
  sorted.reserve(pixels.size());
  for (const float v : pixels)
    if (std::isfinite(v)) sorted.push_back(v);
  if (sorted.empty()) return {0, 0, true};
  const auto at = [&](double q) {
    const auto k = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1));
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(k), sorted.end());
    return static_cast<double>(sorted[k]);
  };
  return {at(0.005), at(0.995), true};
}

}  // namespace xcorr::ui
