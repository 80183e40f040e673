// What the image carries besides its pixels, as a microscopist expects on a figure: a scale bar
// (a round length in the stack's unit, about a sixth of the view wide, bottom right) and a time
// stamp (the frame's time after the reference, top left). Drawn in screen px over the view, so
// they keep their size at any zoom.
#pragma once

#include <QRectF>
#include <QString>

#include "core/io/scale.hpp"

class QPainter;

namespace xcorr::ui {

// The largest 1, 2 or 5 x 10^k not above `target` (> 0).
double round_length(double target);
// "µm" for "um"; other units as they are.
QString unit_text(const std::string& unit);

struct ScaleBar {
  double length = 0;     // in the unit
  double screen_px = 0;  // its length on screen
  QString label;         // "20 µm"
};
// The bar for a view `view_width` screen px wide at `zoom` screen px per image px; none
// (length 0) without a pixel size.
ScaleBar scale_bar(const io::ImageScale& scale, double zoom, double view_width);

// "t = 12.5 s", "t = 2.50 min", "t = 1.25 h": seconds after the reference, in the unit that
// keeps it short (negative before a reference chosen later).
QString time_stamp(double seconds);

// Both on `area` (the view's rectangle, screen px): white with a dark outline, readable on any
// image. An empty bar or time is left out.
void draw_annotations(QPainter& p, const QRectF& area, const ScaleBar& bar, const QString& time);

}  // namespace xcorr::ui
