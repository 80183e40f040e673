#include "core/dic/initial_guess.hpp"

#include <algorithm>

#include "core/dic/guess_fit.hpp"
#include "core/parallel.hpp"
#include "core/params.hpp"
#include "core/peak.hpp"

namespace xcorr::dic {

int guess_window(int subset, int radius, Index rows, Index cols) {
  const auto R = std::max<Index>(0, std::min<Index>(radius, (std::min(rows, cols) - subset) / 2));
  return subset + 2 * static_cast<int>(R);
}

CorrelationProblem guess_shape(Index count, int subset, int window, Accuracy accuracy) {
  CorrelationProblem shape;
  shape.request = {Form::n_to_mn, Mode::valid,          Normalization::zncc,
                   Output::peak,  SubpixelMethod::none, accuracy};
  shape.left = {nullptr, subset, subset, count, subset, static_cast<Index>(subset) * subset};
  shape.right = {nullptr, window, window, count, window, static_cast<Index>(window) * window};
  return shape;
}

Result<std::string> frame_guess_method(const Registry& r, std::string_view method,
                                       Accuracy accuracy, Index rows, Index cols, int subset,
                                       int radius, Index points, Index batch,
                                       std::string_view device) {
  if (method.find(':') != std::string_view::npos) return std::string(method);
  const int win = guess_window(subset, radius, rows, cols);
  const Index count = std::max<Index>(1, std::min(points, batch));
  auto chosen = choose_variant(r, guess_shape(count, subset, win, accuracy), method, device);
  if (!chosen.is_ok()) return chosen.status();
  const Correlator& c = *chosen.value();
  if (c.info().params.empty()) return c.info().name;
  return c.info().name + ":" + format_params(c.info().params, c.params());
}

Result<GuessOutput> integer_guess(const Registry& r, std::string_view method, Accuracy accuracy,
                                  MatrixView<const float> ref, MatrixView<const float> def,
                                  const std::vector<GuessRequest>& requests, int subset,
                                  int radius) {
  GuessOutput out;
  out.guesses.resize(requests.size());
  const Index h = subset / 2;
  const Index win = guess_window(subset, radius, def.rows, def.cols), R = (win - subset) / 2;
  // A configured method ("name:param=value,...", as frame_guess_method gives): made once here.
  std::unique_ptr<Correlator> configured;
  if (const std::size_t colon = method.find(':'); colon != std::string_view::npos) {
    auto made = configure_variant(r, method.substr(0, colon), method.substr(colon + 1));
    if (!made.is_ok()) return made.status();
    configured = std::move(made).value();
  }
  constexpr auto kBatch = static_cast<std::size_t>(kGuessCallPoints);
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
    auto result = configured ? correlate_with(*configured, p) : correlate(r, p, method);
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
    parallel_for(count, 16, [&](Index begin, Index end) {
      for (Index k = begin; k < end; ++k) {
        const GuessRequest& q = requests[first + static_cast<std::size_t>(k)];
        IntegerGuess& g = out.guesses[first + static_cast<std::size_t>(k)];
        const GuessWindow pt{static_cast<int>(q.x), static_cast<int>(q.y),
                             static_cast<int>(wx[static_cast<std::size_t>(k)]),
                             static_cast<int>(wy[static_cast<std::size_t>(k)])};
        const PeakFit fit = fit_guess(ref, def, pt, static_cast<int>(g.u), static_cast<int>(g.v),
                                      subset, static_cast<int>(win));
        g.du = fit.col_offset;
        g.dv = fit.row_offset;
      }
    });
  }
  return out;
}

}  // namespace xcorr::dic
