#include "core/dic/initial_guess.hpp"

#include <algorithm>

#include "core/peak.hpp"

namespace xcorr::dic {

Result<GuessOutput> integer_guess(const Registry& r, std::string_view method, Accuracy accuracy,
                                  MatrixView<const float> ref, MatrixView<const float> def,
                                  const std::vector<GuessRequest>& requests, int subset,
                                  int radius) {
  GuessOutput out;
  out.guesses.resize(requests.size());
  const Index h = subset / 2;
  const Index R =
      std::max<Index>(0, std::min<Index>(radius, (std::min(def.rows, def.cols) - subset) / 2));
  const Index win = subset + 2 * R;
  constexpr std::size_t kBatch = 8192;
  for (std::size_t first = 0; first < requests.size(); first += kBatch) {
    const std::size_t n = std::min(kBatch, requests.size() - first);
    const auto count = static_cast<Index>(n);
    Stack<float> templates(subset, subset, count), windows(win, win, count);
    std::vector<Index> wx(n), wy(n);
    for (std::size_t k = 0; k < n; ++k) {
      const GuessRequest& q = requests[first + k];
      XCORR_CHECK(q.x - h >= 0 && q.y - h >= 0 && q.x + h < ref.cols && q.y + h < ref.rows,
                  "integer_guess: subset inside the reference");
      const auto t = static_cast<Index>(k);
      for (Index i = 0; i < subset; ++i)
        std::copy(ref.row(q.y - h + i) + q.x - h, ref.row(q.y - h + i) + q.x + h + 1,
                  templates[t].row(i));
      wx[k] = std::clamp<Index>(q.x + q.px - h - R, 0, def.cols - win);
      wy[k] = std::clamp<Index>(q.y + q.py - h - R, 0, def.rows - win);
      for (Index i = 0; i < win; ++i)
        std::copy(def.row(wy[k] + i) + wx[k], def.row(wy[k] + i) + wx[k] + win, windows[t].row(i));
    }
    const CorrelationProblem p{{Form::n_to_mn, Mode::valid, Normalization::zncc, Output::peak,
                                SubpixelMethod::none, accuracy},
                               templates.view(),
                               windows.view()};
    auto result = correlate(r, p, method);
    if (!result.is_ok()) return result.status();
    out.variant = result.value().variant;
    for (std::size_t k = 0; k < n; ++k) {
      const Peak peak = decode_peak(result.value().result[static_cast<Index>(k)].row(0));
      const GuessRequest& q = requests[first + k];
      IntegerGuess& g = out.guesses[first + k];
      g.u = wx[k] + peak.col - (q.x - h);
      g.v = wy[k] + peak.row - (q.y - h);
      g.zncc = peak.value;
    }
  }
  return out;
}

}  // namespace xcorr::dic
