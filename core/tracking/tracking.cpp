#include "core/tracking/tracking.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <utility>

#include "core/hot_pixels.hpp"
#include "core/io/atomic_write.hpp"
#include "core/missing_data.hpp"
#include "core/version.hpp"

namespace xcorr {

std::string to_string(const TemplateRect& r) {
  return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.width) + "," +
         std::to_string(r.height);
}

Result<TemplateRect> parse_template_rect(const std::string& text) {
  TemplateRect r;
  long long v[4] = {};
  int used = 0;
  const bool read =
      std::sscanf(text.c_str(), "%lld,%lld,%lld,%lld%n", &v[0], &v[1], &v[2], &v[3], &used) == 4 &&
      static_cast<std::size_t>(used) == text.size();
  if (!read || v[0] < 0 || v[1] < 0 || v[2] < 1 || v[3] < 1) {
    return Status{ErrorCode::invalid_argument,
                  "template '" + text + "' is not x,y,w,h (px: corner >= 0, size >= 1)"};
  }
  r.x = v[0], r.y = v[1], r.width = v[2], r.height = v[3];
  return r;
}

Result<std::vector<Track>> track_templates(const Registry& engine,
                                           MatrixView<const float> reference,
                                           StackView<const float> frames,
                                           const std::vector<TemplateRect>& templates,
                                           const TrackingOptions& o,
                                           const TrackingProgress& progress) {
  if (templates.empty()) return Status{ErrorCode::invalid_argument, "no templates to track"};
  if (frames.count > 0 && frames.shape() != reference.shape()) {
    return Status{ErrorCode::size_mismatch, "the frames are " + image_size(frames.shape()) +
                                                " but the reference is " +
                                                image_size(reference.shape())};
  }
  // What is matched is cleaned first (the positions are the frames'): non-finite pixels are
  // missing data, filled with the frame's finite mean to correlate, and a match that touches one
  // is not a position (NaN); hot pixels are suppressed (core/hot_pixels.hpp). A template that
  // holds missing pixels is refused.
  Stack<float> filled(frames.rows, frames.cols, frames.count);
  std::vector<std::vector<char>> missing(static_cast<std::size_t>(frames.count));  // 1 per pixel
  for (Index k = 0; k < frames.count; ++k) {
    MatrixView<float> f = filled[k];
    for (Index y = 0; y < f.rows; ++y) std::copy_n(frames[k].row(y), f.cols, f.row(y));
    missing[static_cast<std::size_t>(k)] = fill_missing_with_mean(f);
    (void)suppress_hot_pixels(f);
  }
  frames = std::as_const(filled).view();
  const auto lost_at = [&](Index k, double x, double y, const TemplateRect& r) {
    return touches_missing(missing[static_cast<std::size_t>(k)], frames.rows, frames.cols, x, y,
                           x + static_cast<double>(r.width - 1),
                           y + static_cast<double>(r.height - 1));
  };
  std::vector<Track> tracks;
  for (std::size_t t = 0; t < templates.size(); ++t) {
    const TemplateRect& r = templates[t];
    if (r.width < 2 || r.height < 2 || r.x < 0 || r.y < 0 || r.x + r.width > reference.cols ||
        r.y + r.height > reference.rows) {
      return Status{ErrorCode::invalid_argument,
                    "template " + std::to_string(t + 1) + " (" + std::to_string(r.x) + "," +
                        std::to_string(r.y) + " " + std::to_string(r.width) + "x" +
                        std::to_string(r.height) + ") must lie inside the " +
                        image_size(reference.shape()) + " image and be at least 2x2 px"};
    }
    for (Index y = r.y; y < r.y + r.height; ++y)
      for (Index x = r.x; x < r.x + r.width; ++x)
        if (!std::isfinite(reference(y, x)))
          return Status{ErrorCode::invalid_argument, "template " + std::to_string(t + 1) +
                                                         " holds missing pixels (NaN or Inf, "
                                                         "the first at x " +
                                                         std::to_string(x) + ", y " +
                                                         std::to_string(y) +
                                                         "): draw it on finite pixels"};
    Stack<float> cleaned(r.height, r.width, 1);
    for (Index y = 0; y < r.height; ++y)
      std::copy_n(reference.row(r.y + y) + r.x, r.width, cleaned[0].row(y));
    (void)suppress_hot_pixels(cleaned[0]);
    const StackView<const float> tmpl = std::as_const(cleaned).view();
    Track track;
    track.rect = r;
    track.x.push_back(static_cast<double>(r.x));
    track.y.push_back(static_cast<double>(r.y));
    track.zncc.push_back(1.0);
    // Frames in blocks, so that progress and Cancel come at least every block.
    const double macs =
        static_cast<double>(r.width * r.height) *
        static_cast<double>((reference.rows - r.height + 1) * (reference.cols - r.width + 1));
    const Index block = std::max<Index>(1, static_cast<Index>(4e8 / std::max(macs, 1.0)));
    for (Index first = 0; first < frames.count; first += block) {
      StackView<const float> part = frames;
      part.data += first * frames.matrix_stride;
      part.count = std::min(block, frames.count - first);
      const CorrelationProblem p{{Form::one_to_many, Mode::valid, Normalization::zncc, Output::peak,
                                  o.subpixel, o.accuracy},
                                 tmpl,
                                 part};
      auto out = correlate(engine, p, o.method);
      if (!out.is_ok()) return out.status();
      for (Index k = 0; k < part.count; ++k) {
        const Peak peak = decode_peak(out.value().result[k].row(0));
        // Missing pixels under the match, or under where the template last was (filled with the
        // mean, the true place may lose to a wrong one that avoids them): not a position.
        double last_x = track.x.front(), last_y = track.y.front();
        for (std::size_t i = track.x.size(); i-- > 0;)
          if (std::isfinite(track.x[i])) {
            last_x = track.x[i], last_y = track.y[i];
            break;
          }
        const bool lost = lost_at(first + k, peak.sub_col(), peak.sub_row(), r) ||
                          lost_at(first + k, last_x, last_y, r);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        track.x.push_back(lost ? nan : peak.sub_col());
        track.y.push_back(lost ? nan : peak.sub_row());
        track.zncc.push_back(lost ? nan : peak.value);
      }
      const auto pairs = static_cast<Index>(t) * frames.count + first + part.count;
      if (progress && !progress(pairs, static_cast<Index>(templates.size()) * frames.count))
        return Status{ErrorCode::cancelled, "tracking cancelled"};
    }
    tracks.push_back(std::move(track));
  }
  return tracks;
}

Status write_tracks_csv(const std::string& path, const std::vector<Track>& tracks,
                        const std::string& reference_name, const io::ImageScale& scale,
                        const std::vector<double>& frame_steps) {
  const bool length = scale.has_length(), time = scale.has_time();
  const std::string u = length ? scale.unit : std::string("px");
  std::string text = std::string("# xcorr template tracks\n# software: xcorr ") + kVersion +
                     "\n# reference: " + reference_name +
                     "\n# units: x, y = template top-left corner (px, origin at the top-left "
                     "pixel centre); dx, dy from the reference position (px); zncc peak value" +
                     (time ? "; time_s after the reference; vx, vy in " + u + "/s" : "") +
                     "\n# scale: " + io::describe(scale) + "\nframe,template,x,y,dx,dy,zncc";
  if (length) text += ",x_" + u + ",y_" + u + ",dx_" + u + ",dy_" + u;
  if (time) text += ",time_s,vx_" + u + "_per_s,vy_" + u + "_per_s";
  text += "\n";
  char buf[160];
  for (std::size_t t = 0; t < tracks.size(); ++t) {
    const Track& tr = tracks[t];
    const std::size_t n = tr.x.size();
    std::vector<double> at(n);  // s
    for (std::size_t k = 0; k < n; ++k)
      at[k] = io::frame_time_s(scale, frame_steps, static_cast<long>(k));
    // Velocities in time order: central differences, one-sided at the ends (unit/s).
    std::vector<std::size_t> order(n);
    for (std::size_t k = 0; k < n; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&at](std::size_t a, std::size_t b) { return at[a] < at[b]; });
    std::vector<double> vx(n, 0), vy(n, 0);
    for (std::size_t i = 0; time && n > 1 && i < n; ++i) {
      const std::size_t a = order[i == 0 ? 0 : i - 1], b = order[i + 1 == n ? n - 1 : i + 1];
      const double dt = at[b] - at[a];
      vx[order[i]] = dt > 0 ? (tr.x[b] - tr.x[a]) * (length ? scale.pixel_x : 1) / dt : 0;
      vy[order[i]] = dt > 0 ? (tr.y[b] - tr.y[a]) * (length ? scale.pixel_y : 1) / dt : 0;
    }
    for (std::size_t k = 0; k < n; ++k) {
      std::snprintf(buf, sizeof buf, "%zu,%zu,%.4f,%.4f,%.4f,%.4f,%.6f", k, t + 1, tr.x[k], tr.y[k],
                    tr.x[k] - tr.x[0], tr.y[k] - tr.y[0], tr.zncc[k]);
      text += buf;
      if (length) {
        std::snprintf(buf, sizeof buf, ",%.9g,%.9g,%.9g,%.9g", tr.x[k] * scale.pixel_x,
                      tr.y[k] * scale.pixel_y, (tr.x[k] - tr.x[0]) * scale.pixel_x,
                      (tr.y[k] - tr.y[0]) * scale.pixel_y);
        text += buf;
      }
      if (time) {
        std::snprintf(buf, sizeof buf, ",%.9g,%.9g,%.9g", at[k], vx[k], vy[k]);
        text += buf;
      }
      text += "\n";
    }
  }
  return io::write_text_atomically(path, text);
}

}  // namespace xcorr
