#include "ui/window_settings.hpp"

#include <QFileInfo>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QWidget>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/io/json_options.hpp"
#include "core/io/stack_fields.hpp"

namespace xcorr::ui {
namespace {

// The one settings file (QSettings is not copied: each use opens it by these names).
#define XCORR_SETTINGS QSettings s("XCorr", "xcorr-studio")

constexpr int kRecent = 8;

}  // namespace

void fit_to_screen(QWidget* w, QSize preferred) {
  const QScreen* screen = w->screen() != nullptr ? w->screen() : QGuiApplication::primaryScreen();
  if (screen == nullptr) return w->resize(preferred);
  const QRect area = screen->availableGeometry();
  const QSize size(std::min(preferred.width(), area.width() * 92 / 100),
                   std::min(preferred.height(), area.height() * 92 / 100));
  w->resize(size);
  w->move(area.center() - QPoint(size.width() / 2, size.height() / 2));
}

QStringList recent_paths() {
  QStringList kept;
  XCORR_SETTINGS;
  for (const QString& p : s.value("recent").toStringList())
    if (QFileInfo::exists(p) && !kept.contains(p)) kept << p;
  return kept.mid(0, kRecent);
}

void remember_recent(const QString& path) {
  QStringList recent = recent_paths();
  recent.removeAll(path);
  recent.prepend(path);
  XCORR_SETTINGS;
  s.setValue("recent", recent.mid(0, kRecent));
}

void forget_recent(const QString& path) {
  QStringList recent = recent_paths();
  recent.removeAll(path);
  XCORR_SETTINGS;
  s.setValue("recent", recent);
}

WindowState saved_window_state() {
  XCORR_SETTINGS;
  return {s.value("window/geometry").toByteArray(), s.value("window/docks").toByteArray()};
}

void save_window_state(const WindowState& state) {
  XCORR_SETTINGS;
  s.setValue("window/geometry", state.geometry);
  s.setValue("window/docks", state.docks);
}

QString saved_parameters(const QString& analysis) {
  XCORR_SETTINGS;
  return s.value("parameters/" + analysis).toString();
}

void save_parameters(const QString& analysis, const QString& json) {
  XCORR_SETTINGS;
  s.setValue("parameters/" + analysis, json);
}

namespace {

// The DIC table without the stack's fields.
std::vector<OptionField<dic::DicOptions>> habit_fields() {
  std::vector<OptionField<dic::DicOptions>> kept;
  const auto stack = io::stack_fields<dic::DicOptions>();
  for (const auto& f : dic::dic_option_table())
    if (std::none_of(stack.begin(), stack.end(), [&](const auto& g) { return g.key == f.key; }))
      kept.push_back(f);
  return kept;
}

}  // namespace

QString dic_parameters(const dic::DicOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  io::write_options(j, habit_fields(), o);
  return QString::fromStdString(j.dump());
}

dic::DicOptions with_dic_parameters(dic::DicOptions o, const QString& saved) {
  const nlohmann::json j = nlohmann::json::parse(saved.toStdString(), nullptr, false);
  if (!j.is_object()) return o;
  dic::DicOptions read = o;
  if (!io::read_options(j, habit_fields(), read).is_ok() || !read.check().is_ok()) return o;
  return read;
}

}  // namespace xcorr::ui
