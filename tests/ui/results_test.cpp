// Reading results in the window (docs/gui.md): the data cursor, ZNCC and status maps, colour maps
// and ranges kept per quantity, the line profile with its CSV, the probe's peak, titled plot
// exports, exports enabled only with something to export, and the habits (Esc, Ctrl+Y, the
// Subtract mode shown, short Undo labels, a View entry per dock, play speed). The bundled sample
// (u(x) = k (0.4 + 0.004 (x - 127.5)) px in frame k) under the offscreen platform.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QImage>
#include <QImageReader>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QTest>
#include <QToolBar>
#include <QUndoStack>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/io/image_io.hpp"
#include "tests/support/temp_dir.hpp"
#include "ui/dic_panel.hpp"
#include "ui/image_view.hpp"
#include "ui/main_window.hpp"
#include "ui/results_panel.hpp"

namespace xcorr::ui {
namespace {

class Results : public testing::TempDirTest {
 protected:
  // The sample with its ellipse, DIC at step 12, frame 3 shown.
  void run_sample(MainWindow& w) {
    ASSERT_TRUE(w.open_sample().is_ok());
    dic::DicOptions o = w.dic_panel()->options();
    o.step = 12;
    w.dic_panel()->set_options(o);
    QSignalSpy finished(&w, &MainWindow::run_finished);
    ASSERT_TRUE(w.start_dic());
    for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
    ASSERT_EQ(finished.count(), 1);
    ASSERT_TRUE(w.has_results());
    w.show_frame(3);
  }
  // The tracking sample with three templates (kBoxes), tracked; the window shown.
  static constexpr TemplateRect kBoxes[] = {{96, 96, 64, 64}, {20, 150, 40, 40}, {170, 30, 50, 40}};
  void track_three_templates(MainWindow& w) {
    w.show();
    ASSERT_TRUE(
        w.open_stack(QString(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif").is_ok());
    for (const TemplateRect& r : kBoxes) w.add_template(r);
    QSignalSpy finished(&w, &MainWindow::run_finished);
    ASSERT_TRUE(w.start_tracking());
    for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
    ASSERT_EQ(w.tracks().size(), 3u);
  }
  // The window at 1400 x 900 with the sample's results (run_sample).
  void show_sample_results(MainWindow& w) {
    w.resize(1400, 900);
    w.show();
    run_sample(w);
  }
  ResultsPanel* panel(MainWindow& w) { return w.findChild<ResultsPanel*>(); }
  QAction* action(MainWindow& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text() == text) return a;
    return nullptr;
  }
};

TEST_F(Results, TheDataCursorReadsTheNearestPoint) {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  QAction* export_csv = action(w, "&Export displacements (CSV)...");
  ASSERT_NE(export_csv, nullptr);
  EXPECT_FALSE(export_csv->isEnabled()) << "nothing to export yet";
  ASSERT_NO_FATAL_FAILURE(run_sample(w));
  EXPECT_TRUE(export_csv->isEnabled());
  const dic::FrameResult& f3 = w.results()->frames[2];
  // The point nearest to (130, 125): the grid point at (127 or 139, 127 or 115) on step 12.
  const QString text = w.point_readout(130, 125);
  const dic::PointResult* nearest = nullptr;
  double best = 1e9;
  for (const auto& p : f3.points) {
    const double d = std::hypot(p.x - 130, p.y - 125);
    if (d < best) best = d, nearest = &p;
  }
  ASSERT_NE(nearest, nullptr);
  EXPECT_TRUE(text.contains(QString("u %1 px").arg(nearest->u, 0, 'f', 3))) << text.toStdString();
  EXPECT_TRUE(text.contains(QString("ZNCC %1").arg(nearest->zncc, 0, 'f', 4)))
      << text.toStdString();
  EXPECT_TRUE(text.contains("converged"));
  EXPECT_EQ(panel(w)->cursor_text(), text);
  // Hovering the image does the same.
  const QPointF at = w.view()->widget_position(QPointF(nearest->x, nearest->y));
  QTest::mouseMove(w.view(), at.toPoint());
  EXPECT_TRUE(panel(w)->cursor_text().contains(
      QString("x %1, y %2").arg(nearest->x, 0, 'f', 1).arg(nearest->y, 0, 'f', 1)))
      << panel(w)->cursor_text().toStdString();
  EXPECT_TRUE(w.point_readout(-100, -100).isEmpty()) << "far outside the grid: nothing";
}

TEST_F(Results, ZnccAndStatusMapsAndRangesKeptPerQuantity) {
  MainWindow w;
  w.show();
  ASSERT_NO_FATAL_FAILURE(run_sample(w));
  ResultsPanel* p = panel(w);
  EXPECT_EQ(p->style().field, ResultField::u);
  EXPECT_EQ(p->style().map, ColourMap::diverging) << "signed: centred on 0";
  const ColourRange u = range_in_use(p->style().range, w.results()->frames[2].points,
                                     ResultField::u, ColourMap::diverging);
  EXPECT_DOUBLE_EQ(u.lo, -u.hi);
  p->set_range(0.5, 1.5);
  p->set_field(ResultField::zncc);
  EXPECT_EQ(p->style().map, ColourMap::viridis);
  EXPECT_TRUE(p->style().range.automatic) << "ZNCC has its own range";
  const ColourRange z = range_in_use(p->style().range, w.results()->frames[2].points,
                                     ResultField::zncc, ColourMap::viridis);
  EXPECT_GT(z.lo, 0.5);
  EXPECT_LE(z.hi, 1.0);
  p->set_colour_map(ColourMap::cividis);
  p->set_field(ResultField::status);
  EXPECT_EQ(field_value(w.results()->frames[2].points[0], ResultField::status),
            static_cast<double>(w.results()->frames[2].points[0].status));
  p->set_field(ResultField::u);
  EXPECT_FALSE(p->style().range.automatic) << "u keeps 0.5..1.5";
  EXPECT_EQ(p->style().range.lo, 0.5);
  p->set_auto_range();
  EXPECT_TRUE(p->style().range.automatic);
  p->set_field(ResultField::zncc);
  EXPECT_EQ(p->style().map, ColourMap::cividis) << "the map is kept per quantity";
  EXPECT_EQ(colour_at(ColourMap::viridis, 0).name(),
            QColor::fromRgbF(0.267f, 0.005f, 0.329f).name());
  EXPECT_EQ(colour_at(ColourMap::diverging, 0.5).name(),
            QColor::fromRgbF(0.969f, 0.969f, 0.969f).name());
  p->set_vectors(false, 2, Qt::red, 0.5);
  EXPECT_FALSE(p->style().vectors);
  EXPECT_EQ(p->style().vector_colour, QColor(Qt::red));
}

// Draw a line with the Line tool: u along it rises as the sample's u(x); the CSV holds it.
// The map keeps its size and its axes on the grid through every redraw (issue 42: every other
// redraw collapsed it to a thumbnail with x running about -400..750): the quantity changed
// back and forth, the colour map, the frame.
TEST_F(Results, TheMapKeepsItsSizeAndAxesThroughRedraws) {
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  ASSERT_NO_FATAL_FAILURE(run_sample(w));
  auto* plot = panel(w)->findChild<QCustomPlot*>("map_plot");
  ASSERT_NE(plot, nullptr);
  const auto& pts = w.results()->frames[2].points;
  const double x0 = pts.front().x, x1 = pts.back().x;
  QApplication::processEvents();
  const QSize first = plot->size();
  const QCPRange first_x = plot->xAxis->range();
  auto check = [&](const char* step) {
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
    const QCPRange x = plot->xAxis->range();
    // The colour bar's labels differ in width by quantity: the height follows within a few px.
    EXPECT_EQ(plot->width(), first.width()) << step;
    EXPECT_NEAR(plot->height(), first.height(), 0.15 * first.height()) << step;
    EXPECT_NEAR(x.lower, first_x.lower, 1e-6) << step;
    EXPECT_NEAR(x.upper, first_x.upper, 1e-6) << step;
    EXPECT_LE(x.lower, x0) << step;
    EXPECT_GE(x.upper, x1) << step;
    EXPECT_LT(x.size(), 1.5 * (x1 - x0 + 12)) << step << ": " << x.lower << ".." << x.upper;
  };
  check("first");
  for (const ResultField f :
       {ResultField::exx, ResultField::u, ResultField::v, ResultField::magnitude, ResultField::u}) {
    panel(w)->set_field(f);
    check(to_string(f).c_str());
  }
  panel(w)->set_colour_map(ColourMap::viridis);
  check("colour map");
  for (const int k : {4, 5, 2, 3}) {
    w.show_frame(k);
    check("frame");
  }
}

// The data cursor reads the same place in the frame shown (issue 42: frame 5 shown, readout
// "frame 1"), and nothing on the reference, which has no results.
TEST_F(Results, TheCursorReadoutFollowsTheFrame) {
  MainWindow w;
  ASSERT_NO_FATAL_FAILURE(show_sample_results(w));
  w.show_frame(1);
  ASSERT_TRUE(w.point_readout(130, 125).startsWith("frame 1: "))
      << w.point_readout(130, 125).toStdString();
  w.show_frame(5);
  const QString text = panel(w)->cursor_text();
  ASSERT_TRUE(text.startsWith("frame 5: ")) << text.toStdString();
  const auto& f5 = w.results()->frames[4].points;
  const long k = nearest_point(f5, w.results()->grid.cols, 12, 130, 125);
  ASSERT_GE(k, 0);
  EXPECT_TRUE(text.contains(QString("u %1 px").arg(f5[static_cast<std::size_t>(k)].u, 0, 'f', 3)))
      << text.toStdString();
  w.show_frame(0);
  EXPECT_EQ(panel(w)->cursor_text(), QString());
}

// Opening another stack leaves nothing of the last one (issue 42: the old drift plot, its
// caption, the old map and "ran on cpu" stayed): every tab is empty with its hint, the engine
// line is gone, and playing stops. Play turns into Pause while it plays.
TEST_F(Results, AnotherStackLeavesNothingOfTheLast) {
  MainWindow w;
  ASSERT_NO_FATAL_FAILURE(show_sample_results(w));
  ResultsPanel* p = panel(w);
  const QString cursor_hint = "Hover over the map or the image for a point's values";
  ASSERT_TRUE(w.profile_along(QLineF(25, 160, 230, 100)).is_ok());
  ASSERT_TRUE(w.probe_surface(128, 128).is_ok());
  (void)w.point_readout(130, 125);
  reg::RegisterJob j;
  j.stack = std::string(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif";
  j.drift = path("drift.csv");
  QSignalSpy finished(&w, &MainWindow::run_finished);
  ASSERT_TRUE(w.start_registration(j));
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  ASSERT_EQ(finished.count(), 1);
  ASSERT_TRUE(p->drift_text().contains("frames registered")) << p->drift_text().toStdString();
  auto* engine = w.findChild<QLabel*>("engine");
  ASSERT_NE(engine, nullptr);
  EXPECT_TRUE(engine->text().startsWith("ran on ")) << engine->text().toStdString();
  auto* play = w.findChild<QPushButton*>("play");
  ASSERT_NE(play, nullptr);
  EXPECT_EQ(play->text(), "Play");
  play->click();
  EXPECT_EQ(play->text(), "Pause");

  ASSERT_TRUE(w.open_stack(QString::fromStdString(j.stack)).is_ok());
  EXPECT_FALSE(play->isChecked());
  EXPECT_EQ(play->text(), "Play");
  EXPECT_EQ(engine->text(), QString());
  EXPECT_EQ(p->cursor_text(), cursor_hint);
  EXPECT_EQ(p->drift_text(), "Analysis > Register stack measures the drift");
  EXPECT_EQ(p->surface_text(), "Probe tool: click the image");
  EXPECT_FALSE(p->has_profile());
  EXPECT_EQ(p->currentIndex(), 0);
  for (int tab = 0; tab < p->count(); ++tab) {
    p->setCurrentIndex(tab);
    EXPECT_FALSE(p->plot_has_data()) << "tab " << tab;
  }
  for (QCustomPlot* plot : p->findChildren<QCustomPlot*>()) {
    EXPECT_EQ(plot->graphCount(), 0) << plot->yAxis->label().toStdString();
  }
}

// Each template wears its track's colour on the image and in the Trajectories plot (issue 42:
// every box was orange while the plot gave each track its own colour).
TEST_F(Results, TemplatesWearTheirTracksColours) {
  MainWindow w;
  w.resize(1400, 900);
  ASSERT_NO_FATAL_FAILURE(track_three_templates(w));
  const TemplateRect* boxes = kBoxes;
  w.show_frame(3);
  QApplication::processEvents();
  const QImage shot = w.view()->grab().toImage();
  QCustomPlot* tracks = nullptr;
  for (QCustomPlot* p : panel(w)->findChildren<QCustomPlot*>())
    if (p->yAxis->label().startsWith("displacement (px): dx solid")) tracks = p;
  ASSERT_NE(tracks, nullptr);
  ASSERT_EQ(tracks->graphCount(), 6);
  for (std::size_t t = 0; t < 3; ++t) {
    const QColor want = series_colour(t);
    EXPECT_EQ(tracks->graph(static_cast<int>(2 * t))->pen().color(), want) << "track " << t;
    // The middle of the box's top edge where the track puts it in frame 3.
    const QPointF at = w.view()->widget_position(
        QPointF(w.tracks()[t].x[3] - 0.5 + boxes[t].width / 2.0, w.tracks()[t].y[3] - 0.5));
    int best = 1 << 30;
    for (int dy = -3; dy <= 3; ++dy)
      for (int dx = -3; dx <= 3; ++dx) {
        const QColor c =
            shot.pixelColor(static_cast<int>(at.x()) + dx, static_cast<int>(at.y()) + dy);
        best = std::min(best, std::abs(c.red() - want.red()) + std::abs(c.green() - want.green()) +
                                  std::abs(c.blue() - want.blue()));
      }
    EXPECT_LE(best, 24) << "template " << t << " is not drawn in its track's colour";
  }
}

// Exports and saves confirm in the status bar what they wrote and where (issue 42: no
// confirmation); a failed one does not.
TEST_F(Results, ExportsAndSavesSayWhatTheyWrote) {
  MainWindow w;
  ASSERT_NO_FATAL_FAILURE(show_sample_results(w));
  const auto said = [&] { return w.statusBar()->currentMessage().toStdString(); };
  const QString csv = QString::fromStdString(path("dic.csv"));
  ASSERT_TRUE(w.export_csv(csv).is_ok());
  EXPECT_EQ(said(), "Exported the displacements of 5 frame(s) to " + csv.toStdString());
  const QString frame = QString::fromStdString(path("frame.csv"));
  ASSERT_TRUE(w.export_frame_csv(frame, 3).is_ok());
  EXPECT_EQ(said(), "Exported frame 3 to " + frame.toStdString());
  const QString plot = QString::fromStdString(path("plot.png"));
  ASSERT_TRUE(w.export_plot(plot, 800, 600).is_ok());
  EXPECT_EQ(said(), "Exported the plot (800 x 600 px) to " + plot.toStdString());
  const QString project = QString::fromStdString(path("project.json"));
  ASSERT_TRUE(w.save_project(project).is_ok());
  EXPECT_EQ(said(), "Saved the project and its results: " + project.toStdString());
  w.statusBar()->clearMessage();
  EXPECT_FALSE(w.export_csv(QString::fromStdString(path("missing/dic.csv"))).is_ok());
  EXPECT_EQ(said(), "");
}

// Lock keeps one colour range on every frame (the data's over all frames; issue 42: the range
// rescaled every frame while playing), and the overlay uses it too; the colour map and range of
// each quantity travel with the project.
TEST_F(Results, TheColourRangeLocksAcrossFramesAndTravelsWithTheProject) {
  MainWindow w;
  ASSERT_NO_FATAL_FAILURE(show_sample_results(w));
  ResultsPanel* p = panel(w);
  auto* plot = p->findChild<QCustomPlot*>("map_plot");
  ASSERT_NE(plot, nullptr);
  auto* map = qobject_cast<QCPColorMap*>(plot->plottable(0));
  ASSERT_NE(map, nullptr);
  p->set_field(ResultField::u);
  w.show_frame(1);
  const QCPRange auto1 = map->dataRange();
  w.show_frame(5);
  const QCPRange auto5 = map->dataRange();
  EXPECT_GT(auto5.upper, 2 * auto1.upper) << "auto: each frame its own range";
  auto* lock = p->findChild<QAbstractButton*>("lock_range");
  ASSERT_NE(lock, nullptr);
  lock->click();
  const ColourRange all = range_over_frames(w.results()->frames, ResultField::u, p->style().map);
  for (const int k : {1, 3, 5}) {
    w.show_frame(k);
    EXPECT_DOUBLE_EQ(map->dataRange().lower, all.lo) << "frame " << k;
    EXPECT_DOUBLE_EQ(map->dataRange().upper, all.hi) << "frame " << k;
    EXPECT_FALSE(p->shown_style().range.automatic);
    EXPECT_DOUBLE_EQ(p->shown_style().range.hi, all.hi) << "the overlay's range";
  }
  EXPECT_DOUBLE_EQ(all.hi, auto5.upper) << "frame 5 holds the largest u";
  // Per quantity: zncc in viridis, exx fixed; saved and reopened.
  p->set_field(ResultField::zncc);
  p->set_colour_map(ColourMap::viridis);
  p->set_field(ResultField::exx);
  p->set_range(-0.01, 0.02);
  const QString project = QString::fromStdString(path("project.json"));
  ASSERT_TRUE(w.save_project(project).is_ok());
  MainWindow again;
  again.show();
  ASSERT_TRUE(again.open_project(project).is_ok());
  ResultsPanel* q = panel(again);
  q->set_field(ResultField::u);
  EXPECT_TRUE(q->style().range.automatic && q->style().range.locked);
  q->set_field(ResultField::zncc);
  EXPECT_EQ(q->style().map, ColourMap::viridis);
  q->set_field(ResultField::exx);
  EXPECT_FALSE(q->style().range.automatic);
  EXPECT_DOUBLE_EQ(q->style().range.lo, -0.01);
  EXPECT_DOUBLE_EQ(q->style().range.hi, 0.02);
}

// The view exports as a figure (PNG, TIFF) with the map overlay, vectors and scale bar, and as a
// movie of every frame (an animated GIF that loops at the play speed) (issue 42).
TEST_F(Results, TheViewExportsAsAFigureAndAMovie) {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  dic::DicOptions o = w.dic_panel()->options();
  o.pixel_size = "0.5um";
  o.frame_interval = "2s";
  w.dic_panel()->set_options(o);
  ASSERT_NO_FATAL_FAILURE(run_sample(w));
  w.show_frame(5);
  const QString png = QString::fromStdString(path("figure.png"));
  ASSERT_TRUE(w.export_view(png, 800).is_ok());
  EXPECT_EQ(w.statusBar()->currentMessage(), "Exported the view (800 x 800 px) to " + png);
  QImage figure(png);
  ASSERT_EQ(figure.size(), QSize(800, 800));
  long white = 0, coloured = 0;
  for (int y = 0; y < 800; ++y)
    for (int x = 0; x < 800; ++x) {
      const QRgb p = figure.pixel(x, y);
      white += p == qRgb(255, 255, 255);
      coloured += std::abs(qRed(p) - qBlue(p)) > 40;  // the diverging map over grey speckle
    }
  EXPECT_GT(white, 300) << "the scale bar and its label";
  EXPECT_GT(coloured, 800 * 800 / 10) << "the map overlay";
  const QString tif = QString::fromStdString(path("figure.tif"));
  ASSERT_TRUE(w.export_view(tif, 300).is_ok());
  const auto read = io::read_image_stack(tif.toStdString(), io::Channel::red);
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  EXPECT_EQ(read.value().frames.rows(), 300);
  EXPECT_EQ(read.value().frames.cols(), 300);
  EXPECT_FALSE(w.export_view(QString::fromStdString(path("figure.bmp")), 300).is_ok());
  const QString gif = QString::fromStdString(path("movie.gif"));
  ASSERT_TRUE(w.export_movie(gif, 200, 5).is_ok());
  EXPECT_EQ(w.statusBar()->currentMessage(),
            "Exported a movie of 6 frames (200 x 200 px, 5 fps, GIF) to " + gif);
  QImageReader movie(gif);
  ASSERT_TRUE(movie.supportsAnimation());
  EXPECT_EQ(movie.imageCount(), 6);
  EXPECT_EQ(movie.size(), QSize(200, 200));
  EXPECT_EQ(movie.loopCount(), -1) << "loops forever";
  ASSERT_FALSE(movie.read().isNull());
  EXPECT_EQ(movie.nextImageDelay(), 200);
  if (const char* shots = std::getenv("XCORR_SCREENSHOTS")) {  // docs/screenshots
    EXPECT_TRUE(w.export_view(QString(shots) + "/figure-map-vectors-scalebar.png", 1000).is_ok());
    EXPECT_TRUE(w.export_movie(QString(shots) + "/sample-movie.gif", 256, 5).is_ok());
  }
}

// The Trajectories tab has a table of the tracks beside the plot (issue 42): a row per track in
// its colour with its net displacement, path and mean speed; the plot shows displacement,
// distance from the start, speed or MSD; selecting rows highlights them; Delete removes tracks
// with their templates, and Undo brings them back. With XCORR_SCREENSHOTS the window is saved as
// track-table.png.
TEST_F(Results, TheTrackTableSitsBesideThePlotWithSpeedAndMsd) {
  MainWindow w;
  w.resize(1600, 1000);
  ASSERT_NO_FATAL_FAILURE(track_three_templates(w));
  auto* table = panel(w)->findChild<QTableWidget*>("track_table");
  auto* plot = panel(w)->findChild<QCustomPlot*>("tracks_plot");
  auto* what = panel(w)->findChild<QComboBox*>("track_quantity");
  ASSERT_TRUE(table && plot && what);
  ASSERT_EQ(table->rowCount(), 3);
  // The sample moves every template by (-0.35, 0.6) px a frame: 5 frames, net 3.47 px.
  const double step = std::hypot(0.35, 0.6);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(table->item(r, 0)->background().color(), series_colour(static_cast<std::size_t>(r)));
    EXPECT_NEAR(table->item(r, 2)->text().toDouble(), 5 * step, 0.1) << "net, row " << r;
    EXPECT_NEAR(table->item(r, 3)->text().toDouble(), 5 * step, 0.2) << "path, row " << r;
    EXPECT_NEAR(table->item(r, 4)->text().toDouble(), step, 0.05) << "px/frame, row " << r;
  }
  EXPECT_TRUE(table->horizontalHeaderItem(4)->text().contains("px/frame"));
  what->setCurrentIndex(2);  // speed
  EXPECT_EQ(plot->yAxis->label(), "speed (px/frame)");
  ASSERT_EQ(plot->graphCount(), 3);
  EXPECT_NEAR(plot->graph(0)->data()->at(3)->value, step, 0.05);
  what->setCurrentIndex(3);  // MSD: (k step)^2 for a steady drift
  EXPECT_EQ(plot->xAxis->label(), "lag (frames)");
  EXPECT_EQ(plot->yAxis->label(), QString::fromUtf8("MSD (px\u00b2)"));
  ASSERT_EQ(plot->graph(1)->data()->size(), 5);
  EXPECT_NEAR(plot->graph(1)->data()->at(1)->value, 4 * step * step, 0.1);
  table->selectRow(1);
  EXPECT_EQ(plot->graph(1)->pen().width(), 3) << "the selected track stands out";
  EXPECT_LT(plot->graph(0)->pen().color().alpha(), 255) << "the others fade";
  if (const char* shots = std::getenv("XCORR_SCREENSHOTS")) {
    w.show_frame(5);
    panel(w)->setCurrentIndex(2);
    QApplication::processEvents();
    EXPECT_TRUE(w.grab().save(QString(shots) + "/track-table.png"));
  }
  auto* remove = panel(w)->findChild<QPushButton*>("delete_tracks");
  ASSERT_TRUE(remove != nullptr && remove->isEnabled());
  remove->click();
  ASSERT_EQ(w.tracks().size(), 2u);
  EXPECT_EQ(w.templates().size(), 2u);
  EXPECT_EQ(w.templates()[1].x, 170) << "the second template is gone";
  EXPECT_EQ(table->rowCount(), 2);
  w.undo_stack()->undo();
  EXPECT_EQ(w.tracks().size(), 3u);
  EXPECT_EQ(table->rowCount(), 3);
}

TEST_F(Results, TheLineProfileFollowsUAndExportsCsv) {
  MainWindow w;
  ASSERT_NO_FATAL_FAILURE(show_sample_results(w));
  w.view()->set_tool(Tool::line);
  const QPoint a = w.view()->widget_position({40, 127}).toPoint();
  const QPoint b = w.view()->widget_position({215, 127}).toPoint();
  QTest::mousePress(w.view(), Qt::LeftButton, {}, a);
  QTest::mouseMove(w.view(), b);
  QTest::mouseRelease(w.view(), Qt::LeftButton, {}, b);
  ResultsPanel* p = panel(w);
  ASSERT_TRUE(p->has_profile());
  ASSERT_TRUE(p->export_profile_csv(QString::fromStdString(path("profile.csv"))).is_ok());
  std::ifstream f(path("profile.csv"));
  std::string line;
  std::vector<std::pair<double, double>> xu;  // (x, u) of converged samples
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#' || line[0] == 's') continue;
    std::stringstream row(line);
    std::string cell[10];
    for (auto& c : cell) std::getline(row, c, ',');
    if (cell[9] == "converged") xu.push_back({std::stod(cell[1]), std::stod(cell[3])});
  }
  ASSERT_GE(xu.size(), 10u);
  const double slope =
      (xu.back().second - xu.front().second) / (xu.back().first - xu.front().first);
  EXPECT_NEAR(slope, 3 * 0.004, 0.002) << "u(x) of frame 3";
  // The reference has no results: the line gives its intensity profile (issue 42: the Line tool
  // profiled DIC quantities only), plotted and exported with an intensity column.
  w.show_frame(0);
  ASSERT_TRUE(w.profile_along(QLineF(40, 127, 215, 127)).is_ok());
  QCustomPlot* plot = nullptr;
  for (QCustomPlot* candidate : panel(w)->findChildren<QCustomPlot*>())
    if (candidate->yAxis->label() == "intensity (grey value, as stored)") plot = candidate;
  ASSERT_NE(plot, nullptr);
  EXPECT_EQ(plot->graphCount(), 1);
  const std::string csv = path("intensity.csv");
  ASSERT_TRUE(panel(w)->export_profile_csv(QString::fromStdString(csv)).is_ok());
  const auto reference =
      io::read_image_stack(std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif");
  ASSERT_TRUE(reference.is_ok());
  const MatrixView<const float> ref = reference.value().frames[0];
  std::ifstream in(csv);
  int rows = 0, exact = 0;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.rfind("s_px,", 0) == 0) header = line.ends_with(",status,intensity");
    if (line.empty() || line[0] == '#' || line[0] == 's') continue;
    std::stringstream row(line);
    std::string cell[11];
    for (auto& c : cell) std::getline(row, c, ',');
    ++rows;
    EXPECT_EQ(cell[3], "nan") << "no u on the reference";
    const double x = std::stod(cell[1]), value = std::stod(cell[10]);
    if (x == std::floor(x)) {  // on a pixel centre: the pixel itself
      EXPECT_EQ(value, ref(127, static_cast<Index>(x))) << line;
      ++exact;
    } else {  // between two: their mean
      const auto c = static_cast<Index>(x);
      EXPECT_NEAR(value, 0.5 * (ref(127, c) + ref(127, c + 1)), 1e-3) << line;
    }
  }
  EXPECT_TRUE(header);
  EXPECT_EQ(rows, 351) << "every half pixel over 175 px";
  EXPECT_EQ(exact, 176);
}

TEST_F(Results, TheProbeShowsItsPeakAndPlotsExportWithTitleAndSize) {
  MainWindow w;
  w.show();
  ASSERT_NO_FATAL_FAILURE(run_sample(w));
  auto surface = w.probe_surface(127, 127);
  ASSERT_TRUE(surface.is_ok());
  // Frame 3 at the centre moves by (1.2, 0.75) px: the integer peak is at (1, 1).
  EXPECT_TRUE(panel(w)->surface_text().contains("peak at u = 1, v = 1 px"))
      << panel(w)->surface_text().toStdString();
  ASSERT_TRUE(w.export_plot(QString::fromStdString(path("surface.png")), 800, 600).is_ok());
  QImage shot(QString::fromStdString(path("surface.png")));
  EXPECT_EQ(shot.width(), 800);
  EXPECT_EQ(shot.height(), 600);
  panel(w)->setCurrentIndex(0);
  ASSERT_TRUE(w.export_plot(QString::fromStdString(path("map.png")), 1200, 900).is_ok());
  EXPECT_EQ(QImage(QString::fromStdString(path("map.png"))).width(), 1200);
}

TEST_F(Results, HabitsEscRedoSubtractModeUndoLabelDocksPlaySpeed) {
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  ImageView* v = w.view();
  // Esc drops a polygon being drawn.
  v->set_tool(Tool::polygon);
  v->setFocus();
  QTest::mouseClick(v, Qt::LeftButton, {}, v->widget_position({50, 50}).toPoint());
  QTest::mouseClick(v, Qt::LeftButton, {}, v->widget_position({90, 50}).toPoint());
  QTest::keyClick(v, Qt::Key_Escape);
  QTest::mouseClick(v, Qt::LeftButton, {}, v->widget_position({90, 90}).toPoint());
  QTest::mouseDClick(v, Qt::LeftButton, {}, v->widget_position({90, 90}).toPoint());
  EXPECT_EQ(w.roi().shapes.size(), 1u) << "the dropped polygon's points are gone";
  // Ctrl+Y redoes.
  w.add_roi_shape(dic::parse_roi_shape("rect:10,10,30,30").value());
  w.undo_stack()->undo();
  EXPECT_EQ(w.roi().shapes.size(), 1u);
  w.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
  QTest::keyClick(v, Qt::Key_Y, Qt::ControlModifier);
  EXPECT_EQ(w.roi().shapes.size(), 2u);
  // Short undo texts; the toolbar's Undo keeps its label.
  EXPECT_EQ(w.undo_stack()->undoText().toStdString(), "Add rectangle");
  bool fixed_undo = false;
  for (QToolBar* t : w.findChildren<QToolBar*>())
    for (QAction* a : t->actions()) fixed_undo = fixed_undo || a->text() == "Undo";
  EXPECT_TRUE(fixed_undo);
  // The Subtract mode shows in the status bar.
  QAction* subtract = w.findChild<QAction*>("subtract");
  ASSERT_NE(subtract, nullptr);
  subtract->setChecked(true);
  EXPECT_TRUE(w.findChild<QLabel*>("mode")->text().contains("SUBTRACT"));
  subtract->setChecked(false);
  EXPECT_FALSE(w.findChild<QLabel*>("mode")->text().contains("SUBTRACT"));
  // Every dock has a View entry that brings it back.
  for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
    d->hide();
    d->toggleViewAction()->trigger();
    EXPECT_TRUE(d->isVisible()) << d->windowTitle().toStdString();
  }
  // The tracking method has a tooltip too (the DIC options': main_window_test).
  int tracking_combos = 0;
  for (QComboBox* c : w.findChildren<QComboBox*>()) {
    if (c->findText("quadratic2d") < 0) continue;
    ++tracking_combos;
    EXPECT_FALSE(c->toolTip().isEmpty());
  }
  EXPECT_EQ(tracking_combos, 1);
  // Play speed.
  QSpinBox* fps = nullptr;
  for (QSpinBox* s : w.findChildren<QSpinBox*>())
    if (s->suffix() == " fps") fps = s;
  ASSERT_NE(fps, nullptr);
  fps->setValue(20);
  EXPECT_EQ(fps->value(), 20);
}

}  // namespace
}  // namespace xcorr::ui

namespace xcorr::ui {
namespace {

// The window works at 1024 x 700: its minimum size fits, with results shown and with the
// Profiling panel open (it scrolls instead of making the window taller).
TEST(SmallScreen, TheWindowFits1024x700) {
  MainWindow w;
  w.resize(1024, 700);
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  QSignalSpy finished(&w, &MainWindow::run_finished);
  ASSERT_TRUE(w.start_dic());
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  w.show_frame(5);
  QTest::qWait(50);
  EXPECT_LE(w.minimumSizeHint().width(), 1024);
  EXPECT_LE(w.minimumSizeHint().height(), 700);

  EXPECT_LE(w.height(), 700);
  w.show_profile_panel();
  QTest::qWait(50);
  EXPECT_LE(w.minimumSizeHint().height(), 700) << "the Profiling panel scrolls";
  EXPECT_LE(w.height(), 700);
  EXPECT_GE(w.view()->height(), 150) << "the image stays usable";
}

}  // namespace
}  // namespace xcorr::ui
