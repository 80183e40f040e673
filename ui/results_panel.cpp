#include "ui/results_panel.hpp"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QColorDialog>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/tracking/track_stats.hpp"
#include "ui/scaled_ticker.hpp"

namespace xcorr::ui {
namespace {

QCPColorGradient gradient_of(ColourMap m) {
  QCPColorGradient g;
  g.clearColorStops();
  for (int k = 0; k <= 32; ++k) g.setColorStopAt(k / 32.0, colour_at(m, k / 32.0));
  g.setNanHandling(QCPColorGradient::nhTransparent);
  return g;
}

// 0 converged, 1 diverged, 2 low texture, 3 outside the ROI (hidden), 4 outside the image,
// 5 inconsistent.
QCPColorGradient status_gradient() {
  QCPColorGradient g;
  g.clearColorStops();
  for (int k = 0; k <= 5; ++k)
    g.setColorStopAt(k / 5.0, status_colour(static_cast<dic::PointStatus>(k)));
  g.setLevelCount(6);
  g.setNanHandling(QCPColorGradient::nhTransparent);
  return g;
}

// The captions of the empty tabs.
QString kCursorHint() {
  return ResultsPanel::tr("Hover over the map or the image for a point's values");
}
QString kSurfaceHint() {
  return ResultsPanel::tr("Probe tool: click the image");
}
QString kDriftHint() {
  return ResultsPanel::tr("Analysis > Register stack measures the drift");
}

}  // namespace

ResultsPanel::ResultsPanel(QWidget* parent) : QTabWidget(parent) {
  for (const auto& [f, name] : EnumLabels<ResultField>::table) maps_[f] = default_map(f);
  // Map: quantity, colour map, range (Auto), vectors, the plot and the data cursor.
  auto* res_widget = new QWidget;
  auto* res_layout = new QVBoxLayout(res_widget);
  auto* controls = new QHBoxLayout;
  field_ = new QComboBox;
  field_->setObjectName("field");
  for (const auto& [f, name] : EnumLabels<ResultField>::table)
    field_->addItem(QString::fromStdString(to_string(f)), static_cast<int>(f));
  field_->setToolTip(tr("Quantity shown on the map and the image overlay"));
  colours_ = new QComboBox;
  colours_->setObjectName("colour_map");
  for (const auto& [m, name] : EnumLabels<ColourMap>::table)
    colours_->addItem(name, static_cast<int>(m));
  colours_->setToolTip(tr("Colour map of this quantity (kept per quantity)"));
  range_lo_ = new QDoubleSpinBox;
  range_hi_ = new QDoubleSpinBox;
  for (auto* s : {range_lo_, range_hi_}) {
    s->setDecimals(5);
    s->setRange(-1e9, 1e9);
    s->setSingleStep(0.01);
    s->setKeyboardTracking(false);
    s->setToolTip(tr("Colour range of this quantity (kept per quantity); editing turns Auto off"));
  }
  auto_range_ = new QToolButton;
  auto_range_->setText(tr("Auto"));
  auto_range_->setObjectName("auto_range");
  auto_range_->setCheckable(true);
  auto_range_->setChecked(true);
  auto_range_->setToolTip(
      tr("The data's range on each frame (symmetric about 0 for the diverging map)"));
  lock_range_ = new QToolButton;
  lock_range_->setText(tr("Lock"));
  lock_range_->setObjectName("lock_range");
  lock_range_->setCheckable(true);
  lock_range_->setToolTip(
      tr("The data's range over every frame: the same colours on each frame "
         "(no rescaling while playing)"));
  controls->addWidget(field_, 1);
  controls->addWidget(colours_, 1);
  res_layout->addLayout(controls);
  auto* range_row = new QHBoxLayout;
  range_row->addWidget(new QLabel(tr("range")));
  range_row->addWidget(range_lo_, 1);
  range_row->addWidget(range_hi_, 1);
  range_row->addWidget(auto_range_);
  range_row->addWidget(lock_range_);
  res_layout->addLayout(range_row);
  for (QWidget* w : std::initializer_list<QWidget*>{field_, colours_, range_lo_, range_hi_})
    w->setMinimumWidth(60);
  auto* vector_row = new QHBoxLayout;
  vectors_ = new QCheckBox(tr("Vectors"));
  vectors_->setChecked(true);
  vectors_->setToolTip(tr("Displacement vectors on the image"));
  vector_scale_ = new QDoubleSpinBox;
  vector_scale_->setRange(0.05, 100);
  vector_scale_->setValue(1);
  vector_scale_->setPrefix(tr("scale "));
  vector_scale_->setToolTip(tr("Length factor (1: the largest vector is 2 grid steps long)"));
  vector_opacity_ = new QDoubleSpinBox;
  vector_opacity_->setRange(0, 100);
  vector_opacity_->setValue(80);
  vector_opacity_->setSuffix(" %");
  vector_opacity_->setPrefix(tr("opacity "));
  vector_colour_ = new QPushButton(tr("Colour..."));
  for (QWidget* w : std::initializer_list<QWidget*>{vector_scale_, vector_opacity_})
    w->setMinimumWidth(60);
  vector_row->addWidget(vectors_);
  vector_row->addWidget(vector_scale_);
  vector_row->addWidget(vector_opacity_);
  vector_row->addWidget(vector_colour_);
  vector_row->addStretch(1);
  res_layout->addLayout(vector_row);
  plot_ = new QCustomPlot;
  plot_->setObjectName("map_plot");
  plot_->setMinimumSize(200, 160);
  plot_->axisRect()->setupFullAxesBox(true);
  plot_->xAxis->setLabel("x (px)");
  plot_->yAxis->setLabel("y (px)");
  plot_->yAxis->setRangeReversed(true);
  plot_->setMouseTracking(true);
  plot_->installEventFilter(this);
  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  scale_ = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(0, 1, scale_);
  map_->setColorScale(scale_);
  map_->setInterpolate(false);
  res_layout->addWidget(plot_, 100);
  cursor_label_ = new QLabel(kCursorHint());
  cursor_label_->setObjectName("cursor");
  cursor_label_->setWordWrap(true);
  cursor_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  res_layout->addWidget(cursor_label_);
  res_layout->addStretch(1);  // what a wide map leaves below it (fit_aspect caps its height)
  addTab(res_widget, tr("Map"));

  // Profile: u, v (left axis) and strains (right axis) along the drawn line.
  auto* profile_widget = new QWidget;
  auto* profile_layout = new QVBoxLayout(profile_widget);
  profile_plot_ = new QCustomPlot;
  profile_plot_->xAxis->setLabel(tr("distance along the line (px)"));
  profile_plot_->yAxis->setLabel(tr("displacement (px)"));
  profile_plot_->yAxis2->setLabel(tr("strain"));
  profile_plot_->yAxis2->setVisible(true);
  profile_plot_->legend->setVisible(true);
  profile_layout->addWidget(profile_plot_, 1);
  auto* export_profile = new QPushButton(tr("Export profile (CSV)..."));
  connect(export_profile, &QPushButton::clicked, this, [this] { emit profile_export_requested(); });
  profile_layout->addWidget(export_profile);
  addTab(profile_widget, tr("Profile"));

  // Trajectories: a plot of the tracks (what: displacement, distance, speed or MSD) above a table
  // with a row per track (selecting rows highlights them; Delete removes them).
  auto* tracks_widget = new QWidget;
  auto* tracks_layout = new QVBoxLayout(tracks_widget);
  track_quantity_ = new QComboBox;
  track_quantity_->setObjectName("track_quantity");
  track_quantity_->addItems({tr("displacement: dx solid, dy dashed"), tr("distance from the start"),
                             tr("speed"), tr("mean squared displacement (MSD) against the lag")});
  track_quantity_->setToolTip(
      tr("What the plot shows of each track, in the stack's unit and "
         "seconds when known"));
  tracks_layout->addWidget(track_quantity_);
  tracks_plot_ = new QCustomPlot;
  tracks_plot_->setObjectName("tracks_plot");
  tracks_plot_->xAxis->setLabel(tr("frame"));
  tracks_plot_->yAxis->setLabel(tr("displacement (px): dx solid, dy dashed"));
  tracks_layout->addWidget(tracks_plot_, 3);
  track_table_ = new QTableWidget(0, 6);
  track_table_->setObjectName("track_table");
  track_table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  track_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  track_table_->verticalHeader()->setVisible(false);
  track_table_->horizontalHeader()->setStretchLastSection(true);
  tracks_layout->addWidget(track_table_, 2);
  delete_tracks_ = new QPushButton(tr("Delete selected tracks"));
  delete_tracks_->setObjectName("delete_tracks");
  delete_tracks_->setEnabled(false);
  delete_tracks_->setToolTip(
      tr("Removes the selected tracks and their templates (Edit > Undo "
         "brings them back)"));
  tracks_layout->addWidget(delete_tracks_);
  addTab(tracks_widget, tr("Trajectories"));
  connect(track_quantity_, &QComboBox::currentIndexChanged, this, [this] { plot_tracks(); });
  connect(track_table_, &QTableWidget::itemSelectionChanged, this, [this] {
    delete_tracks_->setEnabled(!selected_tracks().empty());
    plot_tracks();
  });
  connect(delete_tracks_, &QPushButton::clicked, this, [this] {
    const std::vector<int> rows = selected_tracks();
    if (!rows.empty()) emit tracks_delete_requested(rows);
  });

  auto* surface_widget = new QWidget;
  auto* surface_layout = new QVBoxLayout(surface_widget);
  surface_plot_ = new QCustomPlot;
  surface_plot_->xAxis->setLabel(tr("u (px)"));
  surface_plot_->yAxis->setLabel(tr("v (px)"));
  surface_plot_->yAxis->setRangeReversed(true);
  surface_map_ = new QCPColorMap(surface_plot_->xAxis, surface_plot_->yAxis);
  auto* surface_scale = new QCPColorScale(surface_plot_);
  surface_plot_->plotLayout()->addElement(0, 1, surface_scale);
  surface_map_->setColorScale(surface_scale);
  surface_map_->setGradient(gradient_of(ColourMap::viridis));
  surface_scale->axis()->setLabel("ZNCC");
  surface_label_ = new QLabel(kSurfaceHint());
  surface_label_->setObjectName("surface_peak");
  surface_layout->addWidget(surface_plot_, 1);
  surface_layout->addWidget(surface_label_);
  addTab(surface_widget, tr("Surface"));

  // Drift: a registration's dx and dy against time.
  auto* drift_widget = new QWidget;
  auto* drift_layout = new QVBoxLayout(drift_widget);
  drift_plot_ = new QCustomPlot;
  drift_plot_->xAxis->setLabel(tr("frame"));
  drift_plot_->yAxis->setLabel(tr("drift (px): dx solid, dy dashed"));
  drift_plot_->legend->setVisible(true);
  drift_label_ = new QLabel(kDriftHint());
  drift_label_->setObjectName("drift_summary");
  drift_label_->setWordWrap(true);
  drift_layout->addWidget(drift_plot_, 1);
  drift_layout->addWidget(drift_label_);
  addTab(drift_widget, tr("Drift"));

  connect(field_, &QComboBox::currentIndexChanged, this, [this] {
    load_field_settings();
    emit display_changed();
  });
  connect(colours_, &QComboBox::currentIndexChanged, this, [this] {
    maps_[style().field] = static_cast<ColourMap>(colours_->currentData().toInt());
    emit display_changed();
  });
  for (auto* s : {range_lo_, range_hi_}) {
    connect(s, &QDoubleSpinBox::valueChanged, this, [this] {
      if (range_lo_->value() < range_hi_->value())
        set_range(range_lo_->value(), range_hi_->value());
    });
  }
  connect(auto_range_, &QToolButton::clicked, this, [this] { set_auto_range(); });
  connect(lock_range_, &QToolButton::clicked, this,
          [this](bool on) { on ? set_locked_range() : set_auto_range(); });
  connect(vectors_, &QCheckBox::toggled, this, [this] { emit display_changed(); });
  connect(vector_scale_, &QDoubleSpinBox::valueChanged, this, [this] { emit display_changed(); });
  connect(vector_opacity_, &QDoubleSpinBox::valueChanged, this, [this] { emit display_changed(); });
  connect(vector_colour_, &QPushButton::clicked, this, [this] {
    auto* d = new QColorDialog(vector_colour_value_, this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &QColorDialog::colorSelected, this, [this](const QColor& c) {
      vector_colour_value_ = c;
      emit display_changed();
    });
    d->open();
  });
  load_field_settings();
  label_axes();
}

MapStyle ResultsPanel::style() const {
  MapStyle s;
  s.field = static_cast<ResultField>(field_->currentData().toInt());
  s.map = maps_.at(s.field);
  const auto r = ranges_.find(s.field);
  if (r != ranges_.end()) s.range = r->second;
  s.vectors = vectors_->isChecked();
  s.vector_scale = vector_scale_->value();
  s.vector_colour = vector_colour_value_;
  s.vector_opacity = vector_opacity_->value() / 100;
  return s;
}

void ResultsPanel::set_field(ResultField f) {
  field_->setCurrentIndex(field_->findData(static_cast<int>(f)));
}

void ResultsPanel::set_colour_map(ColourMap m) {
  colours_->setCurrentIndex(colours_->findData(static_cast<int>(m)));
}

void ResultsPanel::set_range(double lo, double hi) {
  if (!(lo < hi)) return;
  ranges_[style().field] = {false, lo, hi};
  load_field_settings();
  emit display_changed();
}

void ResultsPanel::set_auto_range() {
  ranges_[style().field] = {};
  load_field_settings();
  emit display_changed();
}

void ResultsPanel::set_locked_range() {
  ColourRange r;
  r.locked = true;
  ranges_[style().field] = r;
  load_field_settings();
  emit display_changed();
}

MapStyle ResultsPanel::shown_style() const {
  MapStyle s = style();
  if (s.range.automatic && s.range.locked) {
    const auto l = locked_.find(s.field);
    if (l != locked_.end()) s.range = l->second;
  }
  return s;
}

QString ResultsPanel::display_settings() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [f, name] : EnumLabels<ResultField>::table) {
    nlohmann::json q = {{"colours", label(maps_.at(f))}};
    const auto r = ranges_.find(f);
    if (r == ranges_.end() || (r->second.automatic && !r->second.locked))
      q["range"] = "auto";
    else if (r->second.automatic)
      q["range"] = "locked";
    else
      q["range"] = {r->second.lo, r->second.hi};
    j[name] = q;
  }
  return QString::fromStdString(j.dump());
}

void ResultsPanel::set_display_settings(const QString& text) {
  const nlohmann::json j = nlohmann::json::parse(text.toStdString(), nullptr, false);
  if (!j.is_object()) return;
  for (const auto& [f, name] : EnumLabels<ResultField>::table) {
    if (!j.contains(name) || !j[name].is_object()) continue;
    const nlohmann::json& q = j[name];
    if (q.contains("colours") && q["colours"].is_string()) {
      if (const auto m = parse_label<ColourMap>(q["colours"].get<std::string>())) maps_[f] = *m;
    }
    if (!q.contains("range")) continue;
    const nlohmann::json& r = q["range"];
    if (r == "auto") {
      ranges_.erase(f);
    } else if (r == "locked") {
      ranges_[f] = {true, 0, 1, true};
    } else if (r.is_array() && r.size() == 2 && r[0].is_number() && r[1].is_number() &&
               r[0].get<double>() < r[1].get<double>()) {
      ranges_[f] = {false, r[0].get<double>(), r[1].get<double>()};
    }
  }
  load_field_settings();
  emit display_changed();
}

void ResultsPanel::set_vectors(bool on, double scale, const QColor& colour, double opacity) {
  vector_colour_value_ = colour;
  vectors_->setChecked(on);
  vector_scale_->setValue(scale);
  vector_opacity_->setValue(opacity * 100);
  emit display_changed();
}

void ResultsPanel::load_field_settings() {
  const MapStyle s = style();
  for (QWidget* w :
       std::initializer_list<QWidget*>{colours_, range_lo_, range_hi_, auto_range_, lock_range_})
    w->blockSignals(true);
  colours_->setCurrentIndex(colours_->findData(static_cast<int>(s.map)));
  auto_range_->setChecked(s.range.automatic && !s.range.locked);
  lock_range_->setChecked(s.range.automatic && s.range.locked);
  if (!s.range.automatic) {
    range_lo_->setValue(s.range.lo);
    range_hi_->setValue(s.range.hi);
  }
  const bool status = s.field == ResultField::status;
  for (QWidget* w :
       std::initializer_list<QWidget*>{colours_, range_lo_, range_hi_, auto_range_, lock_range_}) {
    w->setEnabled(!status);
    w->blockSignals(false);
  }
}

bool ResultsPanel::eventFilter(QObject* watched, QEvent* e) {
  if (watched == plot_ && e->type() == QEvent::Resize) fit_aspect();
  if (watched == plot_ && e->type() == QEvent::MouseMove && map_has_data_) {
    const QPointF at = static_cast<QMouseEvent*>(e)->position();
    if (plot_->axisRect()->rect().contains(at.toPoint()))
      emit map_hovered(plot_->xAxis->pixelToCoord(at.x()), plot_->yAxis->pixelToCoord(at.y()));
  }
  return QTabWidget::eventFilter(watched, e);
}

void ResultsPanel::fit_aspect() {
  if (!map_has_data_) return;
  const QCPRange x = map_->data()->keyRange(), y = map_->data()->valueRange();
  // The layout below is for the plot's size now: in a resize event (this filter runs before
  // QCustomPlot's own handler) its viewport still has the old size, and a fit made for the old
  // size alternated between a full and a thumbnail map.
  plot_->setViewport(plot_->rect());
  plot_->xAxis->setRange(x.lower - 0.5, x.upper + 0.5);
  plot_->yAxis->setRange(y.lower - 0.5, y.upper + 0.5);
  plot_->replot();  // lays out the axis rect for this size
  // A wide map in a tall dock: the plot only as tall as the map needs at this width (the rest
  // goes below), so it is not a thin strip in an empty plot. Depends on the width only: the
  // resize this causes changes nothing further.
  const QRect rect = plot_->axisRect()->rect();
  const double aspect = plot_->yAxis->range().size() / plot_->xAxis->range().size();
  const int wanted = static_cast<int>(rect.width() * aspect) + (plot_->height() - rect.height());
  const int cap = std::max(plot_->minimumHeight(), wanted);
  if (plot_->maximumHeight() != cap) {
    plot_->setMaximumHeight(cap);
    if (plot_->height() > cap) return;  // the resize event fits it again at the new height
  }
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

void ResultsPanel::show_map(const dic::FrameResult* frame, const dic::Grid& g,
                            const std::vector<dic::FrameResult>& frames) {
  map_has_data_ = frame != nullptr && !frame->points.empty();
  scale_->setVisible(map_has_data_);
  if (!map_has_data_) {
    map_->data()->clear();
    plot_->replot();
    return;
  }
  const MapStyle raw = style();
  if (raw.range.automatic && raw.range.locked && raw.field != ResultField::status)
    locked_[raw.field] = range_over_frames(
        frames.empty() ? std::vector<dic::FrameResult>{*frame} : frames, raw.field, raw.map);
  const MapStyle s = shown_style();
  const auto& pts = frame->points;
  map_->data()->setSize(static_cast<int>(g.cols), static_cast<int>(g.rows));
  map_->data()->setRange(QCPRange(pts.front().x, pts.back().x),
                         QCPRange(pts.front().y, pts.back().y));
  for (Index r = 0; r < g.rows; ++r)
    for (Index c = 0; c < g.cols; ++c) {
      const dic::PointResult& p = pts[static_cast<std::size_t>(r * g.cols + c)];
      const double v = field_value(p, s.field);
      const bool hidden =
          s.field == ResultField::status && p.status == dic::PointStatus::outside_roi;
      map_->data()->setCell(static_cast<int>(c), static_cast<int>(r),
                            hidden ? std::numeric_limits<double>::quiet_NaN() : v);
    }
  map_->setGradient(s.field == ResultField::status ? status_gradient() : gradient_of(s.map));
  label_axes();
  const ColourRange used = range_in_use(s.range, pts, s.field, s.map);
  map_->setDataRange(QCPRange(used.lo, used.hi));
  if (raw.range.automatic && s.field != ResultField::status) {  // show the range in use
    for (auto* b : {range_lo_, range_hi_}) b->blockSignals(true);
    range_lo_->setValue(used.lo);
    range_hi_->setValue(used.hi);
    for (auto* b : {range_lo_, range_hi_}) b->blockSignals(false);
  }
  fit_aspect();
}

void ResultsPanel::clear() {
  show_map(nullptr, {});
  cursor_label_->setText(kCursorHint());
  profile_.clear();
  profile_what_.clear();
  profile_channels_.clear();
  profile_plot_->clearGraphs();
  profile_plot_->replot();
  show_tracks({});
  surface_map_->data()->clear();
  surface_has_data_ = false;
  surface_label_->setText(kSurfaceHint());
  surface_plot_->replot();
  drift_plot_->clearGraphs();
  drift_plot_->xAxis->setLabel(tr("frame"));
  drift_plot_->yAxis->setLabel(tr("drift (px): dx solid, dy dashed"));
  drift_plot_->replot();
  drift_label_->setText(kDriftHint());
  setCurrentIndex(0);
}

void ResultsPanel::set_scale(const io::ImageScale& scale, std::vector<double> frame_times_s) {
  units_ = scale;
  frame_times_s_ = std::move(frame_times_s);
  label_axes();
  plot_->replot();
  if (!profile_.empty()) show_profile(profile_, profile_what_, profile_channels_);
  show_tracks(tracks_);
}

void ResultsPanel::label_axes() {
  const bool length = units_.has_length();
  const QString unit = length ? QString::fromStdString(units_.unit) : QString("px");
  // An axis in px, labelled in the unit when there is one.
  const auto in_unit = [length](QCPAxis* axis, double factor, const QString& label) {
    axis->setTicker(length ? QSharedPointer<QCPAxisTicker>(new ScaledTicker(factor))
                           : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    axis->setLabel(label);
  };
  in_unit(plot_->xAxis, units_.pixel_x, tr("x (%1)").arg(unit));
  in_unit(plot_->yAxis, units_.pixel_y, tr("y (%1)").arg(unit));
  in_unit(profile_plot_->xAxis, units_.pixel_x, tr("distance along the line (%1)").arg(unit));
  if (profile_intensity_) {
    profile_plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    profile_plot_->yAxis->setLabel(tr("intensity (grey value, as stored)"));
  } else {
    in_unit(profile_plot_->yAxis, units_.pixel_x, tr("displacement (%1)").arg(unit));
  }
  const ResultField f = style().field;
  QCPAxis* bar = scale_->axis();
  if (f == ResultField::status) {
    bar->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    bar->setLabel(
        tr("status: 0 converged, 1 diverged, 2 low texture, 4 outside image, 5 inconsistent"));
  } else if (is_length(f)) {
    const bool along_y = f == ResultField::v || f == ResultField::sigma_v;
    in_unit(bar, along_y ? units_.pixel_y : units_.pixel_x,
            tr("%1 (%2)").arg(QString::fromUtf8(label(f)), unit));
  } else {
    bar->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    bar->setLabel(QString::fromStdString(to_string(f)));
  }
}

void ResultsPanel::set_cursor_text(const QString& text) {
  cursor_label_->setText(text);
}

QString ResultsPanel::cursor_text() const {
  return cursor_label_->text();
}

void ResultsPanel::show_profile(std::vector<ProfileSample> profile, const QString& what,
                                std::vector<ProfileChannel> channels) {
  profile_ = std::move(profile);
  profile_what_ = what;
  profile_channels_ = std::move(channels);
  profile_plot_->clearGraphs();
  profile_intensity_ = std::none_of(profile_.begin(), profile_.end(), [](const ProfileSample& q) {
    return q.at.status == dic::PointStatus::converged;
  });
  label_axes();
  profile_plot_->yAxis2->setVisible(!profile_intensity_);
  if (profile_intensity_) {  // no results here: the channels' grey values
    for (std::size_t c = 0; c < profile_channels_.size(); ++c) {
      QVector<double> s, v;
      for (const ProfileSample& q : profile_) {
        s << q.s;
        v << (c < q.intensity.size() ? q.intensity[c] : std::numeric_limits<double>::quiet_NaN());
      }
      QCPGraph* g = profile_plot_->addGraph();
      g->setData(s, v);
      g->setPen(QPen(profile_channels_[c].colour, 2));
      g->setName(profile_channels_[c].name);
    }
    profile_plot_->rescaleAxes();
    profile_plot_->replot();
    setCurrentIndex(1);
    return;
  }
  const struct {
    const char* name;
    double dic::PointResult::*member;
    bool strain;
  } series[] = {{"u", &dic::PointResult::u, false},
                {"v", &dic::PointResult::v, false},
                {"exx", &dic::PointResult::exx, true},
                {"eyy", &dic::PointResult::eyy, true},
                {"exy", &dic::PointResult::exy, true}};
  for (std::size_t k = 0; k < std::size(series); ++k) {
    QVector<double> s, v;
    for (const ProfileSample& q : profile_) {
      s << q.s;
      v << (q.at.status == dic::PointStatus::converged ? q.at.*series[k].member
                                                       : std::numeric_limits<double>::quiet_NaN());
    }
    QCPGraph* g = profile_plot_->addGraph(
        profile_plot_->xAxis, series[k].strain ? profile_plot_->yAxis2 : profile_plot_->yAxis);
    g->setData(s, v);
    g->setPen(QPen(series_colour(k), 2, series[k].strain ? Qt::DashLine : Qt::SolidLine));
    g->setName(series[k].name);
  }
  profile_plot_->rescaleAxes();
  profile_plot_->replot();
  setCurrentIndex(1);
}

Status ResultsPanel::export_profile_csv(const QString& path) const {
  std::vector<std::string> names;
  for (const ProfileChannel& c : profile_channels_) names.push_back(c.name.toStdString());
  return write_profile_csv(path.toStdString(), profile_, profile_what_.toStdString(), names);
}

void ResultsPanel::show_tracks(const std::vector<Track>& tracks) {
  tracks_ = tracks;
  stats_.clear();
  // The stats take the frames' times as steps of the frame interval (io::frame_time_s).
  std::vector<double> steps;
  if (units_.has_time())
    for (std::size_t k = 1; k < frame_times_s_.size(); ++k)
      steps.push_back(frame_times_s_[k] / units_.frame_interval_s);
  for (const Track& t : tracks_) stats_.push_back(track_stats(t, units_, steps));
  const bool length = units_.has_length(), timed = units_.has_time();
  const QString unit = length ? QString::fromStdString(units_.unit) : QString("px");
  const QString per = timed ? tr("%1/s").arg(unit) : tr("%1/frame").arg(unit);
  const QSignalBlocker block(track_table_);
  track_table_->clearSelection();
  track_table_->setRowCount(static_cast<int>(tracks_.size()));
  track_table_->setHorizontalHeaderLabels({tr("#"), tr("template (px)"), tr("net (%1)").arg(unit),
                                           tr("path (%1)").arg(unit),
                                           tr("mean speed (%1)").arg(per), tr("mean ZNCC")});
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    const Track& tr_ = tracks_[t];
    const TrackStats& st = stats_[t];
    double zncc = 0;
    int n = 0;
    for (const double z : tr_.zncc)
      if (std::isfinite(z)) zncc += z, ++n;
    const QStringList cells = {QString::number(t + 1),
                               QString("%1, %2, %3 x %4")
                                   .arg(tr_.rect.x)
                                   .arg(tr_.rect.y)
                                   .arg(tr_.rect.width)
                                   .arg(tr_.rect.height),
                               QString::number(st.net, 'g', 4),
                               QString::number(st.path, 'g', 4),
                               QString::number(st.mean_speed, 'g', 4),
                               n > 0 ? QString::number(zncc / n, 'f', 4) : "-"};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == 0) item->setBackground(series_colour(t)), item->setForeground(Qt::white);
      track_table_->setItem(static_cast<int>(t), c, item);
    }
  }
  track_table_->resizeColumnsToContents();
  delete_tracks_->setEnabled(false);
  plot_tracks();
}

std::vector<int> ResultsPanel::selected_tracks() const {
  std::vector<int> rows;
  for (const QModelIndex& i : track_table_->selectionModel()->selectedRows())
    rows.push_back(i.row());
  std::sort(rows.begin(), rows.end());
  return rows;
}

void ResultsPanel::plot_tracks() {
  tracks_plot_->clearGraphs();
  const bool timed =
      units_.has_time() && !tracks_.empty() && frame_times_s_.size() >= tracks_.front().x.size();
  const bool length = units_.has_length();
  const QString unit = length ? QString::fromStdString(units_.unit) : QString("px");
  const QString time = timed ? tr("time (s)") : tr("frame");
  const int what = track_quantity_->currentIndex();
  const std::vector<int> selected = selected_tracks();
  switch (what) {
    case 0:
      tracks_plot_->xAxis->setLabel(time);
      tracks_plot_->yAxis->setLabel(tr("displacement (%1): dx solid, dy dashed").arg(unit));
      break;
    case 1:
      tracks_plot_->xAxis->setLabel(time);
      tracks_plot_->yAxis->setLabel(tr("distance from the start (%1)").arg(unit));
      break;
    case 2:
      tracks_plot_->xAxis->setLabel(time);
      tracks_plot_->yAxis->setLabel(
          tr("speed (%1)").arg(timed ? tr("%1/s").arg(unit) : tr("%1/frame").arg(unit)));
      break;
    default:
      tracks_plot_->xAxis->setLabel(timed ? tr("lag (s)") : tr("lag (frames)"));
      tracks_plot_->yAxis->setLabel(tr("MSD (%1%2)").arg(unit).arg(QChar(0x00B2)));
      break;
  }
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    const Track& track = tracks_[t];
    const TrackStats& st = stats_[t];
    QColor c = series_colour(t);
    const bool on = selected.empty() || std::find(selected.begin(), selected.end(),
                                                  static_cast<int>(t)) != selected.end();
    if (!on) c.setAlpha(50);
    const double width = !selected.empty() && on ? 3 : 2;
    const auto add = [&](const QVector<double>& x, const QVector<double>& y, const QString& name,
                         Qt::PenStyle style) {
      QCPGraph* g = tracks_plot_->addGraph();
      g->setData(x, y);
      g->setPen(QPen(c, width, style));
      g->setName(name);
    };
    if (what == 0) {
      QVector<double> frame, dx, dy;
      for (std::size_t k = 0; k < track.x.size(); ++k) {
        frame << (timed ? frame_times_s_[k] : static_cast<double>(k));
        dx << (track.x[k] - track.x[0]) * (length ? units_.pixel_x : 1);
        dy << (track.y[k] - track.y[0]) * (length ? units_.pixel_y : 1);
      }
      add(frame, dx, tr("%1: dx").arg(t + 1), Qt::SolidLine);
      add(frame, dy, tr("%1: dy").arg(t + 1), Qt::DashLine);
    } else if (what == 1 || what == 2) {
      const std::vector<double>& v = what == 1 ? st.distance : st.speed;
      add(QVector<double>(st.time.begin(), st.time.end()), QVector<double>(v.begin(), v.end()),
          QString::number(t + 1), Qt::SolidLine);
    } else {
      add(QVector<double>(st.lag_time.begin(), st.lag_time.end()),
          QVector<double>(st.msd.begin(), st.msd.end()), QString::number(t + 1), Qt::SolidLine);
    }
  }
  tracks_plot_->legend->setVisible(!tracks_.empty());
  tracks_plot_->rescaleAxes();
  tracks_plot_->replot();
}

void ResultsPanel::show_drift(const std::vector<reg::DriftRow>& drift,
                              const io::ImageScale& scale) {
  drift_plot_->clearGraphs();
  const bool timed = scale.has_time(), length = scale.has_length();
  const QString unit = length ? QString::fromStdString(scale.unit) : QString("px");
  drift_plot_->xAxis->setLabel(timed ? tr("time (s)") : tr("frame"));
  drift_plot_->yAxis->setLabel(tr("drift (%1): dx solid, dy dashed").arg(unit));
  QVector<double> t, dx, dy, dz, angle;
  // Volumes (dims 3): dz too, in the stack's unit when its z spacing is known, else in planes.
  double largest = 0, largest_angle = 0;
  long used = 0;
  // Transforms (rigid and up): the rotation on the right axis, degrees.
  const bool turns = std::any_of(drift.begin(), drift.end(), [](const reg::DriftRow& d) {
    return d.failed.empty() && d.linear != std::array<double, 4>{1, 0, 0, 1};
  });
  for (const reg::DriftRow& d : drift) {
    if (!d.failed.empty()) continue;
    t << static_cast<double>(d.frame) * (timed ? scale.frame_interval_s : 1);
    dx << d.dx * (length ? scale.pixel_x : 1);
    dy << d.dy * (length ? scale.pixel_y : 1);
    dz << d.dz;
    const double a =
        reg::Affine{{d.linear[0], d.linear[1], 0, d.linear[2], d.linear[3], 0}}.angle_degrees();
    angle << a;
    largest = std::max(largest, std::hypot(d.dx, d.dy));
    largest_angle = std::max(largest_angle, std::abs(a));
    ++used;
  }
  QCPGraph* gx = drift_plot_->addGraph();
  gx->setData(t, dx);
  gx->setPen(QPen(series_colour(0), 2));
  gx->setName("dx");
  QCPGraph* gy = drift_plot_->addGraph();
  gy->setData(t, dy);
  gy->setPen(QPen(series_colour(1), 2, Qt::DashLine));
  gy->setName("dy");
  const bool volumes =
      std::any_of(drift.begin(), drift.end(), [](const reg::DriftRow& d) { return d.dz != 0; });
  if (volumes) {
    QCPGraph* gz = drift_plot_->addGraph();
    gz->setData(t, dz);
    gz->setPen(QPen(series_colour(3), 2, Qt::DashDotLine));
    gz->setName(tr("dz (z-planes)"));
  }
  drift_plot_->yAxis2->setVisible(turns);
  if (turns) {
    QCPGraph* ga = drift_plot_->addGraph(drift_plot_->xAxis, drift_plot_->yAxis2);
    ga->setData(t, angle);
    ga->setPen(QPen(series_colour(2), 2, Qt::DotLine));
    ga->setName(tr("angle (deg, right axis)"));
    drift_plot_->yAxis2->setLabel(tr("rotation (degrees), dotted"));
  }
  drift_plot_->rescaleAxes();
  drift_plot_->replot();
  drift_label_->setText(
      tr("%1 frames registered, %2 left out; largest drift %3 px%4%6; %5")
          .arg(used)
          .arg(static_cast<long>(drift.size()) - used)
          .arg(largest, 0, 'f', 3)
          .arg(length ? QString(" (%1 %2)").arg(largest * scale.pixel_x, 0, 'g', 4).arg(unit)
                      : QString())
          .arg(QString::fromStdString(io::describe(scale)))
          .arg(turns ? tr(" (of the frame's centre); largest rotation %1 degrees")
                           .arg(largest_angle, 0, 'f', 3)
                     : QString()));
  setCurrentWidget(drift_plot_->parentWidget());
}

QString ResultsPanel::drift_text() const {
  return drift_label_->text();
}

void ResultsPanel::show_surface(MatrixView<const float> m, int R, double x, double y) {
  const int side = 2 * R + 1;
  surface_map_->data()->setSize(side, side);
  surface_map_->data()->setRange(QCPRange(-static_cast<double>(R), static_cast<double>(R)),
                                 QCPRange(-static_cast<double>(R), static_cast<double>(R)));
  int best_r = 0, best_c = 0;
  for (int r = 0; r < side; ++r)
    for (int c = 0; c < side; ++c) {
      surface_map_->data()->setCell(c, r, m(r, c));
      if (m(r, c) > m(best_r, best_c)) best_r = r, best_c = c;
    }
  surface_has_data_ = true;
  surface_label_->setText(tr("Probed at (%1, %2) px: peak at u = %3, v = %4 px, ZNCC %5")
                              .arg(x, 0, 'f', 0)
                              .arg(y, 0, 'f', 0)
                              .arg(best_c - R)
                              .arg(best_r - R)
                              .arg(m(best_r, best_c), 0, 'f', 4));
  surface_map_->rescaleDataRange(true);
  surface_plot_->rescaleAxes();
  surface_plot_->replot();
  setCurrentIndex(3);
}

QString ResultsPanel::surface_text() const {
  return surface_label_->text();
}

bool ResultsPanel::plot_has_data() const {
  switch (currentIndex()) {
    case 0:
      return map_has_data_;
    case 1:
      return !profile_.empty();
    case 2:
      return tracks_plot_->graphCount() > 0;
    case 3:
      return surface_has_data_;
    default:
      return drift_plot_->graphCount() > 0;
  }
}

Status ResultsPanel::export_plot(const QString& path, const QString& title, int width,
                                 int height) const {
  QCustomPlot* const plots[] = {plot_, profile_plot_, tracks_plot_, surface_plot_, drift_plot_};
  QCustomPlot* plot = plots[std::clamp(currentIndex(), 0, 4)];
  if (!plot_has_data())
    return {ErrorCode::invalid_argument, "nothing to export: the shown tab has no plot yet"};
  if (width < 16 || height < 16 || width > 20000 || height > 20000)
    return {ErrorCode::invalid_argument, "the plot's size must be 16-20000 px per side"};
  auto* heading = new QCPTextElement(plot, title, QFont("sans", 11, QFont::Bold));
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, heading);
  const bool ok = path.endsWith(".pdf", Qt::CaseInsensitive) ? plot->savePdf(path, width, height)
                                                             : plot->savePng(path, width, height);
  plot->plotLayout()->remove(heading);
  plot->plotLayout()->simplify();
  plot->replot();
  return ok ? Status::ok()
            : Status{ErrorCode::io_error, "cannot write '" + path.toStdString() + "'"};
}

}  // namespace xcorr::ui
