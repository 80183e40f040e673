// The Results dock: the Map tab (one frame's DIC field over the grid, colour range and scale),
// the Trajectories tab (each tracked template's dx solid and dy dashed by frame) and the Surface
// tab (a probed ZNCC surface), and the export of the shown tab's plot. It draws what it is given;
// MainWindow gives it the project's results.
#pragma once

#include <QTabWidget>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/status.hpp"
#include "core/tracking.hpp"
#include "ui/image_view.hpp"

class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QComboBox;
class QDoubleSpinBox;

namespace xcorr::ui {

class ResultsPanel : public QTabWidget {
  Q_OBJECT
 public:
  explicit ResultsPanel(QWidget* parent = nullptr);

  ResultField field() const;
  // The colour range; low >= high (or "auto") means the data's range.
  double range_lo() const;
  double range_hi() const;

  void show_map(const dic::FrameResult* frame, const dic::Grid& grid);  // null: cleared
  void show_tracks(const std::vector<Track>& tracks);
  // A (2R + 1)^2 ZNCC surface (rows: v from -R to R, columns: u from -R to R); raises its tab.
  void show_surface(MatrixView<const float> surface, int R);
  Status export_plot(const QString& path) const;  // the shown tab's plot, .png or .pdf

 signals:
  void display_changed();  // the field or the colour range was edited

 private:
  QComboBox* field_;
  QDoubleSpinBox *range_lo_, *range_hi_;
  QCustomPlot *plot_, *tracks_plot_, *surface_plot_;
  QCPColorMap *map_, *surface_map_;
  QCPColorScale* scale_;
};

}  // namespace xcorr::ui
