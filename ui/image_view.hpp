// The image viewer of xcorr-studio: one grey frame with contrast levels, zoom (wheel, fit, 1:1)
// and pan, a pixel readout, ROI drawing tools and overlays (ROI shapes; DIC results as a colour
// map of points and displacement vectors). Coordinates in image px (pixel centres at integers).
#pragma once

#include <QImage>
#include <QLineF>
#include <QPainter>
#include <QPointF>
#include <QWidget>
#include <functional>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/dic/roi.hpp"
#include "core/io/scale.hpp"
#include "core/matrix.hpp"
#include "core/tracking/tracking.hpp"
#include "ui/lut.hpp"
#include "ui/result_display.hpp"

namespace xcorr::ui {

// edit: click a ROI shape to select it, drag it to move, drag a corner handle to resize,
// Delete removes it. line: drag a line for a profile of the results along it.
// Esc cancels a shape being drawn.
enum class Tool { pan, rectangle, ellipse, polygon, template_rect, probe, edit, line };

class ImageView : public QWidget {
  Q_OBJECT
 public:
  explicit ImageView(QWidget* parent = nullptr);

  // A composite's other channels (their pixels, the frame's size, with their own LUT and
  // levels) add their colours to the frame's (ui/lut.hpp).
  struct ChannelLayer {
    std::vector<float> pixels;  // rows x cols, row-major
    Lut lut = Lut::grays;
    double black = 0, white = 1;
  };
  // Shows `frame` (the active channel) with `lut` and the view's levels, and `others` added;
  // one grey channel: Grays and no others (the default). The image is built once per call.
  // Levels: auto (0.5 % / 99.5 % percentiles of the first frame shown after reset_levels(),
  // kept while scrolling) unless set_levels was called.
  void set_frame(MatrixView<const float> frame, Lut lut = Lut::grays,
                 std::vector<ChannelLayer> others = {});
  void reset_levels();
  void set_levels(double black, double white);  // grey values; black >= white: auto
  double black() const { return black_; }       // the levels in use (grey values)
  // Non-finite pixels (NaN, Inf: missing data) of the frame shown; drawn in kMissingColour.
  long missing_pixels() const { return missing_; }
  const QImage& image() const { return image_; }      // the frame as drawn, before zoom
  static constexpr QRgb kMissingColour = 0xffd020d0;  // magenta
  double white() const { return white_; }
  bool auto_levels() const { return auto_levels_; }
  void set_roi(const dic::Roi& roi);
  void set_tool(Tool t);
  Tool tool() const { return tool_; }
  void set_subtract(bool on) { subtract_ = on; }
  // Result overlay: points of one frame (grid spacing `step` px) in the given style (copied;
  // null: none).
  void set_results(const dic::FrameResult* frame, const MapStyle& style, int step);
  // Marks: the data cursor's point, the probed point, the profile line (none: NaN).
  void set_marks(QPointF cursor, QPointF probe, QLineF profile);
  // Templates (reference rectangles) and their tracks (copied; null: none): drawn at their
  // position in `frame`, with the trajectory so far.
  void set_templates(const std::vector<TemplateRect>& templates, const std::vector<Track>* tracks,
                     int frame);
  // The ROI Manager's shapes (copied): every one with its name when `all`, else only the
  // selected ones; the selected ones highlighted.
  void set_named_rois(const std::vector<dic::NamedRoi>& rois, const std::vector<int>& selected,
                      bool all);
  // The scale bar (from the scale's pixel size) and the time stamp (time_s after the reference;
  // NaN: none) drawn over the view, each when switched on (ui/annotations.hpp).
  void set_annotations(const io::ImageScale& scale, double time_s, bool scale_bar, bool time_stamp);
  // The view as a figure `width` px wide (the image's aspect): the frame with its LUTs and
  // levels, the ROI, templates, results overlay and marks, the scale bar and time stamp; null
  // without a frame.
  QImage render_figure(int width);
  void fit();
  void one_to_one();
  void zoom_by(double factor);            // about the view's centre, within kMinZoom..kMaxZoom
  double zoom() const { return scale_; }  // screen px per image px
  static constexpr double kMinZoom = 0.02, kMaxZoom = 64;
  QPointF widget_position(QPointF image) const { return to_widget(image); }

 signals:
  void shape_drawn(const xcorr::dic::RoiShape& shape);
  void template_drawn(const xcorr::TemplateRect& rect);
  void probed(double x, double y);  // Probe tool: a click at image position (x, y) px
  void line_drawn(QLineF line);     // Line tool: from press to release, image px
  void shape_edited(int index, const xcorr::dic::RoiShape& shape);  // Edit tool: moved/resized
  void shape_deleted(int index);                                    // Edit tool: Delete key
  void pixel_hovered(double x, double y, double value, bool inside);
  void zoom_changed(double zoom);  // screen px per image px

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void resizeEvent(QResizeEvent*) override;

 private:
  QPointF to_image(QPointF widget) const;
  QPointF to_widget(QPointF image) const;
  void zoom_at(QPointF widget, double factor);  // keeps the image point under `widget` there
  void rebuild_image();
  void paint(QPainter& p, const QRect& area);  // everything drawn, at scale_ and offset_

  std::vector<float> pixels_;
  long missing_ = 0;
  int rows_ = 0, cols_ = 0;
  double black_ = 0, white_ = 0;
  Lut lut_ = Lut::grays;
  std::vector<ChannelLayer> others_;
  bool auto_levels_ = true;
  bool levels_known_ = false;
  QImage image_;
  double scale_ = 1;
  QPointF offset_;  // widget position of image pixel (-0.5, -0.5)
  bool fitted_ = false;
  Tool tool_ = Tool::pan;
  bool subtract_ = false;
  dic::Roi roi_;
  // Copies of what is shown (the project may replace its results while a repaint is pending).
  bool has_results_ = false;
  dic::FrameResult results_;
  std::vector<TemplateRect> templates_;
  std::vector<dic::NamedRoi> named_;
  std::vector<bool> named_selected_;
  bool named_all_ = true;
  std::vector<Track> tracks_;
  int track_frame_ = 0;
  MapStyle style_;
  int step_ = 8;
  io::ImageScale scale_units_;
  double time_s_ = qQNaN();
  bool scale_bar_ = true, time_stamp_ = true;
  QPointF cursor_mark_{qQNaN(), qQNaN()}, probe_mark_{qQNaN(), qQNaN()};
  QLineF profile_line_;
  // Interaction state.
  bool dragging_ = false;
  QPointF press_widget_, press_image_, current_image_;
  std::vector<dic::Point2> polygon_;
  int selected_ = -1;     // Edit tool: the selected ROI shape
  int handle_ = -1;       // -1: moving; 0..3: the corner being dragged
  dic::RoiShape edited_;  // the selected shape as being edited
};

}  // namespace xcorr::ui
