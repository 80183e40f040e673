#include "ui/tool_icons.hpp"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QPolygonF>
#include <cmath>

namespace xcorr::ui {
namespace {

constexpr int kSide = 32;  // px, drawn at 2x for sharp toolbar icons on high-DPI screens

template <class Draw>
QIcon drawn(Draw draw) {
  QPixmap pm(kSide, kSide);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(QColor(40, 40, 40), 2.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  p.setBrush(QColor(120, 200, 140, 110));
  draw(p);
  return QIcon(pm);
}

void arrow(QPainter& p, QPointF from, QPointF to) {
  p.drawLine(from, to);
  const QPointF d = (to - from) / std::hypot((to - from).x(), (to - from).y());
  const QPointF n(-d.y(), d.x());
  p.drawLine(to, to - 5 * d + 4 * n);
  p.drawLine(to, to - 5 * d - 4 * n);
}

}  // namespace

QIcon tool_icon(Tool t) {
  switch (t) {
    case Tool::pan:  // four arrows from the centre
      return drawn([](QPainter& p) {
        const QPointF c(16, 16);
        arrow(p, c, {16, 3});
        arrow(p, c, {16, 29});
        arrow(p, c, {3, 16});
        arrow(p, c, {29, 16});
      });
    case Tool::rectangle:
      return drawn([](QPainter& p) { p.drawRect(QRectF(5, 8, 22, 16)); });
    case Tool::ellipse:
      return drawn([](QPainter& p) { p.drawEllipse(QRectF(4, 7, 24, 18)); });
    case Tool::polygon:
      return drawn([](QPainter& p) {
        p.drawPolygon(QPolygonF({{5, 24}, {10, 6}, {22, 10}, {28, 22}, {15, 27}}));
      });
    case Tool::template_rect:  // a box with its centre marked
      return drawn([](QPainter& p) {
        p.setBrush(QColor(31, 119, 180, 90));
        p.drawRect(QRectF(6, 6, 20, 20));
        p.drawLine(QPointF(16, 12), QPointF(16, 20));
        p.drawLine(QPointF(12, 16), QPointF(20, 16));
      });
    case Tool::probe:  // cross hairs in a circle
      return drawn([](QPainter& p) {
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(QPointF(16, 16), 9, 9);
        p.drawLine(QPointF(16, 2), QPointF(16, 30));
        p.drawLine(QPointF(2, 16), QPointF(30, 16));
      });
    case Tool::line:
      return drawn([](QPainter& p) {
        p.drawLine(QPointF(6, 26), QPointF(26, 6));
        p.setBrush(QColor(40, 40, 40));
        p.drawEllipse(QPointF(6, 26), 2.5, 2.5);
        p.drawEllipse(QPointF(26, 6), 2.5, 2.5);
      });
    case Tool::edit:  // a box with its corner handles
      return drawn([](QPainter& p) {
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(7, 7, 18, 18));
        p.setBrush(QColor(40, 40, 40));
        for (const QPointF c : {QPointF(7, 7), QPointF(25, 7), QPointF(7, 25), QPointF(25, 25)})
          p.drawRect(QRectF(c - QPointF(2.5, 2.5), QSizeF(5, 5)));
      });
  }
  return {};
}

QIcon subtract_icon() {
  return drawn([](QPainter& p) {
    QPainterPath path;
    path.addRect(QRectF(4, 6, 24, 20));
    path.addEllipse(QRectF(11, 11, 10, 10));
    p.setBrush(QColor(200, 80, 80, 140));
    p.drawPath(path);  // odd-even fill: the hole stays empty
  });
}

}  // namespace xcorr::ui
