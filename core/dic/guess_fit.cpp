#include "core/dic/guess_fit.hpp"

namespace xcorr::dic {

PeakFit fit_guess(MatrixView<const float> ref, MatrixView<const float> def, const GuessWindow& p,
                  int u, int v, int subset, int window) {
  if (!fit_possible(p, u, v, subset, window)) return {};
  const int S = subset, h = S / 2;
  const double t_off = ref(p.y, p.x), d_off = def(p.y + v, p.x + u);
  double st = 0, stt = 0;
  for (int r = 0; r < S; ++r)
    for (int c = 0; c < S; ++c) {
      const double t = ref(p.y - h + r, p.x - h + c) - t_off;
      st += t, stt += t * t;
    }
  double z[3][3];
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) {
      double sw = 0, sww = 0, stw = 0;
      for (int r = 0; r < S; ++r)
        for (int c = 0; c < S; ++c) {
          const double t = ref(p.y - h + r, p.x - h + c) - t_off;
          const double w = def(p.y + v - h - 1 + dy + r, p.x + u - h - 1 + dx + c) - d_off;
          sw += w, sww += w * w, stw += t * w;
        }
      z[dy][dx] = neighbour_zncc(static_cast<double>(S) * S, st, stt, sw, sww, stw);
    }
  return refine_peak(z, kGuessFit);
}

}  // namespace xcorr::dic
