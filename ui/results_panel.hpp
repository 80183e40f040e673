// The Results dock: the Map tab (one frame's quantity over the grid: colour map, colour range
// kept per quantity with Auto, vectors' look for the image overlay, the data cursor's readout),
// the Profile tab (u, v and strains along a drawn line, CSV export), the Trajectories tab (each
// tracked template's dx solid and dy dashed by frame) and the Surface tab (a probed ZNCC surface
// with its peak), and the export of the shown tab's plot with a title. It draws what it is
// given; MainWindow gives it the project's results.
#pragma once

#include <QTabWidget>
#include <map>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/io/scale.hpp"
#include "core/register/register_stack.hpp"
#include "core/status.hpp"
#include "core/tracking/track_stats.hpp"
#include "core/tracking/tracking.hpp"
#include "ui/result_display.hpp"

class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QToolButton;

namespace xcorr::ui {

class ResultsPanel : public QTabWidget {
  Q_OBJECT
 public:
  explicit ResultsPanel(QWidget* parent = nullptr);

  MapStyle style() const;  // the widgets' choices (a locked range as locked)
  // What the overlay and the map show: style() with a locked range resolved over every frame
  // (as the last show_map computed it).
  MapStyle shown_style() const;
  void set_field(ResultField f);
  void set_colour_map(ColourMap m);      // for the shown quantity
  void set_range(double lo, double hi);  // fixed, for the shown quantity (lo < hi)
  void set_auto_range();
  void set_locked_range();  // auto over every frame, for the shown quantity
  // Colour map and range of each quantity as JSON text (the project keeps it: "display"):
  // {"u": {"colours": "diverging", "range": "auto" | "locked" | [lo, hi]}, ...}. Reading skips
  // what it does not know; the rest keep their defaults.
  QString display_settings() const;
  void set_display_settings(const QString& json);
  void set_vectors(bool on, double scale, const QColor& colour, double opacity);

  // Lengths in the scale's unit (axes, colour bar of u, v and |d|, the cursor, trajectories) and
  // trajectories against time when frame_times_s (frame k's time after the reference, k = 0..)
  // is given; an empty scale shows px and frame numbers. Replots.
  void set_scale(const io::ImageScale& scale, std::vector<double> frame_times_s);
  const io::ImageScale& scale() const { return units_; }
  // One frame's quantity (null: cleared); `frames` (every frame's results) for a locked range.
  void show_map(const dic::FrameResult* frame, const dic::Grid& grid,
                const std::vector<dic::FrameResult>& frames = {});
  // Every tab back to its empty state (another stack was opened): map, cursor line, profile,
  // trajectories, surface and drift with their captions; the Map tab raised.
  void clear();
  void set_cursor_text(const QString& text);  // the data cursor's line under the map
  QString cursor_text() const;
  // Along a line; `what` names it (frame, line) for the CSV header; `channels` name and colour
  // the samples' intensities. DIC quantities where there are results (u, v left axis, strains
  // right), else the intensity of each channel. Raises the Profile tab.
  void show_profile(std::vector<ProfileSample> profile, const QString& what,
                    std::vector<ProfileChannel> channels = {});
  bool has_profile() const { return !profile_.empty(); }
  Status export_profile_csv(const QString& path) const;
  // The tracks in the Trajectories tab: the plot (displacement, distance from the start, speed
  // or MSD, each track in its series colour) and the table (template, net displacement, path,
  // mean speed, mean ZNCC); selected rows are highlighted in the plot.
  void show_tracks(const std::vector<Track>& tracks);
  std::vector<int> selected_tracks() const;  // rows of the table, ascending
  // A registration's drift: dx solid, dy dashed against time (or frame), in the scale's unit
  // (or px), failed frames left out; a line under it sums it up. Raises the Drift tab.
  void show_drift(const std::vector<reg::DriftRow>& drift, const io::ImageScale& scale);
  QString drift_text() const;
  // A (2R + 1)^2 ZNCC surface (rows: v from -R to R, columns: u from -R to R) probed at (x, y)
  // px; shows its peak; raises its tab.
  void show_surface(MatrixView<const float> surface, int R, double x, double y);
  QString surface_text() const;
  // The shown tab's plot, .png (width x height px) or .pdf, with `title` above it.
  Status export_plot(const QString& path, const QString& title, int width = 1600,
                     int height = 1200) const;
  bool plot_has_data() const;  // the shown tab has something to export

 signals:
  void display_changed();                // the quantity, colours, range or vectors changed
  void map_hovered(double x, double y);  // the cursor over the map, image px
  void profile_export_requested();
  void tracks_delete_requested(std::vector<int> tracks);  // the table's selected rows

 private:
  bool eventFilter(QObject* watched, QEvent* e) override;
  void load_field_settings();  // the shown quantity's map and range into the widgets
  void fit_aspect();           // square pixels in the map plot
  QComboBox *field_, *colours_;
  QDoubleSpinBox *range_lo_, *range_hi_, *vector_scale_, *vector_opacity_;
  QToolButton *auto_range_, *lock_range_;  // tool buttons: the range row stays narrow
  QPushButton* vector_colour_;
  QCheckBox* vectors_;
  QColor vector_colour_value_{255, 255, 255};
  QLabel *cursor_label_, *surface_label_;
  std::map<ResultField, ColourMap> maps_;
  std::map<ResultField, ColourRange> ranges_;
  std::map<ResultField, ColourRange> locked_;  // locked ranges over every frame, by show_map
  QCustomPlot *plot_, *profile_plot_, *tracks_plot_, *surface_plot_, *drift_plot_;
  QLabel* drift_label_;
  QCPColorMap *map_, *surface_map_;
  QCPColorScale* scale_;
  std::vector<ProfileSample> profile_;
  QString profile_what_;
  std::vector<ProfileChannel> profile_channels_;
  bool profile_intensity_ = false;  // the profile shows intensities (no results on its frame)
  bool map_has_data_ = false, surface_has_data_ = false;
  io::ImageScale units_;
  std::vector<double> frame_times_s_;
  std::vector<Track> tracks_;
  std::vector<TrackStats> stats_;  // of tracks_
  QComboBox* track_quantity_;
  QTableWidget* track_table_;
  QPushButton* delete_tracks_;
  void plot_tracks();
  void label_axes();  // px or the unit, by units_ and the shown quantity
};

}  // namespace xcorr::ui
