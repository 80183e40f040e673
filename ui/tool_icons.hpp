// The image tools' icons, drawn (no image files to ship): what each tool makes, in outline.
#pragma once

#include <QIcon>

#include "ui/image_view.hpp"

namespace xcorr::ui {

QIcon tool_icon(Tool t);
QIcon subtract_icon();  // a rectangle with a hole cut out of it

}  // namespace xcorr::ui
