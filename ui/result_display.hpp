// How DIC results are shown, in one place for the image overlay (ui/image_view.hpp) and the
// Results dock's map (ui/results_panel.hpp): the quantities, their colour maps (perceptually
// uniform viridis and cividis, a blue-white-red map centred on 0 for signed quantities, jet on
// request, fixed colours for the point status), the colour range (auto or kept per quantity),
// the vectors' look, and the data cursor's nearest point.
#pragma once

#include <QColor>
#include <QString>
#include <string>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/enum_labels.hpp"
#include "core/io/scale.hpp"
#include "core/matrix.hpp"

namespace xcorr::ui {
// sigma_u, sigma_v: the noise-based uncertainty of u and v (dic::PointResult).
enum class ResultField { u, v, magnitude, sigma_u, sigma_v, exx, eyy, exy, zncc, status };
// Fields that are lengths (px, or the stack's unit when its scale is known).
inline bool is_length(ResultField f) {
  return f == ResultField::u || f == ResultField::v || f == ResultField::magnitude ||
         f == ResultField::sigma_u || f == ResultField::sigma_v;
}
enum class ColourMap { viridis, cividis, diverging, jet };
}  // namespace xcorr::ui

namespace xcorr {
template <>
struct EnumLabels<ui::ResultField> {  // names (xcorr-studio --field); to_string adds the unit
  static constexpr std::pair<ui::ResultField, const char*> table[] = {
      {ui::ResultField::u, "u"},
      {ui::ResultField::v, "v"},
      {ui::ResultField::magnitude, "magnitude"},
      {ui::ResultField::sigma_u, "sigma_u"},
      {ui::ResultField::sigma_v, "sigma_v"},
      {ui::ResultField::exx, "exx"},
      {ui::ResultField::eyy, "eyy"},
      {ui::ResultField::exy, "exy"},
      {ui::ResultField::zncc, "zncc"},
      {ui::ResultField::status, "status"}};
};
template <>
struct EnumLabels<ui::ColourMap> {
  static constexpr std::pair<ui::ColourMap, const char*> table[] = {
      {ui::ColourMap::viridis, "viridis"},
      {ui::ColourMap::cividis, "cividis"},
      {ui::ColourMap::diverging, "diverging"},
      {ui::ColourMap::jet, "jet"}};
};
}  // namespace xcorr

namespace xcorr::ui {

std::string to_string(ResultField f);  // the name with its unit, e.g. "u (px)", "ZNCC"
bool is_signed(ResultField f);         // u, v and the strains: a diverging map centred on 0
// The value at a point: displacements and strains of converged points (NaN otherwise), the
// ZNCC of every computed point, the status as its number (dic::PointStatus) for every point.
double field_value(const dic::PointResult& p, ResultField f);

ColourMap default_map(ResultField f);      // diverging for signed quantities, else viridis
QColor colour_at(ColourMap m, double t);   // t in [0, 1] (clamped)
QColor status_colour(dic::PointStatus s);  // converged green, diverged red, low texture orange
// The k-th series' colour (Tableau 10: distinct, readable; repeats after 10): template k's on
// the image and its track's in the plots alike, and the lines of a plot.
QColor series_colour(std::size_t k);

// A colour range: the data's (auto; symmetric about 0 for a diverging map) or a fixed one. A
// locked auto range is the data's over every frame: the same colours on each (no rescaling
// while playing).
struct ColourRange {
  bool automatic = true;
  double lo = 0, hi = 1;
  bool locked = false;  // with automatic: over every frame
};
// The range used for `points`: fixed as given, or the finite values' extent.
ColourRange range_in_use(const ColourRange& r, const std::vector<dic::PointResult>& points,
                         ResultField f, ColourMap m);
// The data's range over every frame (a fixed range, automatic false).
ColourRange range_over_frames(const std::vector<dic::FrameResult>& frames, ResultField f,
                              ColourMap m);

struct MapStyle {
  ResultField field = ResultField::u;
  ColourMap map = ColourMap::diverging;
  ColourRange range;
  double map_opacity = 0.55;  // of the overlay's colour cells, 0..1
  bool vectors = true;        // displacement vectors on the overlay
  double vector_scale = 1;    // times the automatic length (the largest ~2 grid steps)
  QColor vector_colour{255, 255, 255};
  double vector_opacity = 0.8;  // 0..1
};

// The index of the grid point nearest to (x, y) px, or -1 when (x, y) lies more than one grid
// step outside the grid. `points` are on a regular grid of `cols` columns with spacing `step` px.
long nearest_point(const std::vector<dic::PointResult>& points, long cols, int step, double x,
                   double y);
// "x 120, y 80: u 0.412 px, v 0.251 px, |d| 0.482 px, exx 0.0040, eyy -0.0012, exy 0.0001,
// ZNCC 0.9871, converged" (the data cursor's text); with a known pixel size the position and
// displacement follow in its unit too: "x 120, y 80 (78.0, 52.0 um): u 0.412 px (0.268 um), ...".
QString point_text(const dic::PointResult& p, const io::ImageScale& scale = {});

}  // namespace xcorr::ui

namespace xcorr::ui {

// Results along a line (the Line tool): samples every half grid step from its start, each the
// nearest grid point's results (status outside_roi and NaN values past the grid).
struct ProfileSample {
  double s = 0;                   // px from the line's start
  double x = 0, y = 0;            // px, the sample's position on the line
  dic::PointResult at;            // the nearest grid point's results (NaN values: none)
  std::vector<double> intensity;  // each channel's grey value here (bilinear; NaN: missing)
};
// A channel of an intensity profile: its CSV column and its line colour.
struct ProfileChannel {
  QString name;
  QColor colour;
};
std::vector<ProfileSample> sample_profile(const std::vector<dic::PointResult>& points, long cols,
                                          int step, double x0, double y0, double x1, double y1);
// Samples every half pixel along the line without results (their values NaN), for an intensity
// profile.
std::vector<ProfileSample> sample_line(double x0, double y0, double x1, double y1);
// `image` at (x, y) px, bilinear between pixel centres; NaN outside it or next to a missing
// (non-finite) pixel.
double bilinear(MatrixView<const float> image, double x, double y);
// The profile as CSV: a commented header (what, frame, line), then
// s_px,x_px,y_px,u_px,v_px,exx,eyy,exy,zncc,status and one intensity column per channel
// (`channels` names them: "intensity_1", ...); written atomically.
Status write_profile_csv(const std::string& path, const std::vector<ProfileSample>& profile,
                         const std::string& what, const std::vector<std::string>& channels = {});

}  // namespace xcorr::ui
