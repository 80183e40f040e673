#include <algorithm>
#include <cmath>
#include <queue>

#include "core/dic/consistency.hpp"
#include "core/dic/frame_registrar.hpp"
#include "core/dic/initial_guess.hpp"
#include "core/parallel.hpp"
#include "core/round.hpp"

namespace xcorr::dic {
namespace {

Warp start_from(const IcgnResult& q, double dx, double dy) {
  const Warp& p = q.p;
  return {p[0] + p[1] * dx + p[2] * dy, p[1], p[2], p[3] + p[4] * dx + p[5] * dy, p[4], p[5]};
}

class CpuRegistrar final : public FrameRegistrar {
 public:
  explicit CpuRegistrar(const Registry& engine) : engine_(engine) {}
  std::string device() const override { return "cpu"; }
  Result<const FrameRegistration*> register_frame(const FrameInputs& in,
                                                  const DicOptions& o) override;
  Result<std::string> guess_method(const DicOptions& o, Index rows, Index cols,
                                   Index points) const override {
    return frame_guess_method(engine_, o.method, o.accuracy, rows, cols, o.subset, o.search_radius,
                              points, kGuessCallPoints);
  }

 private:
  const Registry& engine_;
  FrameRegistration reg_;
  std::unique_ptr<BSplineImage> ref_;
  std::unique_ptr<BSplineImage> def_;  // the last deformed image (FrameInputs::deformed_changed)
  math::NoiseModel noise_;             // of ref_ (noise_model())
};

Result<const FrameRegistration*> CpuRegistrar::register_frame(const FrameInputs& in,
                                                              const DicOptions& o) {
  if (in.reference_changed || !ref_ || ref_->interpolation() != o.interpolation ||
      ref_->prefilter() != o.prefilter) {
    ref_ = std::make_unique<BSplineImage>(in.reference, o.interpolation, o.prefilter);
    noise_ = noise_model(in.reference, o.interpolation, o.prefilter);
  }
  if (in.deformed_changed || !def_ || def_->interpolation() != o.interpolation ||
      def_->prefilter() != o.prefilter || def_->rows() != in.deformed.rows ||
      def_->cols() != in.deformed.cols) {
    def_ = std::make_unique<BSplineImage>(in.deformed, o.interpolation, o.prefilter);
  }
  const BSplineImage& def = *def_;
  const BSplineImage& ref = *ref_;
  const Grid& grid = *in.grid;
  const std::vector<double>& cx = *in.cx;
  const std::vector<double>& cy = *in.cy;
  const std::vector<char>& active = *in.active;
  const std::vector<Warp>& predicted = *in.predicted;
  const MatrixView<const float> ref_image = in.reference, def_image = in.deformed;
  const std::size_t n = grid.points.size();
  const int h = o.subset / 2;
  FrameRegistration& reg = reg_;
  reg.variant.clear();
  reg.points.assign(n, IcgnResult{});
  // Initial guesses for every active point whose rounded subset lies in the reference.
  std::vector<GuessRequest> requests;
  std::vector<std::size_t> owner;
  for (std::size_t k = 0; k < n; ++k) {
    if (!active[k]) continue;
    const Index x = round_half_away(cx[k]), y = round_half_away(cy[k]);
    if (x - h < 0 || y - h < 0 || x + h >= ref_image.cols || y + h >= ref_image.rows) continue;
    requests.push_back({x, y, round_half_away(predicted[k][0]), round_half_away(predicted[k][3])});
    owner.push_back(k);
  }
  // Progress: one unit per active point for the guess and one for IC-GN.
  const Index total =
      2 * static_cast<Index>(std::count(active.begin(), active.end(), static_cast<char>(1)));
  Index done = 0;
  const auto advance = [&](Index units) {
    done += units;
    return in.progress == nullptr || !*in.progress || (*in.progress)(std::min(done, total), total);
  };
  const Status cancelled{ErrorCode::cancelled, "cancelled inside a frame"};
  // One guess variant for the whole frame, chosen for its active points (as the GPU's), whatever
  // part of a frame this registrar is given.
  auto method = guess_method(o, def_image.rows, def_image.cols, total / 2);
  if (!method.is_ok()) return method.status();
  std::vector<Warp> guess(n, Warp{});
  std::vector<double> guess_zncc(n, -2);
  // The guess in blocks of about 2e8 multiply-adds (a fraction of a second on a CPU core).
  const double macs = static_cast<double>(o.subset) * o.subset * (2.0 * o.search_radius + 1) *
                      (2.0 * o.search_radius + 1);
  const auto block = static_cast<std::size_t>(std::clamp(2e8 / macs, 64.0, 65536.0));
  for (std::size_t first = 0; first < requests.size(); first += block) {
    const std::size_t last = std::min(requests.size(), first + block);
    const std::vector<GuessRequest> part(requests.begin() + static_cast<long>(first),
                                         requests.begin() + static_cast<long>(last));
    auto g = integer_guess(engine_, method.value(), o.accuracy, ref_image, def_image, part,
                           o.subset, o.search_radius);
    if (!g.is_ok()) return g.status();
    if (reg.variant.empty()) reg.variant = g.value().variant;
    for (std::size_t i = first; i < last; ++i) {
      const IntegerGuess& q = g.value().guesses[i - first];
      guess[owner[i]] = {static_cast<double>(q.u) + q.du, 0, 0,
                         static_cast<double>(q.v) + q.dv, 0, 0};
      guess_zncc[owner[i]] = q.zncc;
    }
    if (!advance(static_cast<Index>(last - first))) return cancelled;
  }
  if (!advance(total / 2 - static_cast<Index>(requests.size()))) return cancelled;
  constexpr Index kIcgnBlock = 1024;  // points per progress report (~0.1 s on a loaded core)
  if (o.propagation == Propagation::independent) {
    for (Index first = 0; first < static_cast<Index>(n); first += kIcgnBlock) {
      const Index count = std::min(kIcgnBlock, static_cast<Index>(n) - first);
      Index units = 0;
      for (Index k = first; k < first + count; ++k) units += active[static_cast<std::size_t>(k)];
      parallel_for(count, 8, [&](Index begin, Index end) {
        for (Index k = first + begin; k < first + end; ++k) {
          const auto i = static_cast<std::size_t>(k);
          if (active[i]) reg.points[i] = icgn(ref, def, cx[i], cy[i], guess[i], o, noise_);
        }
      });
      if (!advance(units)) return cancelled;
    }
    return &reg_;
  }
  // Reliability-guided: seeds in order of their integer-guess ZNCC; from each converged point
  // its 4 neighbours start from its warp, best ZNCC first.
  std::vector<std::size_t> seeds;
  for (std::size_t k = 0; k < n; ++k) {
    if (active[k]) seeds.push_back(k);
  }
  std::stable_sort(seeds.begin(), seeds.end(),
                   [&](std::size_t a, std::size_t b) { return guess_zncc[a] > guess_zncc[b]; });
  std::vector<char> visited(n, 0);
  std::priority_queue<std::pair<double, std::size_t>> queue;
  Index since_report = 0;
  const auto counted = [&] {  // one point done; false: cancelled (one thread: smaller blocks)
    if (++since_report < kIcgnBlock / 4) return true;
    since_report = 0;
    return advance(kIcgnBlock / 4);
  };
  for (const std::size_t s : seeds) {
    if (visited[s]) continue;
    visited[s] = 1;
    reg.points[s] = icgn(ref, def, cx[s], cy[s], guess[s], o, noise_);
    if (!counted()) return cancelled;
    // A seed whose match came from the part of a clamped search window outside its range.
    if (beyond_search(reg.points[s], predicted[s], o.search_radius))
      reg.points[s].status = PointStatus::outside_image;
    if (reg.points[s].status == PointStatus::converged) queue.push({reg.points[s].zncc, s});
    while (!queue.empty()) {
      const std::size_t q = queue.top().second;
      queue.pop();
      const Index r = static_cast<Index>(q) / grid.cols, c = static_cast<Index>(q) % grid.cols;
      const Index nr[4] = {r - 1, r + 1, r, r}, nc[4] = {c, c, c - 1, c + 1};
      for (int e = 0; e < 4; ++e) {
        if (nr[e] < 0 || nc[e] < 0 || nr[e] >= grid.rows || nc[e] >= grid.cols) continue;
        const auto k = static_cast<std::size_t>(nr[e] * grid.cols + nc[e]);
        if (visited[k] || !active[k]) continue;
        visited[k] = 1;
        reg.points[k] = icgn(ref, def, cx[k], cy[k],
                             start_from(reg.points[q], cx[k] - cx[q], cy[k] - cy[q]), o, noise_);
        if (!counted()) return cancelled;
        if (reg.points[k].status == PointStatus::converged) queue.push({reg.points[k].zncc, k});
      }
    }
  }
  return &reg_;
}

}  // namespace

std::unique_ptr<FrameRegistrar> make_cpu_registrar(const Registry& engine) {
  return std::make_unique<CpuRegistrar>(engine);
}

}  // namespace xcorr::dic
