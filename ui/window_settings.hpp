// What xcorr-studio remembers between starts, in one place (QSettings "XCorr" / "xcorr-studio",
// ~/.config/XCorr/xcorr-studio.conf): the main window's geometry and dock layout, the last
// analysis parameters, and the recent list (what the user opened and could be opened: no failed
// opens, no outputs of the app itself). And the size of a window that has none saved: what it
// prefers, within its screen.
#pragma once

#include <QByteArray>
#include <QSize>
#include <QString>
#include <QStringList>

#include "core/dic/options.hpp"

class QWidget;

namespace xcorr::ui {

// Resizes `w` to `preferred`, or to at most 92 % of its screen's available area (each side), and
// centres it there: a window that fits the screen it opens on (1024 x 700 and larger).
void fit_to_screen(QWidget* w, QSize preferred);

// The recent list: the newest first, at most 8, only paths that still exist.
QStringList recent_paths();
void remember_recent(const QString& path);  // a path the user opened or saved
void forget_recent(const QString& path);    // a path that failed to open

// Saved window state: the geometry (QWidget::saveGeometry) and the dock layout
// (QMainWindow::saveState); empty when never saved.
struct WindowState {
  QByteArray geometry, docks;
};
WindowState saved_window_state();
void save_window_state(const WindowState& s);

// The last analysis parameters, as JSON text; empty when never saved.
QString saved_parameters(const QString& analysis);  // "dic", "tracking"
void save_parameters(const QString& analysis, const QString& json);
// DIC options as remembered: the option table's keys (as in job files) but the stack's own
// (channel, z-plane, pixel size, frame interval: core/io/stack_fields.hpp), which belong to the
// data, not to the user's habits.
QString dic_parameters(const dic::DicOptions& o);
// `o` with the remembered parameters; unchanged where `saved` is unreadable or refused.
dic::DicOptions with_dic_parameters(dic::DicOptions o, const QString& saved);

}  // namespace xcorr::ui
