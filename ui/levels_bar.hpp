// Display levels of the image view: a histogram of the shown frame (grey values, log counts) with
// the black and white limits as two lines to drag, their values, and Auto (0.5 % / 99.5 %
// percentiles, the default for every newly opened stack). It edits nothing itself: MainWindow
// passes the edits to ImageView.
#pragma once

#include <QWidget>
#include <vector>

#include "core/matrix.hpp"

class QDoubleSpinBox;
class QPushButton;

namespace xcorr::ui {

class Histogram;

class LevelsBar : public QWidget {
  Q_OBJECT
 public:
  explicit LevelsBar(QWidget* parent = nullptr);
  // The frame shown and the levels it is shown with (grey values); automatic: Auto is on.
  void show_frame(MatrixView<const float> frame, double black, double white, bool automatic);
  double black() const;
  double white() const;
  bool automatic() const { return automatic_; }

 signals:
  void levels_edited(double black, double white);  // black < white; Auto goes off
  void auto_requested();

 private:
  void set_values(double black, double white);
  Histogram* histogram_;
  QDoubleSpinBox *black_, *white_;
  QPushButton* auto_;
  bool automatic_ = true;
};

}  // namespace xcorr::ui
