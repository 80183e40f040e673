#include "ui/annotations.hpp"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <cmath>

namespace xcorr::ui {

double round_length(double target) {
  const double decade = std::pow(10.0, std::floor(std::log10(target)));
  for (const double m : {5.0, 2.0, 1.0})
    if (m * decade <= target * (1 + 1e-12)) return m * decade;
  return decade;
}

QString unit_text(const std::string& unit) {
  return unit == "um" ? QString::fromUtf8("\u00b5m") : QString::fromStdString(unit);
}

ScaleBar scale_bar(const io::ImageScale& scale, double zoom, double view_width) {
  if (!scale.has_length() || zoom <= 0 || view_width <= 0) return {};
  const double units_per_screen_px = scale.pixel_x / zoom;
  const double length = round_length(view_width / 6 * units_per_screen_px);
  return {length, length / units_per_screen_px,
          QString("%1 %2").arg(length, 0, 'g', 6).arg(unit_text(scale.unit))};
}

QString time_stamp(double seconds) {
  const double a = std::abs(seconds);
  if (a < 120) return QString("t = %1 s").arg(seconds, 0, 'f', a < 10 ? 2 : 1);
  if (a < 7200) return QString("t = %1 min").arg(seconds / 60, 0, 'f', 2);
  return QString("t = %1 h").arg(seconds / 3600, 0, 'f', 2);
}

namespace {

// White text with a dark outline at `at` (its baseline's left end).
void outlined_text(QPainter& p, QPointF at, const QString& text) {
  QPainterPath path;
  path.addText(at, p.font(), text);
  p.setPen(QPen(QColor(0, 0, 0, 200), 3, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  p.setBrush(Qt::NoBrush);
  p.drawPath(path);
  p.setPen(Qt::NoPen);
  p.setBrush(Qt::white);
  p.drawPath(path);
}

}  // namespace

void draw_annotations(QPainter& p, const QRectF& area, const ScaleBar& bar, const QString& time) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  QFont font = p.font();
  font.setPixelSize(std::max(12, static_cast<int>(area.height() / 40)));
  font.setBold(true);
  p.setFont(font);
  const QFontMetricsF metrics(font);
  const double margin = std::max(10.0, area.height() / 50);
  if (bar.length > 0) {
    const double thick = std::max(4.0, area.height() / 150);
    const QRectF r(area.right() - margin - bar.screen_px, area.bottom() - margin - thick,
                   bar.screen_px, thick);
    p.setPen(QPen(QColor(0, 0, 0, 200), 2));
    p.setBrush(Qt::white);
    p.drawRect(r);
    const double w = metrics.horizontalAdvance(bar.label);
    outlined_text(p, QPointF(r.center().x() - w / 2, r.top() - metrics.descent() - 3), bar.label);
  }
  if (!time.isEmpty())
    outlined_text(p, QPointF(area.left() + margin, area.top() + margin + metrics.ascent()), time);
  p.restore();
}

}  // namespace xcorr::ui
