// The ROI Manager dock in the real window: ImageJ's own ROI Manager .zip (tests/data/imagej_roi,
// saved by ImageJ 1.53t) opens with its names, the line in it named as skipped; the selected
// shapes become the DIC region, are cut out of it, or become templates; names are edited in the
// table; Delete, rename and Use undo; Save writes a .zip of the selection (never over the stack);
// the shapes come back with the project; Show all draws them on the image. With
// XCORR_SCREENSHOTS=FOLDER the window is saved as FOLDER/roi-manager.png.
#include "ui/roi_manager.hpp"

#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QPushButton>
#include <QStatusBar>
#include <QTableWidget>
#include <QUndoStack>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "core/imagej/imagej_roi.hpp"
#include "tests/support/temp_dir.hpp"
#include "ui/image_view.hpp"
#include "ui/main_window.hpp"

namespace xcorr::ui {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(XCORR_SOURCE_DIR) / "tests/data/imagej_roi";

class RoiManagerDock : public testing::TempDirTest {};

std::vector<std::string> names(const MainWindow& w) {
  std::vector<std::string> out;
  for (const dic::NamedRoi& r : w.named_rois()) out.push_back(r.name);
  return out;
}

// Pixels of the figure in the ROI Manager's cyan (the sample's grey never is).
long cyan(const QImage& figure) {
  long n = 0;
  for (int y = 0; y < figure.height(); ++y)
    for (int x = 0; x < figure.width(); ++x) {
      const QColor c = figure.pixelColor(x, y);
      n += c.red() < 90 && c.green() > 170 && c.blue() > 200;
    }
  return n;
}

TEST_F(RoiManagerDock, ImageJRoisOpenAndBecomeTheRegionTemplatesAndAZipAgain) {
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  RoiManager* manager = w.roi_manager();
  ASSERT_NE(manager, nullptr);
  auto* table = manager->findChild<QTableWidget*>("roi_table");
  ASSERT_NE(table, nullptr);

  // ImageJ's ROI Manager file: six regions by name, the line skipped and named.
  ASSERT_TRUE(w.import_rois(QString::fromStdString((kData / "manager.zip").string())).is_ok());
  const std::vector<std::string> expected = {"cell 1",           "oval",
                                             "polygon_subpixel", "ellipse_rotated",
                                             "composite_hole",   "zona \xC2\xB5m (\xC3\xBC)"};
  EXPECT_EQ(names(w), expected);
  EXPECT_EQ(table->rowCount(), 6);
  EXPECT_EQ(table->item(0, 1)->text(), "rectangle");
  EXPECT_EQ(table->item(0, 2)->text(), "12.0 x 9.0 px at (5.0, 6.0)");
  EXPECT_TRUE(w.statusBar()->currentMessage().contains(
      "skipped 1 that are not regions: line: an ImageJ straight line is not a region"))
      << w.statusBar()->currentMessage().toStdString();
  // A file without any region: one line naming why.
  const Status line = w.import_rois(QString::fromStdString((kData / "line.roi").string()));
  EXPECT_EQ(line.message(), "ImageJ ROI 'line': an ImageJ straight line is not a region");

  // Use as region: the selected shapes replace the DIC region; Subtract cuts one out; Undo.
  manager->select({0, 1});
  manager->findChild<QPushButton*>("roi_use")->click();
  ASSERT_EQ(w.roi().shapes.size(), 2u);
  EXPECT_EQ(w.roi().shapes[0], w.named_rois()[0].shape);
  EXPECT_EQ(w.roi().shapes[1], w.named_rois()[1].shape);
  manager->select({2});
  manager->findChild<QPushButton*>("roi_subtract")->click();
  ASSERT_EQ(w.roi().shapes.size(), 3u);
  EXPECT_TRUE(w.roi().shapes[2].subtract);
  w.undo_stack()->undo();
  EXPECT_EQ(w.roi().shapes.size(), 2u);

  // Templates: the rectangle's pixels (ImageJ's makeRectangle(5, 6, 12, 9)).
  manager->select({0});
  manager->findChild<QPushButton*>("roi_templates")->click();
  ASSERT_EQ(w.templates().size(), 1u);
  EXPECT_EQ(w.templates()[0], (TemplateRect{5, 6, 12, 9}));

  // Add (Ctrl+T) keeps the last drawn shape, as a region, with a fresh name.
  dic::Roi drawn = w.roi();
  drawn.shapes.push_back(dic::parse_roi_shape("-ellipse:100,100,20,10").value());
  w.set_roi_for_tests(drawn);
  w.findChild<QAction*>("roi_add_action")->trigger();
  ASSERT_EQ(w.named_rois().size(), 7u);
  EXPECT_EQ(w.named_rois()[6].name, "ROI 7");
  EXPECT_EQ(dic::to_string(w.named_rois()[6].shape), "ellipse:100,100,20,10");

  // Rename in the table; Delete; each undone.
  table->item(0, 0)->setText("nucleus");
  EXPECT_EQ(w.named_rois()[0].name, "nucleus");
  w.undo_stack()->undo();
  EXPECT_EQ(w.named_rois()[0].name, "cell 1");
  EXPECT_EQ(table->item(0, 0)->text(), "cell 1");
  manager->select({1, 3});
  manager->findChild<QPushButton*>("roi_delete")->click();
  EXPECT_EQ(names(w), (std::vector<std::string>{"cell 1", "polygon_subpixel", "composite_hole",
                                                "zona \xC2\xB5m (\xC3\xBC)", "ROI 7"}));
  w.undo_stack()->undo();
  EXPECT_EQ(w.named_rois().size(), 7u);

  // Show all draws every shape on the image; off, only the selected ones.
  {
    ImageView* view = w.findChild<ImageView*>();
    ASSERT_NE(view, nullptr);
    manager->select({});
    const long all = cyan(view->render_figure(256));
    manager->findChild<QCheckBox*>("roi_show_all")->setChecked(false);
    const long none = cyan(view->render_figure(256));
    std::cout << "cyan pixels: " << all << " with Show all, " << none << " without\n";
    EXPECT_GT(all, 100);
    EXPECT_EQ(none, 0);
    manager->findChild<QCheckBox*>("roi_show_all")->setChecked(true);
  }

  // Save: the selection as ImageJ's .zip (read back here); never over the stack.
  manager->select({0, 2, 6});
  ASSERT_TRUE(w.export_rois(QString::fromStdString(path("RoiSet.zip"))).is_ok());
  EXPECT_TRUE(w.statusBar()->currentMessage().startsWith("Saved 3 ROI(s) for ImageJ to"));
  auto back = imagej::read_roi_file(path("RoiSet.zip"));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  ASSERT_EQ(back.value().rois.size(), 3u);
  EXPECT_EQ(back.value().rois[0], w.named_rois()[0]);
  // An ellipse off the pixel edges goes to ImageJ as the outline of its pixels (ImageJ fills
  // ovals within whole pixels): a polygon covering the same pixels.
  EXPECT_EQ(back.value().rois[2].name, "ROI 7");
  EXPECT_EQ(back.value().rois[2].shape.kind, dic::RoiShapeKind::polygon);
  EXPECT_EQ(dic::Roi{{back.value().rois[2].shape}}.render(256, 256),
            dic::Roi{{w.named_rois()[6].shape}}.render(256, 256));
  const std::string stack = std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif";
  const Status over = w.export_rois(QString::fromStdString(stack));
  EXPECT_FALSE(over.is_ok());
  EXPECT_NE(over.message().find("an output is never an input"), std::string::npos)
      << over.message();

  if (const char* shots = std::getenv("XCORR_SCREENSHOTS")) {
    w.findChild<QDockWidget*>("roi_manager_dock")->raise();
    manager->select({0});
    QApplication::processEvents();
    EXPECT_TRUE(w.grab().save(QString(shots) + "/roi-manager.png"));
  }

  // The shapes come back with the project.
  ASSERT_TRUE(w.save_project(QString::fromStdString(path("p.json"))).is_ok());
  MainWindow again;
  ASSERT_TRUE(again.open_project(QString::fromStdString(path("p.json"))).is_ok());
  ASSERT_EQ(again.named_rois().size(), w.named_rois().size());
  for (std::size_t k = 0; k < w.named_rois().size(); ++k) {  // as the file writes them
    EXPECT_EQ(again.named_rois()[k].name, w.named_rois()[k].name);
    EXPECT_EQ(dic::to_string(again.named_rois()[k].shape), dic::to_string(w.named_rois()[k].shape));
  }
  EXPECT_EQ(again.roi_manager()->findChild<QTableWidget*>("roi_table")->rowCount(), 7);
}

}  // namespace
}  // namespace xcorr::ui
