// The Tracking tab of the Analysis dock: what tracking does, its sub-pixel method and accuracy,
// Run and Cancel. Templates are drawn with the Template tool on the reference frame (MainWindow
// keeps them in the project).
#pragma once

#include <QWidget>

#include "core/correlation.hpp"
#include "core/peak.hpp"

class QComboBox;
class QPushButton;

namespace xcorr::ui {

class TrackingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrackingPanel(QWidget* parent = nullptr);
  SubpixelMethod subpixel() const;  // the chosen refinement
  Accuracy accuracy() const;        // which correlation variants auto may pick
  void set_run_enabled(bool on);    // off while a run is going
  // The choices as remembered between starts: "subpixel accuracy" ("quadratic2d exact"); an
  // unknown word leaves its choice as it is.
  QString parameters() const;
  void set_parameters(const QString& text);

 signals:
  void run_requested();
  void cancel_requested();

 private:
  QComboBox* subpixel_;
  QComboBox* accuracy_;
  QPushButton* run_;
};

}  // namespace xcorr::ui
