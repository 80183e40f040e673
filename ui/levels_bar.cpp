#include "ui/levels_bar.hpp"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

namespace xcorr::ui {

// The histogram with the two limits; dragging a line (or clicking near it) moves that limit.
class Histogram : public QWidget {
 public:
  std::function<void(double black, double white)> on_drag;
  Histogram() {
    setMinimumHeight(40);
    setMaximumHeight(90);
    setMouseTracking(true);
    setToolTip(tr("Drag the black (left) or white (right) limit"));
  }
  void set(MatrixView<const float> frame, double black, double white) {
    lo_ = std::numeric_limits<double>::infinity();
    hi_ = -lo_;
    for (Index r = 0; r < frame.rows; ++r)
      for (Index c = 0; c < frame.cols; ++c) {
        const double v = frame(r, c);
        if (std::isfinite(v)) lo_ = std::min(lo_, v), hi_ = std::max(hi_, v);
      }
    counts_.assign(128, 0);
    if (lo_ < hi_) {
      for (Index r = 0; r < frame.rows; ++r)
        for (Index c = 0; c < frame.cols; ++c) {
          const double v = frame(r, c);
          if (!std::isfinite(v)) continue;
          const auto b = static_cast<std::size_t>((v - lo_) / (hi_ - lo_) * 127.999);
          ++counts_[std::min<std::size_t>(b, 127)];
        }
    }
    set_limits(black, white);
  }
  void set_limits(double black, double white) {
    black_ = black;
    white_ = white;
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!(lo_ < hi_)) return;
    const double top = std::log1p(*std::max_element(counts_.begin(), counts_.end()));
    const double w = width(), h = height();
    p.setPen(Qt::NoPen);
    p.setBrush(palette().text().color());
    for (std::size_t b = 0; b < counts_.size(); ++b) {
      const double bh = top > 0 ? std::log1p(counts_[b]) / top * (h - 2) : 0;
      p.drawRect(QRectF(w * b / counts_.size(), h - bh, w / counts_.size() + 0.5, bh));
    }
    for (const auto& [v, c] :
         {std::pair{black_, QColor(40, 90, 230)}, {white_, QColor(230, 60, 40)}}) {
      p.setPen(QPen(c, 2));
      const double x = to_x(v);
      p.drawLine(QPointF(x, 0), QPointF(x, h));
    }
  }
  void mousePressEvent(QMouseEvent* e) override {
    drag_ = std::abs(e->position().x() - to_x(black_)) <= std::abs(e->position().x() - to_x(white_))
                ? 0
                : 1;
    mouseMoveEvent(e);
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (drag_ < 0 || !(e->buttons() & Qt::LeftButton) || !(lo_ < hi_)) return;
    const double v = lo_ + std::clamp(e->position().x() / width(), 0.0, 1.0) * (hi_ - lo_);
    const double eps = (hi_ - lo_) * 1e-3;
    double b = black_, w = white_;
    (drag_ == 0 ? b : w) = v;
    if (drag_ == 0)
      b = std::min(b, w - eps);
    else
      w = std::max(w, b + eps);
    set_limits(b, w);
    if (on_drag) on_drag(b, w);
  }
  void mouseReleaseEvent(QMouseEvent*) override { drag_ = -1; }

 private:
  double to_x(double v) const { return (v - lo_) / (hi_ - lo_) * width(); }
  std::vector<double> counts_;
  double lo_ = 0, hi_ = 0, black_ = 0, white_ = 0;
  int drag_ = -1;
};

LevelsBar::LevelsBar(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  histogram_ = new Histogram;
  layout->addWidget(histogram_);
  auto* row = new QHBoxLayout;
  black_ = new QDoubleSpinBox;
  white_ = new QDoubleSpinBox;
  black_->setObjectName("levels_black");
  white_->setObjectName("levels_white");
  for (auto* b : {black_, white_}) {
    b->setRange(-1e12, 1e12);
    b->setDecimals(1);
    b->setKeyboardTracking(false);
    b->setMinimumWidth(60);  // not the width of the widest allowed value
    row->addWidget(b, 1);
    connect(b, &QDoubleSpinBox::valueChanged, this, [this] {
      if (!(black_->value() < white_->value())) return;  // mid-edit; a valid pair applies
      automatic_ = false;
      auto_->setChecked(false);
      histogram_->set_limits(black_->value(), white_->value());
      emit levels_edited(black_->value(), white_->value());
    });
  }
  black_->setToolTip(tr("Black level (grey value shown as black)"));
  white_->setToolTip(tr("White level (grey value shown as white)"));
  auto_ = new QPushButton(tr("Auto"));
  auto_->setObjectName("levels_auto");
  auto_->setCheckable(true);
  auto_->setChecked(true);
  auto_->setToolTip(tr("Levels from the 0.5 % and 99.5 % percentiles (reset for every stack)"));
  row->addWidget(auto_);
  layout->addLayout(row);
  connect(auto_, &QPushButton::clicked, this, [this] {
    automatic_ = true;
    auto_->setChecked(true);
    emit auto_requested();
  });
  histogram_->on_drag = [this](double b, double w) {
    set_values(b, w);
    automatic_ = false;
    auto_->setChecked(false);
    emit levels_edited(b, w);
  };
}

double LevelsBar::black() const {
  return black_->value();
}
double LevelsBar::white() const {
  return white_->value();
}

void LevelsBar::set_values(double black, double white) {
  for (auto* b : {black_, white_}) b->blockSignals(true);
  black_->setValue(black);
  white_->setValue(white);
  for (auto* b : {black_, white_}) b->blockSignals(false);
}

void LevelsBar::show_frame(MatrixView<const float> frame, double black, double white,
                           bool automatic) {
  automatic_ = automatic;
  auto_->setChecked(automatic);
  set_values(black, white);
  histogram_->set(frame, black, white);
}

}  // namespace xcorr::ui
