#include "core/dic/session.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dic/limits.hpp"
#include "core/dic/strain.hpp"

namespace xcorr::dic {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Stack<float> copy_of(MatrixView<const float> m) {
  Stack<float> s(m.rows, m.cols, 1);
  for (Index r = 0; r < m.rows; ++r) std::copy(m.row(r), m.row(r) + m.cols, s[0].row(r));
  return s;
}

}  // namespace

Result<DicSession> DicSession::create(FrameRegistrar& registrar, MatrixView<const float> reference,
                                      const Roi& roi, const DicOptions& o) {
  XCORR_RETURN_IF_ERROR(o.check());
  XCORR_RETURN_IF_ERROR(roi.check());
  if (reference.rows < o.subset || reference.cols < o.subset) {
    return Status{ErrorCode::invalid_argument, "the images (" + to_string(reference.shape()) +
                                                   " px) are smaller than one subset (" +
                                                   std::to_string(o.subset) + " px)"};
  }
  XCORR_RETURN_IF_ERROR(
      check_finite(StackView<const float>{reference.data, reference.rows, reference.cols, 1,
                                          reference.row_stride, 0},
                   "reference image"));
  DicSession s;
  s.registrar_ = &registrar;
  s.o_ = o;
  const Mask mask = roi.render(reference.rows, reference.cols);
  s.grid_ = make_grid(reference.rows, reference.cols, o.subset, o.step, mask);
  const std::size_t n = s.grid_.points.size();
  if (std::none_of(s.grid_.points.begin(), s.grid_.points.end(),
                   [](const GridPoint& p) { return p.valid; })) {
    return Status{ErrorCode::invalid_argument,
                  "the ROI holds no point of interest (subset " + std::to_string(o.subset) +
                      " px, step " + std::to_string(o.step) + " px): enlarge it or the step"};
  }
  XCORR_RETURN_IF_ERROR(check_size_limits(o, reference.shape(), s.grid_));
  s.reference_ = copy_of(reference);
  DicState& st = s.state_;
  st.cx.resize(n);
  st.cy.resize(n);
  st.ref_u.assign(n, 0);
  st.ref_v.assign(n, 0);
  st.active.resize(n);
  st.predicted.assign(n, Warp{});
  for (std::size_t k = 0; k < n; ++k) {
    st.cx[k] = s.grid_.points[k].x;
    st.cy[k] = s.grid_.points[k].y;
    st.active[k] = s.grid_.points[k].valid ? 1 : 0;
  }
  return s;
}

Status DicSession::restore(DicState s, MatrixView<const float> reference_frame) {
  const std::size_t n = grid_.points.size();
  if (s.cx.size() != n || s.cy.size() != n || s.ref_u.size() != n || s.ref_v.size() != n ||
      s.active.size() != n || s.predicted.size() != n) {
    return {ErrorCode::invalid_argument, "a saved DIC state has " + std::to_string(s.cx.size()) +
                                             " points; this grid has " + std::to_string(n)};
  }
  if (o_.stack_mode == StackMode::incremental && s.ref_frame > 0) {
    if (reference_frame.shape() != reference_.shape()) {
      return {ErrorCode::size_mismatch, "the reference frame to resume from is " +
                                            to_string(reference_frame.shape()) + " px, not " +
                                            to_string(reference_.shape())};
    }
    reference_ = copy_of(reference_frame);
  }
  state_ = std::move(s);
  reference_changed_ = true;
  return Status::ok();
}

Result<FrameResult> DicSession::next(MatrixView<const float> image, Index number) {
  if (image.shape() != reference_.shape()) {
    return Status{ErrorCode::size_mismatch,
                  "frame " + std::to_string(number) + " is " + to_string(image.shape()) +
                      " px but the reference is " + to_string(reference_.shape()) + " px"};
  }
  XCORR_RETURN_IF_ERROR(check_finite(
      StackView<const float>{image.data, image.rows, image.cols, 1, image.row_stride, 0},
      "frame " + std::to_string(number)));
  DicState& st = state_;
  const std::size_t n = grid_.points.size();
  FrameInputs in{reference_[0], image,  reference_changed_, &grid_,
                 &st.cx,        &st.cy, &st.active,         &st.predicted};
  auto reg = registrar_->register_frame(in, o_);
  if (!reg.is_ok()) return reg.status();
  reference_changed_ = false;
  const FrameRegistration& registration = *reg.value();
  if (st.guess_variant.empty()) st.guess_variant = registration.variant;

  FrameResult fr;
  fr.frame = number;
  fr.points.resize(n);
  std::vector<double> u(n, kNaN), v(n, kNaN);
  for (std::size_t k = 0; k < n; ++k) {
    PointResult& p = fr.points[k];
    const IcgnResult& q = registration.points[k];
    p.x = grid_.points[k].x;
    p.y = grid_.points[k].y;
    p.status = grid_.points[k].valid ? (st.active[k] ? q.status : PointStatus::diverged)
                                     : PointStatus::outside_roi;
    p.zncc = st.active[k] ? q.zncc : kNaN;
    p.iterations = st.active[k] ? q.iterations : 0;
    if (p.status == PointStatus::converged) {
      p.u = u[k] = st.ref_u[k] + q.p[0];
      p.v = v[k] = st.ref_v[k] + q.p[3];
      p.ux = q.p[1], p.uy = q.p[2], p.vx = q.p[4], p.vy = q.p[5];
      st.predicted[k] = q.p;
    } else {
      p.u = p.v = p.ux = p.uy = p.vx = p.vy = kNaN;
      if (p.status == PointStatus::outside_roi) p.zncc = kNaN;
    }
  }
  const auto strain = compute_strain(grid_, u, v, o_.strain_window, o_.strain);
  for (std::size_t k = 0; k < n; ++k) {
    fr.points[k].exx = strain[k].exx;
    fr.points[k].eyy = strain[k].eyy;
    fr.points[k].exy = strain[k].exy;
  }
  // Incremental mode: move the reference to this frame every `reference_update` frames; points
  // that did not converge cannot be followed further.
  const Index update_every = std::max(1, o_.reference_update);
  if (o_.stack_mode == StackMode::incremental && (number - st.ref_frame) % update_every == 0) {
    for (std::size_t k = 0; k < n; ++k) {
      if (!st.active[k]) continue;
      if (std::isnan(u[k])) {
        st.active[k] = 0;
        continue;
      }
      st.cx[k] = grid_.points[k].x + u[k];
      st.cy[k] = grid_.points[k].y + v[k];
      st.ref_u[k] = u[k];
      st.ref_v[k] = v[k];
      st.predicted[k] = Warp{};
    }
    reference_ = copy_of(image);
    reference_changed_ = true;
    st.ref_frame = number;
  }
  return fr;
}

}  // namespace xcorr::dic
