// Template tracking: each template (a rectangle of the reference frame) is found in every frame
// by ZNCC through the correlation engine (one one_to_many valid-mode peak request per template:
// the template against the whole frames, the maximum and its sub-pixel refinement per frame,
// without surfaces where the chosen variant fuses the search).
// Positions are the template's top-left corner in px (pixel centres at integers).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/io/scale.hpp"
#include "core/peak.hpp"
#include "core/registry.hpp"

namespace xcorr {

struct TemplateRect {
  Index x = 0, y = 0, width = 0, height = 0;  // px: top-left corner and size
  bool operator==(const TemplateRect&) const = default;
};

// "x,y,w,h" in px (integers), as job and project files write templates; parse refuses anything
// else (negative corner, empty size, extra text) with a message that quotes the text.
std::string to_string(const TemplateRect& r);
Result<TemplateRect> parse_template_rect(const std::string& text);

struct TrackingOptions {
  // Peak refinement; the 2-D quadratic fit is the most accurate here (speckle tests: <= 0.04 px,
  // parabolic/Gaussian per axis up to 0.1 px of peak-locking bias).
  SubpixelMethod subpixel = SubpixelMethod::quadratic2d;
  std::string method = "auto";         // correlation variant (see `xcorr list`)
  Accuracy accuracy = Accuracy::fast;  // which variants auto may pick (core/correlation.hpp)
};

struct Track {
  TemplateRect rect;
  // Per frame, frame 0 = the reference: top-left position (px) and peak ZNCC; NaN where the
  // match, or the template's last position, touches missing (non-finite) pixels of the frame.
  std::vector<double> x, y, zncc;
};

// Template-frame pairs done of templates x frames: called after every block of frames (each
// block at most ~4e8 multiply-adds of the direct correlation, a fraction of a second); return
// false to cancel (ErrorCode::cancelled).
using TrackingProgress = std::function<bool(Index done, Index total)>;

Result<std::vector<Track>> track_templates(const Registry& engine,
                                           MatrixView<const float> reference,
                                           StackView<const float> frames,
                                           const std::vector<TemplateRect>& templates,
                                           const TrackingOptions& o,
                                           const TrackingProgress& progress = {});

// CSV: '#' header (version, units, scale), then frame,template,x,y,dx,dy,zncc (px; dx, dy from
// the reference position); with a known pixel size x_<unit>,y_<unit>,dx_<unit>,dy_<unit>; with a
// known frame interval time_s (io::frame_time_s of frame_steps) and the velocities
// vx_<unit>_per_s, vy_<unit>_per_s (<unit> px without a pixel size; central differences in time
// order, one-sided at the ends). Written atomically.
Status write_tracks_csv(const std::string& path, const std::vector<Track>& tracks,
                        const std::string& reference_name, const io::ImageScale& scale = {},
                        const std::vector<double>& frame_steps = {});

}  // namespace xcorr
