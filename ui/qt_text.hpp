// std::string (UTF-8, as core writes messages and paths) to QString, for the widgets.
#pragma once

#include <QString>
#include <string>

namespace xcorr::ui {

inline QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace xcorr::ui
