#include "ui/image_view.hpp"

#include <QKeyEvent>
#include <QLineF>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/annotations.hpp"

namespace xcorr::ui {

ImageView::ImageView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(200, 150);
  setAutoFillBackground(true);
  QPalette p = palette();
  p.setColor(QPalette::Window, QColor(40, 40, 40));
  setPalette(p);
}

void ImageView::set_frame(MatrixView<const float> frame, Lut lut,
                          std::vector<ChannelLayer> others) {
  lut_ = lut;
  others_ = std::move(others);
  const bool new_size = frame.rows != rows_ || frame.cols != cols_;
  rows_ = static_cast<int>(frame.rows);
  cols_ = static_cast<int>(frame.cols);
  pixels_.resize(static_cast<std::size_t>(rows_) * cols_);
  for (int y = 0; y < rows_; ++y)
    std::copy(frame.row(y), frame.row(y) + cols_, pixels_.begin() + static_cast<long>(y) * cols_);
  missing_ =
      std::count_if(pixels_.begin(), pixels_.end(), [](float v) { return !std::isfinite(v); });
  if (auto_levels_ && !levels_known_ && static_cast<std::size_t>(missing_) < pixels_.size()) {
    levels_known_ = true;
    const Levels l = percentile_levels(pixels_);
    black_ = l.black;
    white_ = l.white;
  }
  rebuild_image();
  if (new_size || !fitted_) fit();
  update();
}

void ImageView::reset_levels() {
  levels_known_ = false;
}

void ImageView::set_levels(double black, double white) {
  auto_levels_ = !(black < white);
  levels_known_ = false;
  if (!auto_levels_) {
    black_ = black;
    white_ = white;
  }
  rebuild_image();
  update();
}

void ImageView::rebuild_image() {
  const double span = white_ > black_ ? white_ - black_ : 1.0;
  const auto grey = [&](float p) {
    return static_cast<uchar>(std::clamp((p - black_) / span, 0.0, 1.0) * 255.0 + 0.5);
  };
  const std::size_t n = static_cast<std::size_t>(rows_) * cols_;
  if (lut_ != Lut::grays || !others_.empty()) {  // colour: the channels' colours added
    image_ = QImage(cols_, rows_, QImage::Format_RGB32);
    for (int y = 0; y < rows_; ++y) {
      auto* line = reinterpret_cast<QRgb*>(image_.scanLine(y));
      for (int x = 0; x < cols_; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * cols_ + x;
        const float p = pixels_[i];
        if (!std::isfinite(p)) {
          line[x] = kMissingColour;
          continue;
        }
        QRgb c = lut_rgb(lut_, (p - black_) / span);
        int r = qRed(c), g = qGreen(c), b = qBlue(c);
        for (const ChannelLayer& l : others_) {
          if (l.pixels.size() != n || !std::isfinite(l.pixels[i])) continue;
          const double s = l.white > l.black ? l.white - l.black : 1.0;
          c = lut_rgb(l.lut, (l.pixels[i] - l.black) / s);
          r += qRed(c), g += qGreen(c), b += qBlue(c);
        }
        line[x] = qRgb(std::min(r, 255), std::min(g, 255), std::min(b, 255));
      }
    }
    return;
  }
  if (missing_ == 0) {
    image_ = QImage(cols_, rows_, QImage::Format_Grayscale8);
    for (int y = 0; y < rows_; ++y) {
      uchar* line = image_.scanLine(y);
      for (int x = 0; x < cols_; ++x)
        line[x] = grey(pixels_[static_cast<std::size_t>(y) * cols_ + x]);
    }
    return;
  }
  image_ = QImage(cols_, rows_, QImage::Format_RGB32);  // missing pixels in colour
  for (int y = 0; y < rows_; ++y) {
    auto* line = reinterpret_cast<QRgb*>(image_.scanLine(y));
    for (int x = 0; x < cols_; ++x) {
      const float p = pixels_[static_cast<std::size_t>(y) * cols_ + x];
      const uchar g = grey(p);
      line[x] = std::isfinite(p) ? qRgb(g, g, g) : kMissingColour;
    }
  }
}

void ImageView::set_roi(const dic::Roi& roi) {
  roi_ = roi;
  if (selected_ >= static_cast<int>(roi_.shapes.size())) selected_ = -1;
  if (selected_ >= 0) edited_ = roi_.shapes[static_cast<std::size_t>(selected_)];
  update();
}

void ImageView::set_named_rois(const std::vector<dic::NamedRoi>& rois,
                               const std::vector<int>& selected, bool all) {
  named_ = rois;
  named_selected_.assign(rois.size(), false);
  for (int k : selected)
    if (k >= 0 && k < static_cast<int>(rois.size()))
      named_selected_[static_cast<std::size_t>(k)] = true;
  named_all_ = all;
  update();
}

void ImageView::set_results(const dic::FrameResult* frame, const MapStyle& style, int step) {
  has_results_ = frame != nullptr;
  results_ = frame != nullptr ? *frame : dic::FrameResult{};
  style_ = style;
  step_ = std::max(1, step);
  update();
}

void ImageView::set_marks(QPointF cursor, QPointF probe, QLineF profile) {
  cursor_mark_ = cursor;
  probe_mark_ = probe;
  profile_line_ = profile;
  update();
}

void ImageView::set_tool(Tool t) {
  tool_ = t;
  polygon_.clear();  // a shape half drawn with another tool is dropped
  dragging_ = false;
  setCursor(t == Tool::pan    ? Qt::OpenHandCursor
            : t == Tool::edit ? Qt::ArrowCursor
                              : Qt::CrossCursor);
  update();
}

void ImageView::set_templates(const std::vector<TemplateRect>& templates,
                              const std::vector<Track>* tracks, int frame) {
  templates_ = templates;
  tracks_ = tracks != nullptr ? *tracks : std::vector<Track>{};
  track_frame_ = frame;
  update();
}

void ImageView::fit() {
  if (rows_ == 0 || cols_ == 0) return;
  scale_ = std::min(width() / static_cast<double>(cols_), height() / static_cast<double>(rows_));
  offset_ = QPointF((width() - scale_ * cols_) / 2, (height() - scale_ * rows_) / 2);
  fitted_ = true;
  update();
  emit zoom_changed(scale_);
}

void ImageView::one_to_one() {
  zoom_at(QPointF(width() / 2.0, height() / 2.0), 1 / scale_);
}

void ImageView::zoom_by(double factor) {
  zoom_at(QPointF(width() / 2.0, height() / 2.0), factor);
}

void ImageView::zoom_at(QPointF at, double factor) {
  const QPointF image = to_image(at);
  scale_ = std::clamp(scale_ * factor, kMinZoom, kMaxZoom);
  offset_ = at - (image + QPointF(0.5, 0.5)) * scale_;
  fitted_ = false;
  update();
  emit zoom_changed(scale_);
}

QPointF ImageView::to_image(QPointF w) const {
  return (w - offset_) / scale_ - QPointF(0.5, 0.5);
}
QPointF ImageView::to_widget(QPointF i) const {
  return (i + QPointF(0.5, 0.5)) * scale_ + offset_;
}

void ImageView::resizeEvent(QResizeEvent*) {
  if (fitted_) fit();
}

namespace {

// Bounding box of a shape as drawn (image px; a rectangle's edges are half a pixel outside its
// pixel centres) and the shape scaled/moved to a new bounding box.
QRectF drawn_bounds(const dic::RoiShape& s) {
  const dic::RoiBounds b = dic::bounds(s);
  const double edge = s.kind == dic::RoiShapeKind::rectangle ? 0.5 : 0.0;
  return QRectF(QPointF(b.x0 - edge, b.y0 - edge), QPointF(b.x1 - edge, b.y1 - edge));
}

dic::RoiShape fitted(dic::RoiShape s, const QRectF& from, const QRectF& to) {
  switch (s.kind) {
    case dic::RoiShapeKind::rectangle:
      s.x = std::round(to.left() + 0.5), s.y = std::round(to.top() + 0.5);
      s.width = std::max(1.0, std::round(to.width())),
      s.height = std::max(1.0, std::round(to.height()));
      break;
    case dic::RoiShapeKind::ellipse:
      s.x = to.center().x(), s.y = to.center().y();
      s.rx = std::max(0.5, to.width() / 2), s.ry = std::max(0.5, to.height() / 2);
      break;
    case dic::RoiShapeKind::polygon:
      for (auto& v : s.vertices) {
        const double fx = from.width() > 0 ? (v.x - from.left()) / from.width() : 0;
        const double fy = from.height() > 0 ? (v.y - from.top()) / from.height() : 0;
        v.x = to.left() + fx * to.width();
        v.y = to.top() + fy * to.height();
      }
      break;
  }
  return s;
}

QPointF corner(const QRectF& r, int k) {
  return k == 0 ? r.topLeft() : k == 1 ? r.topRight() : k == 2 ? r.bottomRight() : r.bottomLeft();
}

QPainterPath shape_path(const dic::RoiShape& s) {
  QPainterPath path;
  switch (s.kind) {
    case dic::RoiShapeKind::rectangle:
      path.addRect(QRectF(s.x - 0.5, s.y - 0.5, s.width, s.height));
      break;
    case dic::RoiShapeKind::ellipse:
      path.addEllipse(QPointF(s.x, s.y), s.rx, s.ry);
      break;
    case dic::RoiShapeKind::polygon: {
      QPolygonF poly;
      for (const auto& v : s.vertices) poly << QPointF(v.x, v.y);
      path.addPolygon(poly);
      path.closeSubpath();
      break;
    }
  }
  return path;
}

}  // namespace

void ImageView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  if (image_.isNull()) {
    p.setPen(Qt::lightGray);
    p.drawText(rect(), Qt::AlignCenter, tr("File > Open stack, or Help > Open sample"));
    return;
  }
  paint(p, rect());
}

QImage ImageView::render_figure(int width) {
  if (image_.isNull() || width < 1) return {};
  const int height = std::max(1, static_cast<int>(std::lround(width * rows_ / double(cols_))));
  QImage out(width, height, QImage::Format_RGB32);
  out.fill(Qt::black);
  // The whole image, fitted to `width`, with the view's overlays (in the same image px sizes
  // relative to the image) and annotations (sized to the figure).
  const double saved_scale = scale_;
  const QPointF saved_offset = offset_;
  scale_ = width / static_cast<double>(cols_);
  offset_ = QPointF(0, 0);
  {
    QPainter p(&out);
    paint(p, out.rect());
  }
  scale_ = saved_scale;
  offset_ = saved_offset;
  return out;
}

void ImageView::paint(QPainter& p, const QRect& area) {
  p.setRenderHint(QPainter::SmoothPixmapTransform, scale_ < 1);
  p.drawImage(QRectF(offset_, QSizeF(cols_ * scale_, rows_ * scale_)), image_);
  // Image-space painter: 1 unit = 1 px, pixel centres at integers.
  p.save();
  p.translate(offset_ + QPointF(0.5, 0.5) * scale_);
  p.scale(scale_, scale_);
  p.setRenderHint(QPainter::Antialiasing, true);
  if (has_results_) {
    const ColourRange range = range_in_use(style_.range, results_.points, style_.field, style_.map);
    for (const auto& pt : results_.points) {
      const double v = field_value(pt, style_.field);
      if (std::isnan(v)) continue;
      QColor c = style_.field == ResultField::status
                     ? status_colour(pt.status)
                     : colour_at(style_.map, (v - range.lo) / (range.hi - range.lo));
      if (c.alpha() == 0) continue;
      c.setAlphaF(static_cast<float>(style_.map_opacity));
      p.fillRect(QRectF(pt.x - step_ / 2.0, pt.y - step_ / 2.0, step_, step_), c);
    }
    if (style_.vectors) {  // the largest ~2 grid steps long, times the chosen scale
      double largest = 0;
      for (const auto& pt : results_.points)
        if (pt.status == dic::PointStatus::converged)
          largest = std::max(largest, std::hypot(pt.u, pt.v));
      const double k = largest > 0 ? 2.0 * step_ / largest * style_.vector_scale : 0;
      QColor c = style_.vector_colour;
      c.setAlphaF(static_cast<float>(style_.vector_opacity));
      p.setPen(QPen(c, 1.0 / scale_));
      for (const auto& pt : results_.points) {
        if (pt.status != dic::PointStatus::converged) continue;
        p.drawLine(QPointF(pt.x, pt.y), QPointF(pt.x + k * pt.u, pt.y + k * pt.v));
      }
    }
  }
  // Marks: the profile line (magenta), the probed point (cross), the data cursor's point.
  if (!profile_line_.isNull()) {
    p.setPen(QPen(QColor(255, 60, 255), 2.0 / scale_));
    p.drawLine(profile_line_);
  }
  const double m = 6 / scale_;
  if (!std::isnan(probe_mark_.x())) {
    p.setPen(QPen(QColor(255, 60, 255), 2.0 / scale_));
    p.drawLine(probe_mark_ - QPointF(m, m), probe_mark_ + QPointF(m, m));
    p.drawLine(probe_mark_ - QPointF(m, -m), probe_mark_ + QPointF(m, -m));
  }
  if (!std::isnan(cursor_mark_.x())) {
    p.setPen(QPen(Qt::black, 3.0 / scale_));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(cursor_mark_, m, m);
    p.setPen(QPen(Qt::white, 1.5 / scale_));
    p.drawEllipse(cursor_mark_, m, m);
  }
  for (std::size_t k = 0; k < roi_.shapes.size(); ++k) {
    const bool sel = static_cast<int>(k) == selected_ && tool_ == Tool::edit;
    const dic::RoiShape& s = sel ? edited_ : roi_.shapes[k];
    p.setPen(
        QPen(s.subtract ? QColor(255, 80, 80) : QColor(80, 255, 120), (sel ? 3.0 : 2.0) / scale_));
    p.setBrush(Qt::NoBrush);
    p.drawPath(shape_path(s));
    if (sel) {
      const QRectF b = drawn_bounds(s);
      const double hs = 6 / scale_;
      p.setBrush(Qt::white);
      for (int c = 0; c < 4; ++c)
        p.drawRect(QRectF(corner(b, c) - QPointF(hs / 2, hs / 2), QSizeF(hs, hs)));
    }
  }
  // The ROI Manager's shapes: cyan with their names, the selected ones yellow and thicker.
  for (std::size_t k = 0; k < named_.size(); ++k) {
    const bool sel = named_selected_[k];
    if (!sel && !named_all_) continue;
    const dic::RoiShape& s = named_[k].shape;
    p.setPen(QPen(sel ? QColor(255, 230, 0) : QColor(0, 230, 255), (sel ? 2.5 : 1.5) / scale_,
                  Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawPath(shape_path(s));
    const dic::RoiBounds b = dic::bounds(s);
    QFont f = p.font();
    f.setPointSizeF(std::max(1.0, 9.0 / scale_));
    p.setFont(f);
    p.drawText(QPointF(b.x0, b.y0 - 3 / scale_), QString::fromStdString(named_[k].name));
  }
  // Templates in their series' colour (the plots' too): dashed at the reference position, or
  // solid where the track puts them in this frame, with the trajectory of the top-left corner so
  // far.
  for (std::size_t t = 0; t < templates_.size(); ++t) {
    const TemplateRect& r = templates_[t];
    double x = static_cast<double>(r.x), y = static_cast<double>(r.y);
    const bool tracked = t < tracks_.size() && track_frame_ < static_cast<int>(tracks_[t].x.size());
    if (tracked) {
      const Track& tr = tracks_[t];
      QPolygonF path;
      for (int k = 0; k <= track_frame_; ++k)
        path << QPointF(tr.x[static_cast<std::size_t>(k)], tr.y[static_cast<std::size_t>(k)]);
      p.setPen(QPen(series_colour(t), 1.5 / scale_));
      p.drawPolyline(path);
      x = tr.x[static_cast<std::size_t>(track_frame_)];
      y = tr.y[static_cast<std::size_t>(track_frame_)];
    }
    p.setPen(QPen(series_colour(t), 2.0 / scale_, tracked ? Qt::SolidLine : Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(
        QRectF(x - 0.5, y - 0.5, static_cast<double>(r.width), static_cast<double>(r.height)));
    p.drawText(QPointF(x, y - 3 / scale_), QString::number(t + 1));
  }
  // The shape being drawn.
  p.setPen(QPen(QColor(255, 220, 0), 1.5 / scale_, Qt::DashLine));
  if (dragging_ && tool_ == Tool::line) p.drawLine(QLineF(press_image_, current_image_));
  if (dragging_ &&
      (tool_ == Tool::rectangle || tool_ == Tool::ellipse || tool_ == Tool::template_rect)) {
    const QRectF r = QRectF(press_image_, current_image_).normalized();
    if (tool_ == Tool::ellipse)
      p.drawEllipse(r);
    else
      p.drawRect(r);
  }
  if (tool_ == Tool::polygon && !polygon_.empty()) {
    QPolygonF poly;
    for (const auto& v : polygon_) poly << QPointF(v.x, v.y);
    poly << current_image_;
    p.drawPolyline(poly);
  }
  p.restore();
  draw_annotations(p, area, scale_bar_ ? scale_bar(scale_units_, scale_, area.width()) : ScaleBar{},
                   time_stamp_ && std::isfinite(time_s_) ? time_stamp(time_s_) : QString());
}

void ImageView::set_annotations(const io::ImageScale& scale, double time_s, bool bar, bool stamp) {
  scale_units_ = scale;
  time_s_ = time_s;
  scale_bar_ = bar;
  time_stamp_ = stamp;
  update();
}

void ImageView::wheelEvent(QWheelEvent* e) {
  zoom_at(e->position(), std::pow(1.0015, e->angleDelta().y()));
}

void ImageView::mousePressEvent(QMouseEvent* e) {
  press_widget_ = e->position();
  press_image_ = to_image(e->position());
  current_image_ = press_image_;
  if (tool_ == Tool::edit && e->button() == Qt::LeftButton) {
    handle_ = -1;
    if (selected_ >= 0 && selected_ < static_cast<int>(roi_.shapes.size())) {
      const QRectF b = drawn_bounds(roi_.shapes[static_cast<std::size_t>(selected_)]);
      for (int c = 0; c < 4; ++c) {
        if (QLineF(to_widget(corner(b, c)), e->position()).length() < 8) handle_ = c;
      }
    }
    if (handle_ < 0) {  // select the topmost shape under the cursor
      selected_ = -1;
      for (int k = static_cast<int>(roi_.shapes.size()) - 1; k >= 0; --k) {
        if (shape_path(roi_.shapes[static_cast<std::size_t>(k)]).contains(press_image_)) {
          selected_ = k;
          break;
        }
      }
    }
    if (selected_ >= 0) edited_ = roi_.shapes[static_cast<std::size_t>(selected_)];
    dragging_ = selected_ >= 0;
    setFocus();
    update();
    return;
  }
  if (tool_ == Tool::probe && e->button() == Qt::LeftButton) {
    emit probed(press_image_.x(), press_image_.y());
    return;
  }
  if (tool_ == Tool::polygon && e->button() == Qt::LeftButton) {
    polygon_.push_back({press_image_.x(), press_image_.y()});
    update();
    return;
  }
  dragging_ = true;
}

void ImageView::mouseMoveEvent(QMouseEvent* e) {
  current_image_ = to_image(e->position());
  const long x = std::lround(current_image_.x()), y = std::lround(current_image_.y());
  const bool inside = x >= 0 && y >= 0 && x < cols_ && y < rows_;
  emit pixel_hovered(current_image_.x(), current_image_.y(),
                     inside ? pixels_[static_cast<std::size_t>(y) * cols_ + x] : 0.0, inside);
  if (dragging_ && tool_ == Tool::edit && selected_ >= 0) {
    const dic::RoiShape& orig = roi_.shapes[static_cast<std::size_t>(selected_)];
    const QRectF b = drawn_bounds(orig);
    QRectF to = b;
    if (handle_ < 0) {
      to.translate(current_image_ - press_image_);
    } else {  // the dragged corner follows the cursor, the opposite one stays
      const QPointF fixed = corner(b, (handle_ + 2) % 4);
      to = QRectF(fixed, current_image_).normalized();
    }
    edited_ = fitted(orig, b, to);
  } else if (dragging_ && (tool_ == Tool::pan || e->buttons() & Qt::MiddleButton)) {
    offset_ += e->position() - press_widget_;
    press_widget_ = e->position();
    fitted_ = false;
  }
  update();
}

void ImageView::mouseReleaseEvent(QMouseEvent* e) {
  if (!dragging_) return;
  dragging_ = false;
  if (tool_ == Tool::edit) {
    if (selected_ >= 0 && current_image_ != press_image_) emit shape_edited(selected_, edited_);
    return update();
  }
  if (tool_ == Tool::line) {
    const QLineF line(press_image_, to_image(e->position()));
    if (line.length() >= 1) emit line_drawn(line);
    return update();
  }
  const QRectF r = QRectF(press_image_, to_image(e->position())).normalized();
  if (r.width() < 1 || r.height() < 1) return update();
  dic::RoiShape s;
  s.subtract = subtract_;
  if (tool_ == Tool::template_rect) {
    emit template_drawn(TemplateRect{std::lround(r.left() + 0.5), std::lround(r.top() + 0.5),
                                     std::lround(r.width()), std::lround(r.height())});
  } else if (tool_ == Tool::rectangle) {
    s.kind = dic::RoiShapeKind::rectangle;
    s.x = std::round(r.left() + 0.5), s.y = std::round(r.top() + 0.5);
    s.width = std::round(r.width()), s.height = std::round(r.height());
    emit shape_drawn(s);
  } else if (tool_ == Tool::ellipse) {
    s.kind = dic::RoiShapeKind::ellipse;
    s.x = r.center().x(), s.y = r.center().y(), s.rx = r.width() / 2, s.ry = r.height() / 2;
    emit shape_drawn(s);
  }
  update();
}

void ImageView::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape && (dragging_ || !polygon_.empty())) {  // drop the shape
    dragging_ = false;
    polygon_.clear();
    update();
    return;
  }
  if (tool_ == Tool::edit && selected_ >= 0 &&
      (e->key() == Qt::Key_Delete || e->key() == Qt::Key_Backspace)) {
    const int k = selected_;
    selected_ = -1;
    emit shape_deleted(k);
    return;
  }
  QWidget::keyPressEvent(e);
}

void ImageView::mouseDoubleClickEvent(QMouseEvent*) {
  if (tool_ != Tool::polygon || polygon_.size() < 3) return;
  dic::RoiShape s;
  s.kind = dic::RoiShapeKind::polygon;
  s.subtract = subtract_;
  s.vertices = polygon_;
  polygon_.clear();
  emit shape_drawn(s);
  update();
}

}  // namespace xcorr::ui
