#include "core/dic/dic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <queue>

#include "core/dic/initial_guess.hpp"
#include "core/dic/strain.hpp"
#include "core/parallel.hpp"

namespace xcorr::dic {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The registration of one frame against the current reference: per grid point, the warp from
// the point's position in the reference frame (centre) to the deformed frame.
struct Registration {
  std::vector<IcgnResult> points;
  std::string variant;
};

Warp start_from(const IcgnResult& q, double dx, double dy) {
  const Warp& p = q.p;
  return {p[0] + p[1] * dx + p[2] * dy, p[1], p[2], p[3] + p[4] * dx + p[5] * dy, p[4], p[5]};
}

Result<Registration> register_frame(const Registry& engine, MatrixView<const float> ref_image,
                                    const BSplineImage& ref, const BSplineImage& def,
                                    MatrixView<const float> def_image, const Grid& grid,
                                    const std::vector<double>& cx, const std::vector<double>& cy,
                                    const std::vector<char>& active,
                                    const std::vector<Warp>& predicted, const DicOptions& o) {
  const std::size_t n = grid.points.size();
  const int h = o.subset / 2;
  Registration reg;
  reg.points.assign(n, IcgnResult{});
  // Integer guesses for every active point whose rounded subset lies in the reference.
  std::vector<GuessRequest> requests;
  std::vector<std::size_t> owner;
  for (std::size_t k = 0; k < n; ++k) {
    if (!active[k]) continue;
    const auto x = static_cast<Index>(std::lround(cx[k])),
               y = static_cast<Index>(std::lround(cy[k]));
    if (x - h < 0 || y - h < 0 || x + h >= ref_image.cols || y + h >= ref_image.rows) continue;
    requests.push_back({x, y, static_cast<Index>(std::lround(predicted[k][0])),
                        static_cast<Index>(std::lround(predicted[k][3]))});
    owner.push_back(k);
  }
  std::vector<Warp> guess(n, Warp{});
  std::vector<double> guess_zncc(n, -2);
  if (!requests.empty()) {
    auto g =
        integer_guess(engine, o.method, ref_image, def_image, requests, o.subset, o.search_radius);
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
    return reg;
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
  return reg;
}

}  // namespace

Result<DicResult> run_dic(const Registry& engine, MatrixView<const float> reference,
                          StackView<const float> frames, const Roi& roi, const DicOptions& o,
                          const DicProgress& progress) {
  XCORR_RETURN_IF_ERROR(o.check());
  XCORR_RETURN_IF_ERROR(roi.check());
  if (o.shape == ShapeFunction::second_order) {
    return Status{ErrorCode::unsupported,
                  "second-order shape functions are not implemented yet; use --shape first"};
  }
  if (frames.count == 0) return Status{ErrorCode::invalid_argument, "no deformed frames given"};
  if (frames.shape() != reference.shape()) {
    return Status{ErrorCode::size_mismatch, "the frames are " + to_string(frames.shape()) +
                                                " px but the reference is " +
                                                to_string(reference.shape()) + " px"};
  }
  if (reference.rows < o.subset || reference.cols < o.subset) {
    return Status{ErrorCode::invalid_argument, "the images (" + to_string(reference.shape()) +
                                                   " px) are smaller than one subset (" +
                                                   std::to_string(o.subset) + " px)"};
  }
  XCORR_RETURN_IF_ERROR(
      check_finite(StackView<const float>{reference.data, reference.rows, reference.cols, 1,
                                          reference.row_stride, 0},
                   "reference image"));
  XCORR_RETURN_IF_ERROR(check_finite(frames, "deformed frames"));

  DicResult result;
  const Mask mask = roi.render(reference.rows, reference.cols);
  result.grid = make_grid(reference.rows, reference.cols, o.subset, o.step, mask);
  const Grid& grid = result.grid;
  const std::size_t n = grid.points.size();
  if (std::none_of(grid.points.begin(), grid.points.end(),
                   [](const GridPoint& p) { return p.valid; })) {
    return Status{ErrorCode::invalid_argument,
                  "the ROI holds no point of interest (subset " + std::to_string(o.subset) +
                      " px, step " + std::to_string(o.step) + " px): enlarge it or the step"};
  }

  // Current reference: image, spline, the points' positions there and their total displacement.
  MatrixView<const float> ref_image = reference;
  auto ref = std::make_unique<BSplineImage>(reference);
  std::vector<double> cx(n), cy(n), ref_u(n, 0), ref_v(n, 0);
  std::vector<char> active(n);
  for (std::size_t k = 0; k < n; ++k) {
    cx[k] = grid.points[k].x;
    cy[k] = grid.points[k].y;
    active[k] = grid.points[k].valid ? 1 : 0;
  }
  std::vector<Warp> predicted(n, Warp{});  // last warp relative to the current reference
  Index ref_frame = 0;                     // 0 = the reference image
  const int update_every = std::max(1, o.reference_update);

  for (Index f = 0; f < frames.count; ++f) {
    const MatrixView<const float> def_image = frames[f];
    auto def = std::make_unique<BSplineImage>(def_image);
    auto reg = register_frame(engine, ref_image, *ref, *def, def_image, grid, cx, cy, active,
                              predicted, o);
    if (!reg.is_ok()) return reg.status();
    if (result.guess_variant.empty()) result.guess_variant = reg.value().variant;

    FrameResult fr;
    fr.frame = f + 1;
    fr.points.resize(n);
    std::vector<double> u(n, kNaN), v(n, kNaN);
    for (std::size_t k = 0; k < n; ++k) {
      PointResult& p = fr.points[k];
      const IcgnResult& q = reg.value().points[k];
      p.x = grid.points[k].x;
      p.y = grid.points[k].y;
      p.status = grid.points[k].valid ? (active[k] ? q.status : PointStatus::diverged)
                                      : PointStatus::outside_roi;
      p.zncc = active[k] ? q.zncc : kNaN;
      p.iterations = active[k] ? q.iterations : 0;
      if (p.status == PointStatus::converged) {
        p.u = u[k] = ref_u[k] + q.p[0];
        p.v = v[k] = ref_v[k] + q.p[3];
        p.ux = q.p[1], p.uy = q.p[2], p.vx = q.p[4], p.vy = q.p[5];
        predicted[k] = q.p;
      } else {
        p.u = p.v = p.ux = p.uy = p.vx = p.vy = kNaN;
        if (p.status == PointStatus::outside_roi) p.zncc = kNaN;
      }
    }
    const auto strain = compute_strain(grid, u, v, o.strain_window, o.strain);
    for (std::size_t k = 0; k < n; ++k) {
      fr.points[k].exx = strain[k].exx;
      fr.points[k].eyy = strain[k].eyy;
      fr.points[k].exy = strain[k].exy;
    }
    result.frames.push_back(std::move(fr));

    // Incremental mode: move the reference to this frame every `update_every` frames; points
    // that did not converge cannot be followed further.
    if (o.stack_mode == StackMode::incremental && (f + 1 - ref_frame) % update_every == 0) {
      for (std::size_t k = 0; k < n; ++k) {
        if (!active[k]) continue;
        if (std::isnan(u[k])) {
          active[k] = 0;
          continue;
        }
        cx[k] = grid.points[k].x + u[k];
        cy[k] = grid.points[k].y + v[k];
        ref_u[k] = u[k];
        ref_v[k] = v[k];
        predicted[k] = Warp{};
      }
      ref = std::move(def);
      ref_image = def_image;
      ref_frame = f + 1;
    }
    if (progress && !progress(f + 1, frames.count))
      return Status{ErrorCode::cancelled, "DIC cancelled after frame " + std::to_string(f + 1)};
  }
  return result;
}

}  // namespace xcorr::dic
