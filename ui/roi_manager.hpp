// The ROI Manager dock: named shapes kept with the project, as ImageJ's ROI Manager keeps them.
// Add (Ctrl+T) keeps the last shape drawn with the Rectangle, Ellipse or Polygon tool; Open reads
// ImageJ .roi and .zip files (core/imagej/); Save writes the .zip ImageJ and Fiji open (the
// selected shapes, or all). The selected shapes become the DIC region (Use as region, Subtract
// from region) or tracking templates (their bounding boxes); names are edited in place; Show all
// draws every shape with its name on the image, the selected ones highlighted. The window owns
// the shapes (and undoes their changes); this widget shows them and asks.
#pragma once

#include <QWidget>
#include <vector>

#include "core/dic/roi.hpp"

class QCheckBox;
class QPushButton;
class QTableWidget;

namespace xcorr::ui {

class RoiManager : public QWidget {
  Q_OBJECT
 public:
  explicit RoiManager(QWidget* parent = nullptr);
  // The shapes to list; the selection is kept for the rows that remain.
  void set_rois(const std::vector<dic::NamedRoi>& rois);
  std::vector<int> selected() const;  // rows, ascending
  void select(const std::vector<int>& rows);
  bool show_all() const;

 signals:
  void add_requested();
  void open_requested();
  void save_requested();
  void delete_requested(const std::vector<int>& rows);
  void rename_requested(int row, const QString& name);
  void use_requested(const std::vector<int>& rows, bool subtract);
  void templates_requested(const std::vector<int>& rows);
  void display_changed();  // the selection or Show all

 private:
  void refresh_buttons();
  QTableWidget* table_;
  QCheckBox* show_all_;
  QPushButton *delete_, *use_, *subtract_, *templates_, *save_;
  bool filling_ = false;
};

}  // namespace xcorr::ui
