#include "core/dic/dic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dic/strain.hpp"

namespace xcorr::dic {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

Result<DicResult> run_dic(const Registry& engine, MatrixView<const float> reference,
                          StackView<const float> frames, const Roi& roi, const DicOptions& o,
                          const DicProgress& progress) {
  const auto cpu = make_cpu_registrar(engine);
  return run_dic(*cpu, reference, frames, roi, o, progress);
}

Result<DicResult> run_dic(FrameRegistrar& registrar, MatrixView<const float> reference,
                          StackView<const float> frames, const Roi& roi, const DicOptions& o,
                          const DicProgress& progress) {
  XCORR_RETURN_IF_ERROR(o.check());
  XCORR_RETURN_IF_ERROR(roi.check());
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
  bool reference_changed = true;
  result.device = registrar.device();
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
    FrameInputs in{ref_image, def_image, reference_changed, &grid, &cx, &cy, &active, &predicted};
    auto reg = registrar.register_frame(in, o);
    if (!reg.is_ok()) return reg.status();
    reference_changed = false;
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
      ref_image = def_image;
      reference_changed = true;
      ref_frame = f + 1;
    }
    if (progress && !progress(f + 1, frames.count))
      return Status{ErrorCode::cancelled, "DIC cancelled after frame " + std::to_string(f + 1)};
  }
  return result;
}

}  // namespace xcorr::dic
