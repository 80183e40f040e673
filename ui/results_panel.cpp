#include "ui/results_panel.hpp"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

namespace xcorr::ui {

ResultsPanel::ResultsPanel(QWidget* parent) : QTabWidget(parent) {
  // Map: field, range, colour map with colour scale.
  auto* res_widget = new QWidget;
  auto* res_layout = new QVBoxLayout(res_widget);
  auto* controls = new QHBoxLayout;
  field_ = new QComboBox;
  for (ResultField f : {ResultField::u, ResultField::v, ResultField::magnitude, ResultField::exx,
                        ResultField::eyy, ResultField::exy})
    field_->addItem(to_string(f), static_cast<int>(f));
  range_lo_ = new QDoubleSpinBox;
  range_hi_ = new QDoubleSpinBox;
  for (auto* s : {range_lo_, range_hi_}) {
    s->setDecimals(5);
    s->setRange(-1e6, 1e6);
    s->setSingleStep(0.01);
    s->setValue(-1e6);  // the minimum reads "auto"
    s->setSpecialValueText(tr("auto"));
    s->setToolTip(tr("Colour range; 'auto' (or low >= high): the data's range"));
  }
  controls->addWidget(field_);
  controls->addWidget(new QLabel(tr("range")));
  controls->addWidget(range_lo_);
  controls->addWidget(range_hi_);
  res_layout->addLayout(controls);
  plot_ = new QCustomPlot;
  plot_->setMinimumSize(360, 320);
  plot_->axisRect()->setupFullAxesBox(true);
  plot_->xAxis->setLabel("x (px)");
  plot_->yAxis->setLabel("y (px)");
  plot_->yAxis->setRangeReversed(true);
  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  scale_ = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(0, 1, scale_);
  map_->setColorScale(scale_);
  QCPColorGradient gradient(QCPColorGradient::gpJet);
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  map_->setGradient(gradient);
  map_->setInterpolate(false);
  res_layout->addWidget(plot_, 1);
  tracks_plot_ = new QCustomPlot;
  tracks_plot_->xAxis->setLabel(tr("frame"));
  tracks_plot_->yAxis->setLabel(tr("displacement (px): dx solid, dy dashed"));
  addTab(res_widget, tr("Map"));
  addTab(tracks_plot_, tr("Trajectories"));
  surface_plot_ = new QCustomPlot;
  surface_plot_->xAxis->setLabel(tr("u (px)"));
  surface_plot_->yAxis->setLabel(tr("v (px)"));
  surface_plot_->yAxis->setRangeReversed(true);
  surface_map_ = new QCPColorMap(surface_plot_->xAxis, surface_plot_->yAxis);
  auto* surface_scale = new QCPColorScale(surface_plot_);
  surface_plot_->plotLayout()->addElement(0, 1, surface_scale);
  surface_map_->setColorScale(surface_scale);
  surface_map_->setGradient(QCPColorGradient::gpJet);
  surface_scale->axis()->setLabel("ZNCC");
  addTab(surface_plot_, tr("Surface"));
  connect(field_, &QComboBox::currentIndexChanged, this, [this] { emit display_changed(); });
  connect(range_lo_, &QDoubleSpinBox::valueChanged, this, [this] { emit display_changed(); });
  connect(range_hi_, &QDoubleSpinBox::valueChanged, this, [this] { emit display_changed(); });
}

ResultField ResultsPanel::field() const {
  return static_cast<ResultField>(field_->currentData().toInt());
}
double ResultsPanel::range_lo() const {
  return range_lo_->value();
}
double ResultsPanel::range_hi() const {
  return range_hi_->value();
}

void ResultsPanel::show_map(const dic::FrameResult* frame, const dic::Grid& grid) {
  if (frame == nullptr) {
    map_->data()->clear();
    plot_->replot();
    return;
  }
  const ResultField f = field();
  const double lo = range_lo(), hi = range_hi();
  const dic::Grid& g = grid;
  const auto& pts = frame->points;
  map_->data()->setSize(static_cast<int>(g.cols), static_cast<int>(g.rows));
  map_->data()->setRange(QCPRange(pts.front().x, pts.back().x),
                         QCPRange(pts.front().y, pts.back().y));
  for (Index r = 0; r < g.rows; ++r)
    for (Index c = 0; c < g.cols; ++c)
      map_->data()->setCell(static_cast<int>(c), static_cast<int>(r),
                            field_value(pts[static_cast<std::size_t>(r * g.cols + c)], f));
  scale_->axis()->setLabel(to_string(f));
  double dlo = lo, dhi = hi;
  if (!(dlo < dhi)) {  // the data's range, NaN (invalid points) left out
    dlo = std::numeric_limits<double>::infinity();
    dhi = -dlo;
    for (const auto& p : pts) {
      const double v = field_value(p, f);
      if (std::isnan(v)) continue;
      dlo = std::min(dlo, v);
      dhi = std::max(dhi, v);
    }
    if (!(dlo < dhi)) dhi = dlo + 1e-12;
  }
  map_->setDataRange(QCPRange(dlo, dhi));
  plot_->rescaleAxes();
  // Square pixels: widen the axis that has more screen pixels per image pixel.
  const QRect area = plot_->axisRect()->rect();
  const double kx = area.width() / plot_->xAxis->range().size();
  const double ky = area.height() / plot_->yAxis->range().size();
  if (kx > ky)
    plot_->xAxis->setScaleRatio(plot_->yAxis, 1.0);
  else
    plot_->yAxis->setScaleRatio(plot_->xAxis, 1.0);
  plot_->replot();
}

void ResultsPanel::show_tracks(const std::vector<Track>& tracks) {
  tracks_plot_->clearGraphs();
  for (std::size_t t = 0; t < tracks.size(); ++t) {
    const Track& track = tracks[t];
    QVector<double> frame, dx, dy;
    for (std::size_t k = 0; k < track.x.size(); ++k) {
      frame << static_cast<double>(k);
      dx << track.x[k] - track.x[0];
      dy << track.y[k] - track.y[0];
    }
    const QColor c = QColor::fromHsv(static_cast<int>((t * 67) % 360), 200, 220);
    QCPGraph* gx = tracks_plot_->addGraph();
    gx->setData(frame, dx);
    gx->setPen(QPen(c, 2));
    gx->setName(tr("%1: dx").arg(t + 1));
    QCPGraph* gy = tracks_plot_->addGraph();
    gy->setData(frame, dy);
    gy->setPen(QPen(c, 2, Qt::DashLine));
    gy->setName(tr("%1: dy").arg(t + 1));
  }
  tracks_plot_->legend->setVisible(!tracks.empty());
  tracks_plot_->rescaleAxes();
  tracks_plot_->replot();
}

void ResultsPanel::show_surface(MatrixView<const float> m, int R) {
  const int side = 2 * R + 1;
  surface_map_->data()->setSize(side, side);
  surface_map_->data()->setRange(QCPRange(-static_cast<double>(R), static_cast<double>(R)),
                                 QCPRange(-static_cast<double>(R), static_cast<double>(R)));
  for (int r = 0; r < side; ++r)
    for (int c = 0; c < side; ++c) surface_map_->data()->setCell(c, r, m(r, c));
  surface_map_->rescaleDataRange(true);
  surface_plot_->rescaleAxes();
  surface_plot_->replot();
  setCurrentWidget(surface_plot_);
}

Status ResultsPanel::export_plot(const QString& path) const {
  auto* shown = qobject_cast<QCustomPlot*>(currentWidget());
  QCustomPlot* plot = shown != nullptr ? shown : plot_;  // the Map tab holds plot_ in a widget
  const bool ok =
      path.endsWith(".pdf", Qt::CaseInsensitive) ? plot->savePdf(path) : plot->savePng(path);
  return ok ? Status::ok()
            : Status{ErrorCode::io_error, "cannot write '" + path.toStdString() + "'"};
}

}  // namespace xcorr::ui
