#include "core/dic/session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <future>
#include <limits>

#include "core/dic/consistency.hpp"
#include "core/dic/limits.hpp"
#include "core/dic/strain.hpp"
#include "core/missing_data.hpp"
#include "core/parallel.hpp"

namespace xcorr::dic {
namespace {

// Fills `w`'s missing pixels (core/missing_data.hpp) and returns where they were; invalid_argument
// when no pixel is finite.
Result<std::vector<char>> fill_missing(Stack<float>& w, const std::string& name) {
  std::vector<char> missing = fill_missing_with_mean(w[0]);
  if (!missing.empty() && std::all_of(missing.begin(), missing.end(), [](char m) { return m; }))
    return Status{ErrorCode::invalid_argument,
                  name +
                      " has no finite pixel where the ROI's points are measured (every pixel "
                      "NaN or Inf)"};
  return missing;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Seconds since `t`, and `t` moved to now.
double lap(std::chrono::steady_clock::time_point& t) {
  const auto now = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(now - t).count();
  t = now;
  return s;
}

Stack<float> copy_of(MatrixView<const float> m) {
  Stack<float> s(m.rows, m.cols, 1);
  for (Index r = 0; r < m.rows; ++r) std::copy(m.row(r), m.row(r) + m.cols, s[0].row(r));
  return s;
}

// Rows [w.y, w.y + w.rows) and columns [w.x, w.x + w.cols) of `m`, contiguous.
void copy_window(MatrixView<const float> m, const Window& w, Stack<float>& out) {
  if (out.rows() != w.rows || out.cols() != w.cols || out.count() != 1)
    out = Stack<float>(w.rows, w.cols, 1);
  parallel_for(w.rows, std::max<Index>(1, 262144 / std::max<Index>(1, w.cols)),
               [&](Index first, Index last) {
                 for (Index r = first; r < last; ++r)
                   std::copy(m.row(w.y + r) + w.x, m.row(w.y + r) + w.x + w.cols, out[0].row(r));
               });
}

RoiShape shifted(RoiShape s, double dx, double dy) {
  s.x += dx, s.y += dy;
  for (Point2& p : s.vertices) p.x += dx, p.y += dy;
  return s;
}

// The ROI's bounding box plus `margin` px, its corner on the grid's lattice (a multiple of the
// step, so the window's grid points are the whole image's), inside the image; the whole image
// without ROI.
Window window_for(const Roi& roi, Shape image, int step, double margin) {
  if (roi.shapes.empty()) return {0, 0, image.rows, image.cols};
  double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
  for (const RoiShape& r : roi.shapes) {
    if (r.subtract) continue;  // cannot extend the region
    const RoiBounds b = bounds(r);
    x0 = std::min(x0, b.x0), y0 = std::min(y0, b.y0), x1 = std::max(x1, b.x1),
    y1 = std::max(y1, b.y1);
  }
  if (x0 > x1) return {0, 0, image.rows, image.cols};  // only subtracting shapes: nothing
  auto lo = [&](double v) {
    const double t = std::max(0.0, std::floor(v - margin));
    return static_cast<Index>(t) / step * step;
  };
  auto hi = [&](double v, Index size) {
    return std::min<Index>(size, static_cast<Index>(std::max(0.0, std::ceil(v + margin))) + 1);
  };
  Window w;
  w.x = std::min(lo(x0), image.cols - 1);
  w.y = std::min(lo(y0), image.rows - 1);
  w.cols = std::max<Index>(1, hi(x1, image.cols) - w.x);
  w.rows = std::max<Index>(1, hi(y1, image.rows) - w.y);
  return w;
}

}  // namespace

Status DicSession::load_reference_window() {
  if (!source_) {
    copy_window(reference_[0], state_.window, reference_window_);
  } else {
    auto region = source_(state_.ref_frame, state_.window);
    if (!region.is_ok()) return region.status();
    reference_window_ = std::move(region).value();
  }
  auto missing = fill_missing(reference_window_, "the reference image");
  if (!missing.is_ok()) return missing.status();
  reference_missing_ = std::move(missing).value();
  reference_changed_ = true;
  return Status::ok();
}

Grid DicSession::grid_of(const Window& w) const {
  Roi local;
  for (const RoiShape& r : roi_.shapes)
    local.shapes.push_back(shifted(r, -static_cast<double>(w.x), -static_cast<double>(w.y)));
  return make_grid(w.rows, w.cols, o_.subset, o_.step, local.render(w.rows, w.cols));
}

DicSession::~DicSession() {
  ahead_.wait();
}

Status DicSession::move_to(const Window& w, Grid grid) {
  ahead_.wait();  // it reads the grid and the state
  const Window old = state_.window;
  const Grid old_grid = std::move(grid_);
  grid_ = std::move(grid);
  const std::size_t n = grid_.points.size();
  // A point of the old grid at window position (x, y) is here at (x + dx, y + dy).
  const double dx = static_cast<double>(old.x - w.x), dy = static_cast<double>(old.y - w.y);
  const double h = o_.subset / 2;
  auto index_of = [&](double x, double y) {
    const auto c = static_cast<Index>(std::lround((x - h) / o_.step));
    const auto r = static_cast<Index>(std::lround((y - h) / o_.step));
    return static_cast<std::size_t>(r * grid_.cols + c);
  };
  DicState st;
  st.ref_frame = state_.ref_frame;
  st.guess_variant = state_.guess_variant;
  st.window = w;
  st.cx.resize(n), st.cy.resize(n), st.active.assign(n, 0);
  st.ref_u.assign(n, 0), st.ref_v.assign(n, 0), st.predicted.assign(n, Warp{});
  for (std::size_t k = 0; k < n; ++k) st.cx[k] = grid_.points[k].x, st.cy[k] = grid_.points[k].y;
  std::vector<std::size_t> moved(old_grid.points.size());
  for (std::size_t k = 0; k < old_grid.points.size() && !state_.cx.empty(); ++k) {
    const std::size_t j = index_of(old_grid.points[k].x + dx, old_grid.points[k].y + dy);
    moved[k] = j;
    st.cx[j] = state_.cx[k] + dx, st.cy[j] = state_.cy[k] + dy;
    st.ref_u[j] = state_.ref_u[k], st.ref_v[j] = state_.ref_v[k];
    st.active[j] = state_.active[k], st.predicted[j] = state_.predicted[k];
  }
  for (std::size_t& r : report_) r = moved[r];
  finish_grid_.reset();  // the finishing's copies are taken again
  state_ = std::move(st);
  return load_reference_window();
}

Status DicSession::grow_if_needed() {
  const Window& w = state_.window;
  // The next frame searches +-search_radius around each point's prediction, with the subset and
  // the spline's reach (its support, prefilter and smoothing) around it.
  const double reach =
      o_.subset / 2 + o_.search_radius + spline_reach(o_.interpolation, o_.prefilter);
  constexpr Index kGrain = 16384;
  const auto n = static_cast<Index>(grid_.points.size());
  std::vector<double> overs(static_cast<std::size_t>((n + kGrain - 1) / kGrain), 0.0);
  parallel_for(n, kGrain, [&](Index first, Index last) {
    double& over = overs[static_cast<std::size_t>(first / kGrain)];
    for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last); ++k) {
      if (!state_.active[k]) continue;
      const double x = state_.cx[k] + state_.predicted[k][0],
                   y = state_.cy[k] + state_.predicted[k][3];
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      if (w.x > 0) over = std::max(over, reach - x);
      if (w.y > 0) over = std::max(over, reach - y);
      if (w.x + w.cols < image_.cols)
        over = std::max(over, x + reach - static_cast<double>(w.cols - 1));
      if (w.y + w.rows < image_.rows)
        over = std::max(over, y + reach - static_cast<double>(w.rows - 1));
    }
  });
  const double over = overs.empty() ? 0.0 : *std::max_element(overs.begin(), overs.end());
  if (over <= 0) return Status::ok();
  margin_ = 2 * margin_ + over;
  const Window grown = window_for(roi_, image_, o_.step, margin_);
  return move_to(grown, grid_of(grown));
}

Result<DicSession> DicSession::create(FrameRegistrar& registrar, MatrixView<const float> reference,
                                      const Roi& roi, const DicOptions& o) {
  XCORR_RETURN_IF_ERROR(o.check());
  XCORR_RETURN_IF_ERROR(roi.check());
  DicSession s;
  s.reference_ = copy_of(reference);
  XCORR_RETURN_IF_ERROR(s.start(registrar, reference.shape(), roi, o));
  return s;
}

Result<DicSession> DicSession::create(FrameRegistrar& registrar, Shape image, RegionSource source,
                                      const Roi& roi, const DicOptions& o) {
  XCORR_RETURN_IF_ERROR(o.check());
  XCORR_RETURN_IF_ERROR(roi.check());
  DicSession s;
  s.source_ = std::move(source);
  XCORR_RETURN_IF_ERROR(s.start(registrar, image, roi, o));
  return s;
}

Status DicSession::check(Shape image, const Roi& roi, const DicOptions& o) {
  XCORR_RETURN_IF_ERROR(o.check());
  XCORR_RETURN_IF_ERROR(roi.check());
  DicSession s;
  return s.plan(image, roi, o).status();
}

Result<Grid> DicSession::plan(Shape image, const Roi& roi, const DicOptions& o) {
  if (image.rows < o.subset || image.cols < o.subset) {
    return Status{ErrorCode::invalid_argument, "the images (" + image_size(image) +
                                                   ") are smaller than one subset (" +
                                                   std::to_string(o.subset) + " px)"};
  }
  o_ = o;
  roi_ = roi;
  image_ = image;
  margin_ = o.subset / 2 + 2.0 * o.search_radius + spline_reach(o.interpolation, o.prefilter);
  // The grid first (the checks below need no pixels), then the reference's window.
  Grid grid = grid_of(window_for(roi, image_, o.step, margin_));
  if (std::none_of(grid.points.begin(), grid.points.end(),
                   [](const GridPoint& p) { return p.valid; })) {
    return Status{ErrorCode::invalid_argument,
                  "the ROI holds no point of interest (subset " + std::to_string(o.subset) +
                      " px, step " + std::to_string(o.step) + " px): enlarge it or the step"};
  }
  XCORR_RETURN_IF_ERROR(check_size_limits(o, image, grid));
  return grid;
}

Status DicSession::start(FrameRegistrar& registrar, Shape image, const Roi& roi,
                         const DicOptions& o) {
  auto planned = plan(image, roi, o);
  if (!planned.is_ok()) return planned.status();
  registrar_ = &registrar;
  const Window first = window_for(roi, image_, o.step, margin_);
  XCORR_RETURN_IF_ERROR(move_to(first, std::move(planned).value()));
  const std::size_t n = grid_.points.size();
  DicState& st = state_;
  for (std::size_t k = 0; k < n; ++k) st.active[k] = grid_.points[k].valid ? 1 : 0;
  result_grid_ = grid_;
  for (GridPoint& p : result_grid_.points) {
    p.x += static_cast<double>(st.window.x);
    p.y += static_cast<double>(st.window.y);
  }
  report_.resize(n);
  for (std::size_t k = 0; k < n; ++k) report_[k] = k;
  finish_grid_.reset();
  return Status::ok();
}

Status DicSession::restore(DicState s, MatrixView<const float> reference_frame) {
  ahead_.wait();
  if (ahead_.a) ahead_.a->number = 0;
  if (s.window != state_.window) {  // the run had grown its window: work on that one
    const Window& w = s.window;
    if (w.rows < 1 || w.cols < 1 || w.x < 0 || w.y < 0 || w.x + w.cols > image_.cols ||
        w.y + w.rows > image_.rows || w.x % o_.step != 0 || w.y % o_.step != 0 ||
        w.x > state_.window.x || w.y > state_.window.y ||
        w.x + w.cols < state_.window.x + state_.window.cols ||
        w.y + w.rows < state_.window.y + state_.window.rows)
      return {ErrorCode::invalid_argument, "a saved DIC state names a window this job cannot have"};
    XCORR_RETURN_IF_ERROR(move_to(w, grid_of(w)));
  }
  const std::size_t n = grid_.points.size();
  if (s.cx.size() != n || s.cy.size() != n || s.ref_u.size() != n || s.ref_v.size() != n ||
      s.active.size() != n || s.predicted.size() != n) {
    return {ErrorCode::invalid_argument, "a saved DIC state has " + std::to_string(s.cx.size()) +
                                             " points; this grid has " + std::to_string(n)};
  }
  if (!source_ && o_.stack_mode == StackMode::incremental && s.ref_frame > 0) {
    if (reference_frame.shape() != reference_.shape()) {
      return {ErrorCode::size_mismatch, "the reference frame to resume from is " +
                                            image_size(reference_frame.shape()) + ", not " +
                                            image_size(reference_.shape())};
    }
    reference_ = copy_of(reference_frame);
  }
  state_ = std::move(s);
  next_number_ = 0;
  return load_reference_window();
}

FrameTimes& FrameTimes::operator+=(const FrameTimes& t) {
  prepare += t.prepare, registrar += t.registrar, upcoming += t.upcoming, copy += t.copy;
  consistency += t.consistency, recheck += t.recheck, points += t.points, update += t.update;
  range += t.range, outliers += t.outliers, isolated += t.isolated;
  neighbours += t.neighbours, missing += t.missing, suspects += t.suspects;
  ahead += t.ahead, again += t.again;
  return *this;
}

std::string per_frame_text(const FrameTimes& sum, Index frames) {
  const double ms = frames > 0 ? 1e3 / static_cast<double>(frames) : 0;
  char text[640];
  std::snprintf(text, sizeof text,
                "prepare %.1f, registrar call %.1f, the next frame handed over %.1f, copy %.1f, "
                "consistency %.1f (search range %.1f, ZNCC outliers %.1f, isolated %.1f, "
                "neighbours %.1f, the suspects' registration %.1f of %.0f suspects, missing data "
                "%.1f), points %.1f, update %.1f; %zu of %lld frames registered ahead, %.0f "
                "points a frame registered again",
                sum.prepare * ms, sum.registrar * ms, sum.upcoming * ms, sum.copy * ms,
                sum.consistency * ms, sum.range * ms, sum.outliers * ms, sum.isolated * ms,
                sum.neighbours * ms, sum.recheck * ms, static_cast<double>(sum.suspects) * ms / 1e3,
                sum.missing * ms, sum.points * ms, sum.update * ms, sum.ahead,
                static_cast<long long>(frames), static_cast<double>(sum.again) * ms / 1e3);
  return text;
}

Result<FrameResult> DicSession::next(MatrixView<const float> image, Index number,
                                     const PointProgress& progress) {
  auto p = start(image, number, progress);
  if (!p.is_ok()) return p.status();
  return p.value().get();
}

Result<FrameResult> DicSession::next_window(Stack<float> window_image, Index number,
                                            const PointProgress& progress) {
  auto p = start_window(std::move(window_image), number, progress);
  if (!p.is_ok()) return p.status();
  return p.value().get();
}

Result<PendingFrame> DicSession::start(MatrixView<const float> image, Index number,
                                       const PointProgress& progress,
                                       const UpcomingFrame& upcoming) {
  if (image.shape() != image_) {
    return Status{ErrorCode::size_mismatch,
                  "frame " + std::to_string(number) + " is " + to_string(image.shape()) +
                      " px but the reference is " + to_string(image_) + " px"};
  }
  if (source_)
    return Status{ErrorCode::internal, "a session over a region source takes next_window()"};
  auto t = std::chrono::steady_clock::now();
  times_ = FrameTimes{};
  const bool preloaded = take_upcoming(number, image.data);
  if (!preloaded) copy_window(image, state_.window, frame_window_);
  times_.prepare = lap(t);
  return register_window(&image, number, progress, preloaded, upcoming);
}

Result<PendingFrame> DicSession::start_window(Stack<float> window_image, Index number,
                                              const PointProgress& progress,
                                              const UpcomingFrame& upcoming) {
  const Window& w = state_.window;
  if (window_image.rows() != w.rows || window_image.cols() != w.cols || window_image.count() != 1)
    return Status{ErrorCode::internal, "frame " + std::to_string(number) + ": not the window"};
  times_ = FrameTimes{};
  const bool preloaded = take_upcoming(number, window_image.data());
  if (!preloaded) frame_window_ = std::move(window_image);
  return register_window(nullptr, number, progress, preloaded, upcoming);
}

bool DicSession::take_upcoming(Index number, const float* pixels) {
  const bool same = next_number_ > 0 && next_number_ == number && next_pixels_ == pixels &&
                    next_at_ == state_.window;
  next_number_ = 0;
  if (!same) {
    ahead_.wait();  // a frame registered ahead reads the prepared window
    return false;
  }
  std::swap(frame_window_, next_window_);
  frame_missing_.swap(next_missing_);
  return true;
}

Index DicSession::stage_upcoming(const Upcoming& u) {
  const Window& w = state_.window;
  if (u.number <= 0 || u.pixels.data == nullptr) return 0;
  if (!source_ && u.pixels.shape() == image_) {
    copy_window(u.pixels, w, next_window_);
  } else if (source_ && u.pixels.rows == w.rows && u.pixels.cols == w.cols) {
    copy_window(u.pixels, Window{0, 0, w.rows, w.cols}, next_window_);
  } else {
    return 0;
  }
  auto missing = fill_missing(next_window_, "frame " + std::to_string(u.number));
  if (!missing.is_ok()) return 0;  // its own start() says so
  next_missing_ = std::move(missing).value();
  next_pixels_ = u.pixels.data;
  next_at_ = w;
  return u.number;
}

Status DicSession::check_consistency(Index number, std::vector<IcgnResult>& points) {
  // Independent points came from their integer search (reliability-guided propagation checks
  // its seeds in the registrar; the others start from a neighbour's warp).
  const bool independent = o_.propagation == Propagation::independent;
  auto t = std::chrono::steady_clock::now();
  if (independent) {
    parallel_for(static_cast<Index>(points.size()), 16384, [&](Index first, Index last) {
      for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last); ++k)
        if (state_.active[k] && beyond_search(points[k], state_.predicted[k], o_.search_radius))
          points[k].status = PointStatus::outside_image;
    });
  }
  times_.range = lap(t);
  if (o_.max_deviation <= 0) return Status::ok();
  for (const std::size_t k : find_zncc_outliers(state_.active, points))
    points[k].status = PointStatus::inconsistent;
  times_.outliers = lap(t);
  for (const std::size_t k : find_isolated(grid_, state_.active, points))
    points[k].status = PointStatus::inconsistent;
  times_.isolated = lap(t);
  if (!independent) return Status::ok();
  const std::vector<Suspect> suspects =
      find_suspects(grid_, state_.cx, state_.cy, state_.active, points, o_.max_deviation);
  times_.neighbours = lap(t);
  if (suspects.empty()) return Status::ok();
  DicState& st = state_;
  std::vector<char> active(points.size(), 0);
  std::vector<Warp> predicted = st.predicted;
  for (const Suspect& s : suspects) {
    active[s.index] = 1;
    predicted[s.index] = s.median;
  }
  DicOptions again = o_;
  again.search_radius = 1;  // around the neighbours' warp
  FrameInputs in{reference_window_[0], frame_window_[0], false, &grid_, &st.cx, &st.cy, &active,
                 &predicted,           nullptr};
  t = std::chrono::steady_clock::now();  // the recheck's registration alone
  ahead_.wait();                         // the registrar is the next frame's until then
  // The frame registered just before, unless the next one was registered ahead meanwhile.
  in.deformed_changed = registrar_frame_ != number;
  auto reg = registrar_->register_frame(in, again);
  registrar_frame_ = reg.is_ok() ? number : 0;
  if (!reg.is_ok()) return reg.status();
  times_.recheck = lap(t);
  times_.suspects = suspects.size();
  for (const Suspect& s : suspects) {
    const IcgnResult& r = reg.value()->points[s.index];
    const bool agrees = r.status == PointStatus::converged &&
                        std::abs(r.p[0] - s.median[0]) <= o_.max_deviation &&
                        std::abs(r.p[3] - s.median[3]) <= o_.max_deviation;
    if (agrees) {
      points[s.index] = r;
    } else {
      points[s.index].status = r.status == PointStatus::outside_image ? PointStatus::outside_image
                                                                      : PointStatus::inconsistent;
    }
  }
  return Status::ok();
}

void DicSession::mark_missing(std::vector<IcgnResult>& points) const {
  if (reference_missing_.empty() && frame_missing_.empty()) return;
  const DicState& st = state_;
  const Index rows = reference_window_.rows(), cols = reference_window_.cols();
  // The subset's half-side and how far a pixel reaches into the interpolated values.
  const double h = o_.subset / 2 + spline_support(o_.interpolation, o_.prefilter);
  parallel_for(static_cast<Index>(points.size()), 4096, [&](Index first, Index last) {
    for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last); ++k) {
      if (!st.active[k]) continue;
      const IcgnResult& q = points[k];
      const bool moved = std::isfinite(q.p[0]) && std::isfinite(q.p[3]);
      const double x = st.cx[k], y = st.cy[k];
      if (touches_missing(reference_missing_, rows, cols, x - h, y - h, x + h, y + h) ||
          (moved && touches_missing(frame_missing_, rows, cols, x + q.p[0] - h, y + q.p[3] - h,
                                    x + q.p[0] + h, y + q.p[3] + h)))
        points[k].status = PointStatus::missing_data;
    }
  });
}

void DicSession::register_ahead(Index number, const std::vector<IcgnResult>& got,
                                bool moves_reference) {
  if (moves_reference || o_.propagation != Propagation::independent || !registrar_->may_run_ahead())
    return;
  ahead_.wait();
  if (!ahead_.a) ahead_.a = std::make_unique<Ahead>();
  Ahead& a = *ahead_.a;
  a.number = 0;
  const DicState& st = state_;
  const std::size_t n = grid_.points.size();
  if (got.size() != n) return;
  // The whole frame's guess method: the points registered again later use it.
  const auto points = static_cast<Index>(std::count(st.active.begin(), st.active.end(), char{1}));
  auto method =
      registrar_->guess_method(o_, reference_window_.rows(), reference_window_.cols(), points);
  if (!method.is_ok()) return;
  a.method = std::move(method).value();
  // The predictions the points loop will leave if the check changes nothing (searches from the
  // reference: the state's, which no check changes).
  a.predicted.resize(n);
  const bool follows = o_.frame_guess == FrameGuess::previous;
  parallel_for(static_cast<Index>(n), 16384, [&](Index first, Index last) {
    for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last); ++k)
      a.predicted[k] = follows && st.active[k] && got[k].status == PointStatus::converged
                           ? got[k].p
                           : st.predicted[k];
  });
  a.number = number;
  a.status = Status::ok();
  FrameInputs in{reference_window_[0], next_window_[0], false,  &grid_, &st.cx, &st.cy,
                 &st.active,           &a.predicted,    nullptr};
  in.deformed_preloaded = true;
  registrar_frame_ = number;
  a.done = std::async(std::launch::async, [this, &a, in] {
    try {
      auto r = registrar_->register_frame(in, o_);
      if (!r.is_ok()) {
        a.status = r.status();
        return;
      }
      const std::vector<IcgnResult>& from = r.value()->points;
      a.points.resize(from.size());
      parallel_for(static_cast<Index>(from.size()), 16384, [&](Index first, Index last) {
        std::copy(from.begin() + first, from.begin() + last, a.points.begin() + first);
      });
    } catch (const std::exception& e) {  // the frame then registers after the check
      a.status = Status{ErrorCode::internal, std::string("registered ahead: ") + e.what()};
    }
  });
}

Result<bool> DicSession::take_ahead(Index number, bool preloaded, const PointProgress& progress) {
  if (!ahead_.a || ahead_.a->number == 0) return false;
  ahead_.wait();
  Ahead& a = *ahead_.a;
  const std::size_t n = grid_.points.size();
  const bool usable = a.number == number && preloaded && !reference_changed_ && a.status.is_ok() &&
                      a.points.size() == n;
  a.number = 0;
  if (!usable) return false;
  times_.ahead = 1;
  registered_.swap(a.points);
  // The points whose prediction the check of the frame before changed, registered again.
  const DicState& st = state_;
  const std::vector<std::size_t> changed =
      parallel_select(static_cast<Index>(n), 16384, [&](Index i) {
        const auto k = static_cast<std::size_t>(i);
        return st.active[k] &&
               std::memcmp(a.predicted[k].data(), st.predicted[k].data(), sizeof(Warp)) != 0;
      });
  times_.again = changed.size();
  if (changed.empty()) return true;
  std::vector<char> again(n, 0);
  for (const std::size_t k : changed) again[k] = 1;
  DicOptions o = o_;
  o.method = a.method;
  FrameInputs in{reference_window_[0], frame_window_[0], false, &grid_, &st.cx, &st.cy, &again,
                 &st.predicted,        &progress};
  in.deformed_changed = registrar_frame_ != number;
  auto r = registrar_->register_frame(in, o);
  registrar_frame_ = r.is_ok() ? number : 0;
  if (!r.is_ok()) return r.status();
  for (const std::size_t k : changed) registered_[k] = r.value()->points[k];
  return true;
}

Result<PendingFrame> DicSession::register_window(const MatrixView<const float>* image, Index number,
                                                 const PointProgress& progress, bool preloaded,
                                                 const UpcomingFrame& upcoming) {
  auto t = std::chrono::steady_clock::now();
  if (!preloaded) {
    auto missing = fill_missing(frame_window_, "frame " + std::to_string(number));
    if (!missing.is_ok()) return missing.status();
    frame_missing_ = std::move(missing).value();
  }
  times_.prepare += lap(t);
  DicState& st = state_;
  const std::size_t n = grid_.points.size();
  FrameInputs in{reference_window_[0], frame_window_[0], reference_changed_, &grid_, &st.cx, &st.cy,
                 &st.active,           &st.predicted,    &progress};
  in.deformed_preloaded = preloaded;
  // The upcoming frame's window cut and its missing pixels filled on another thread while this
  // frame registers (that reads none of what it writes); handed to the registrar once it is done.
  std::future<Index> staged;
  if (upcoming) {
    staged =
        std::async(std::launch::async, [this, &upcoming] { return stage_upcoming(upcoming()); });
  }
  // The frame registered ahead (into registered_), or registered now.
  Result<const FrameRegistration*> reg = Status{ErrorCode::internal, "not registered"};
  const Result<bool> took = take_ahead(number, preloaded, progress);
  Status registered_status = took.status();
  if (registered_status.is_ok() && !took.value()) {
    reg = registrar_->register_frame(in, o_);
    registrar_frame_ = reg.is_ok() ? number : 0;
    registered_status = reg.status();
  }
  times_.registrar = lap(t);
  const Index next = staged.valid() ? staged.get() : 0;
  if (next > 0 && registered_status.is_ok()) {
    registrar_->preload(next_window_[0], o_);
    next_number_ = next;
  }
  if (!registered_status.is_ok()) return registered_status;
  times_.upcoming = lap(t);
  reference_changed_ = false;
  // A copy: the registrar reuses its memory in the consistency check's second call and in the
  // next frame's registration ahead. Per point, independent of the others: in chunks over the
  // host's threads.
  constexpr Index kGrain = 16384;
  std::vector<IcgnResult>& registered = registered_;
  if (!took.value()) {
    if (st.guess_variant.empty()) st.guess_variant = reg.value()->variant;
    const std::vector<IcgnResult>& got = reg.value()->points;
    registered.resize(got.size());
    parallel_for(static_cast<Index>(got.size()), kGrain, [&](Index first, Index last) {
      std::copy(got.begin() + first, got.begin() + last, registered.begin() + first);
    });
  }
  times_.copy = lap(t);
  const Index update_every = std::max(1, o_.reference_update);
  const bool moves_reference =
      o_.stack_mode == StackMode::incremental && (number - st.ref_frame) % update_every == 0;
  if (next > 0 && next_number_ == next) register_ahead(next, registered, moves_reference);
  XCORR_RETURN_IF_ERROR(check_consistency(number, registered));
  auto marks = std::chrono::steady_clock::now();
  mark_missing(registered);
  times_.missing = lap(marks);
  times_.consistency = lap(t);

  // This frame's slot, free once the frame two before it has finished.
  std::unique_ptr<Finishing>& slot = finishing_[frames_started_ % 2];
  if (!slot) slot = std::make_unique<Finishing>();
  if (slot->done.valid()) slot->done.wait();
  std::vector<PointResult>& points = slot->points;
  std::vector<double>&u = slot->u, &v = slot->v;
  const bool follows = o_.frame_guess == FrameGuess::previous;  // else predictions stay
  points.resize(n);
  u.resize(n);
  v.resize(n);
  parallel_for(static_cast<Index>(n), kGrain, [&](Index first, Index last) {
    for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last); ++k) {
      PointResult& p = points[k];
      const IcgnResult& q = registered[k];
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
        p.sigma_u = q.sigma_u, p.sigma_v = q.sigma_v;
        if (follows) st.predicted[k] = q.p;
      } else {
        u[k] = v[k] = kNaN;
        p.u = p.v = p.ux = p.uy = p.vx = p.vy = p.sigma_u = p.sigma_v = kNaN;
        if (p.status == PointStatus::outside_roi || p.status == PointStatus::outside_image ||
            p.status == PointStatus::missing_data)
          p.zncc = kNaN;
      }
    }
  });
  times_.points = lap(t);
  // The strain and the reported points (image coordinates) on a thread of their own, from the
  // slot and the grid and report map of this frame's window.
  if (!finish_grid_) {
    finish_grid_ = std::make_shared<const Grid>(grid_);
    finish_report_ = std::make_shared<const std::vector<std::size_t>>(report_);
  }
  std::promise<FrameResult> promise;
  PendingFrame pending;
  pending.result_ = promise.get_future();
  slot->done = std::async(
      std::launch::async, [f = slot.get(), grid = finish_grid_, report = finish_report_,
                           wx = st.window.x, wy = st.window.y, number, window = o_.strain_window,
                           kind = o_.strain, promise = std::move(promise)]() mutable {
        try {
          const auto strain = compute_strain(*grid, f->u, f->v, window, kind);
          FrameResult fr;
          fr.frame = number;
          fr.points.resize(report->size());
          parallel_for(static_cast<Index>(report->size()), kGrain, [&](Index first, Index last) {
            for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(last);
                 ++i) {
              const std::size_t k = (*report)[i];
              PointResult& p = fr.points[i];
              p = f->points[k];
              p.exx = strain[k].exx;
              p.eyy = strain[k].eyy;
              p.exy = strain[k].exy;
              p.x += static_cast<double>(wx);
              p.y += static_cast<double>(wy);
            }
          });
          promise.set_value(std::move(fr));
        } catch (...) {
          promise.set_exception(std::current_exception());
        }
      });
  ++frames_started_;
  // Incremental mode: move the reference to this frame every `reference_update` frames; points
  // that did not converge cannot be followed further.
  if (moves_reference) {
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
    if (image != nullptr) reference_ = copy_of(*image);
    reference_window_ = frame_window_;
    reference_missing_ = frame_missing_;
    reference_changed_ = true;
    st.ref_frame = number;
  }
  XCORR_RETURN_IF_ERROR(grow_if_needed());
  times_.update = lap(t);
  return pending;
}

}  // namespace xcorr::dic
