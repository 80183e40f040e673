// Look-up tables of the image view, as Fiji names them: a grey value's place between a channel's
// black and white levels (t in [0, 1]) to a colour. A composite adds its channels' colours.
#pragma once

#include <QColor>
#include <vector>

#include "core/enum_labels.hpp"

namespace xcorr::ui {
enum class Lut { grays, green, magenta, cyan, red, blue, yellow, fire, inverted };
}  // namespace xcorr::ui

namespace xcorr {
template <>
struct EnumLabels<ui::Lut> {
  static constexpr std::pair<ui::Lut, const char*> table[] = {
      {ui::Lut::grays, "Grays"},   {ui::Lut::green, "Green"}, {ui::Lut::magenta, "Magenta"},
      {ui::Lut::cyan, "Cyan"},     {ui::Lut::red, "Red"},     {ui::Lut::blue, "Blue"},
      {ui::Lut::yellow, "Yellow"}, {ui::Lut::fire, "Fire"},   {ui::Lut::inverted, "Inverted"}};
};
}  // namespace xcorr

namespace xcorr::ui {

QRgb lut_rgb(Lut lut, double t);  // t clamped to [0, 1]
// A composite's default LUT for channel k of n: Grays for one channel; Green, Magenta, Cyan,
// Yellow, Red, Blue for more.
Lut default_lut(long k, long n);

// Auto levels of a frame: its finite values' 0.5 % and 99.5 % percentiles (black >= white when
// it has none).
struct Levels {
  double black = 0, white = 0;
  bool automatic = true;  // recomputed on the next frame shown after a reset
};
Levels percentile_levels(const std::vector<float>& pixels);

}  // namespace xcorr::ui
