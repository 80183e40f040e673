// Movies of the view: frames as an animated GIF (giflib), looping, at a frame rate. Each frame
// gets its own 256-colour palette (median cut, GifQuantizeBuffer): LUT composites and colour maps
// keep their colours. Written atomically: a failed write leaves no file.
#pragma once

#include <QImage>
#include <QString>
#include <vector>

#include "core/status.hpp"

namespace xcorr::ui {

// `frames` (all of one size) at `fps` frames per second (1..100; GIF counts in 1/100 s).
Status write_gif(const QString& path, const std::vector<QImage>& frames, double fps);

}  // namespace xcorr::ui
