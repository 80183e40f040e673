#include <algorithm>
#include <cmath>
#include <queue>

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

 private:
  const Registry& engine_;
  FrameRegistration reg_;
  std::unique_ptr<BSplineImage> ref_;
};

Result<const FrameRegistration*> CpuRegistrar::register_frame(const FrameInputs& in,
                                                              const DicOptions& o) {
  if (in.reference_changed || !ref_) ref_ = std::make_unique<BSplineImage>(in.reference);
  const BSplineImage def(in.deformed);
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
  // Integer guesses for every active point whose rounded subset lies in the reference.
  std::vector<GuessRequest> requests;
  std::vector<std::size_t> owner;
  for (std::size_t k = 0; k < n; ++k) {
    if (!active[k]) continue;
    const Index x = round_half_away(cx[k]), y = round_half_away(cy[k]);
    if (x - h < 0 || y - h < 0 || x + h >= ref_image.cols || y + h >= ref_image.rows) continue;
    requests.push_back({x, y, round_half_away(predicted[k][0]), round_half_away(predicted[k][3])});
    owner.push_back(k);
  }
  std::vector<Warp> guess(n, Warp{});
  std::vector<double> guess_zncc(n, -2);
  if (!requests.empty()) {
    auto g =
        integer_guess(engine_, o.method, ref_image, def_image, requests, o.subset, o.search_radius);
    if (!g.is_ok()) return g.status();
    reg.variant = g.value().variant;
    for (std::size_t i = 0; i < owner.size(); ++i) {
      const IntegerGuess& q = g.value().guesses[i];
      guess[owner[i]] = {static_cast<double>(q.u), 0, 0, static_cast<double>(q.v), 0, 0};
      guess_zncc[owner[i]] = q.zncc;
    }
  }
  if (o.propagation == Propagation::independent) {
    parallel_for(static_cast<Index>(n), 8, [&](Index begin, Index end) {
      for (Index k = begin; k < end; ++k) {
        const auto i = static_cast<std::size_t>(k);
        if (active[i]) reg.points[i] = icgn(ref, def, cx[i], cy[i], guess[i], o);
      }
    });
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
  std::vector<char> done(n, 0);
  std::priority_queue<std::pair<double, std::size_t>> queue;
  for (const std::size_t s : seeds) {
    if (done[s]) continue;
    done[s] = 1;
    reg.points[s] = icgn(ref, def, cx[s], cy[s], guess[s], o);
    if (reg.points[s].status == PointStatus::converged) queue.push({reg.points[s].zncc, s});
    while (!queue.empty()) {
      const std::size_t q = queue.top().second;
      queue.pop();
      const Index r = static_cast<Index>(q) / grid.cols, c = static_cast<Index>(q) % grid.cols;
      const Index nr[4] = {r - 1, r + 1, r, r}, nc[4] = {c, c, c - 1, c + 1};
      for (int e = 0; e < 4; ++e) {
        if (nr[e] < 0 || nc[e] < 0 || nr[e] >= grid.rows || nc[e] >= grid.cols) continue;
        const auto k = static_cast<std::size_t>(nr[e] * grid.cols + nc[e]);
        if (done[k] || !active[k]) continue;
        done[k] = 1;
        reg.points[k] = icgn(ref, def, cx[k], cy[k],
                             start_from(reg.points[q], cx[k] - cx[q], cy[k] - cy[q]), o);
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
