// xcorr-studio's main window under the offscreen platform, driven as a user would through its
// public actions: load the bundled sample, add ROI shapes (undo/redo), run DIC off the GUI thread,
// export CSV and compare it byte for byte with the CLI's output on the same settings; cancel a
// run and check the window stays usable and writes nothing.
#include "ui/main_window.hpp"

#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <QToolBar>
#include <QUndoStack>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/dic/roi.hpp"
#include "core/io/image_io.hpp"
#include "tests/support/option_values.hpp"
#include "tests/support/temp_dir.hpp"
#include "ui/dic_panel.hpp"
#include "ui/tracking_panel.hpp"

namespace xcorr::ui {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool wait_for_run(MainWindow& w, QSignalSpy& finished) {
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  return finished.count() > 0 && !w.running();
}

// Sets the grid step, runs DIC to its end and checks that it finished with results.
void run_dic_with_step(MainWindow& w, int step) {
  dic::DicOptions o = w.dic_panel()->options();
  o.step = step;
  w.dic_panel()->set_options(o);
  QSignalSpy finished(&w, &MainWindow::run_finished);
  ASSERT_TRUE(w.start_dic());
  ASSERT_TRUE(wait_for_run(w, finished));
  ASSERT_TRUE(finished.first().first().toBool());
  ASSERT_TRUE(w.has_results());
}

class Studio : public testing::TempDirTest {};

TEST_F(Studio, RunsDicOnTheSampleAndExportsTheSameCsvAsTheCli) {
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  EXPECT_EQ(w.frame_count(), 6);
  // The sample opens with its ellipse; add and remove a subtracted rectangle through undo/redo.
  ASSERT_EQ(w.roi().shapes.size(), 1u);
  w.add_roi_shape(dic::parse_roi_shape("-rect:110,110,20,20").value());
  EXPECT_EQ(w.roi().shapes.size(), 2u);
  w.undo_stack()->undo();
  EXPECT_EQ(w.roi().shapes.size(), 1u);
  w.undo_stack()->redo();
  ASSERT_EQ(w.roi().shapes.size(), 2u);
  ASSERT_NO_FATAL_FAILURE(run_dic_with_step(w, 10));
  EXPECT_EQ(w.results()->frames.size(), 5u);
  w.show_frame(5);
  ASSERT_TRUE(w.export_csv(QString::fromStdString(path("gui.csv"))).is_ok());
  ASSERT_TRUE(w.export_plot(QString::fromStdString(path("plot.png"))).is_ok());
  ASSERT_TRUE(w.export_frame_csv(QString::fromStdString(path("frame3.csv")), 3).is_ok());
  const std::string frame3 = read(path("frame3.csv"));
  EXPECT_NE(frame3.find("\n3,"), std::string::npos);
  EXPECT_EQ(frame3.find("\n2,"), std::string::npos) << "only frame 3";
  EXPECT_GT(fs::file_size(path("plot.png")), 1000u);

  const std::string cli = std::string(XCORR_EXE) + " dic --quiet --reference " + XCORR_SOURCE_DIR +
                          "/resources/sample/dic_stack.tif --roi ellipse:127.5,127.5,110,100 " +
                          "--roi=-rect:110,110,20,20 --step 10 --out " + path("cli.csv");
  ASSERT_EQ(std::system(cli.c_str()), 0) << cli;
  const std::string gui = read(path("gui.csv")), reference = read(path("cli.csv"));
  ASSERT_FALSE(gui.empty());
  EXPECT_EQ(gui, reference) << "the GUI's CSV differs from the CLI's";
}

TEST_F(Studio, CancelLeavesTheWindowUsableAndWritesNothing) {
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  dic::DicOptions o = w.dic_panel()->options();
  o.step = 2;  // a longer run, so that Cancel lands mid-run
  o.propagation = dic::Propagation::reliability_guided;
  w.dic_panel()->set_options(o);
  QSignalSpy finished(&w, &MainWindow::run_finished);
  ASSERT_TRUE(w.start_dic());
  EXPECT_TRUE(w.running());
  EXPECT_FALSE(w.start_dic()) << "one run at a time";
  w.cancel_run();
  ASSERT_TRUE(wait_for_run(w, finished));
  EXPECT_FALSE(finished.first().first().toBool());
  EXPECT_FALSE(w.has_results());
  const Status s = w.export_csv(QString::fromStdString(path("none.csv")));
  EXPECT_FALSE(s.is_ok());
  EXPECT_FALSE(fs::exists(path("none.csv")));
  // Still usable: a normal run afterwards succeeds.
  o.step = 16;
  o.propagation = dic::Propagation::independent;
  w.dic_panel()->set_options(o);
  finished.clear();
  ASSERT_TRUE(w.start_dic());
  ASSERT_TRUE(wait_for_run(w, finished));
  EXPECT_TRUE(finished.first().first().toBool());
  EXPECT_TRUE(w.has_results());
  ASSERT_TRUE(w.export_csv(QString::fromStdString(path("step16.csv"))).is_ok());
  // A cancelled run keeps the last results with the settings they ran with.
  o.step = 2;
  o.propagation = dic::Propagation::reliability_guided;
  w.dic_panel()->set_options(o);
  finished.clear();
  ASSERT_TRUE(w.start_dic());
  w.cancel_run();
  ASSERT_TRUE(wait_for_run(w, finished));
  EXPECT_FALSE(finished.first().first().toBool());
  ASSERT_TRUE(w.export_csv(QString::fromStdString(path("again.csv"))).is_ok());
  EXPECT_EQ(read(path("again.csv")), read(path("step16.csv")));
}

// A saved project is the DIC job file: it reopens with the same stack, ROI and options, and
// `xcorr run` executes it headless to the CSV the window exports.
TEST_F(Studio, ProjectsReopenAndRunHeadlessToTheSameCsv) {
  MainWindow w;
  ASSERT_TRUE(w.open_sample().is_ok());
  w.add_roi_shape(dic::parse_roi_shape("-ellipse:127.5,127.5,30,20").value());
  dic::DicOptions o = w.dic_panel()->options();
  o.step = 12;
  o.strain = dic::StrainKind::engineering;
  w.dic_panel()->set_options(o);
  w.add_template({40, 50, 32, 24});
  const QString project = QString::fromStdString(path("project.json"));
  ASSERT_TRUE(w.save_project(project).is_ok());

  MainWindow again;
  ASSERT_TRUE(again.open_project(project).is_ok());
  EXPECT_EQ(again.frame_count(), 6);
  ASSERT_EQ(again.roi().shapes.size(), 2u);
  EXPECT_EQ(dic::to_string(again.roi().shapes[1]), "-ellipse:127.5,127.5,30,20");
  EXPECT_EQ(again.dic_panel()->options().step, 12);
  EXPECT_EQ(again.dic_panel()->options().strain, dic::StrainKind::engineering);
  ASSERT_EQ(again.templates().size(), 1u);
  EXPECT_EQ(again.templates()[0].width, 32);

  QSignalSpy finished(&again, &MainWindow::run_finished);
  ASSERT_TRUE(again.start_dic());
  ASSERT_TRUE(wait_for_run(again, finished));
  ASSERT_TRUE(again.export_csv(QString::fromStdString(path("gui.csv"))).is_ok());
  const std::string cli = std::string(XCORR_EXE) + " run --quiet " + path("project.json");
  ASSERT_EQ(std::system(cli.c_str()), 0) << cli;
  EXPECT_EQ(read(path("gui.csv")), read(path("project.csv")));
}

// The window runs DIC through the same job runner as `xcorr run` (batch::run_job): a frame
// that cannot be registered (frame 3 all NaN) fails alone, is named with its reason, has
// no results in the window, and the other frames export to the CSV `xcorr run` writes.
TEST_F(Studio, AFailedFrameIsNamedAndTheRestMatchXcorrRun) {
  auto sample =
      io::read_image_stack(std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif");
  ASSERT_TRUE(sample.is_ok()) << sample.status().message();
  Stack<float> frames = std::move(sample.value().frames);
  // Non-finite pixels are missing data (a point touching them is missing_data); a frame that has
  // no finite pixel at all cannot be registered.
  for (Index r = 0; r < frames.rows(); ++r)
    for (Index c = 0; c < frames.cols(); ++c)
      frames[3](r, c) = std::numeric_limits<float>::quiet_NaN();
  const std::string stack = path("nan_frame3.tif");
  ASSERT_TRUE(io::write_image_stack(stack, frames.view(), io::PixelType::f32).is_ok());

  MainWindow w;
  ASSERT_TRUE(w.open_stack(QString::fromStdString(stack)).is_ok());
  w.add_roi_shape(dic::parse_roi_shape("ellipse:127.5,127.5,110,100").value());
  ASSERT_NO_FATAL_FAILURE(run_dic_with_step(w, 12));
  std::vector<Index> numbers;
  for (const auto& fr : w.results()->frames) numbers.push_back(fr.frame);
  EXPECT_EQ(numbers, (std::vector<Index>{1, 2, 4, 5}));
  auto* box = w.findChild<QMessageBox*>("failed_frames");
  ASSERT_NE(box, nullptr) << "the failed frame is named in a message";
  EXPECT_TRUE(box->text().contains("frame 3")) << box->text().toStdString();
  EXPECT_TRUE(box->text().contains("NaN", Qt::CaseInsensitive)) << box->text().toStdString();
  const Status none = w.export_frame_csv(QString::fromStdString(path("frame3.csv")), 3);
  EXPECT_FALSE(none.is_ok());
  EXPECT_NE(none.message().find("frame 3 has no results"), std::string::npos) << none.message();
  EXPECT_FALSE(fs::exists(path("frame3.csv")));
  ASSERT_TRUE(w.export_frame_csv(QString::fromStdString(path("frame4.csv")), 4).is_ok());
  ASSERT_TRUE(w.export_csv(QString::fromStdString(path("gui.csv"))).is_ok());

  ASSERT_TRUE(w.save_project(QString::fromStdString(path("project.json"))).is_ok());
  const std::string cli = std::string(XCORR_EXE) + " run --quiet " + path("project.json");
  EXPECT_EQ(WEXITSTATUS(std::system(cli.c_str())), 2) << "xcorr run reports the failed frame";
  EXPECT_EQ(read(path("gui.csv")), read(path("project.csv")));
}

// Options declared once: the CLI's flags (every option off its default) -> `xcorr dic --save-job`
// -> the window's form -> Save project -> the same value of every option; every option has a
// widget named by its key, with the doc line as tooltip. Fails when any front end drops one.
TEST_F(Studio, EveryOptionSurvivesCliJobFileFormAndProject) {
  const dic::DicOptions defaults;
  std::string flags;
  for (const auto& f : dic::dic_option_table())
    flags += " " + flag_name(f.key) + " " + testing::off_default_text(f, defaults);
  const std::string s = std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif";
  const std::string cli = std::string(XCORR_EXE) + " dic --quiet --reference " + s + " --out " +
                          path("out.csv") + flags + " --save-job " + path("cli.json");
  ASSERT_EQ(std::system(cli.c_str()), 0) << cli;
  EXPECT_FALSE(fs::exists(path("out.csv"))) << "--save-job runs nothing";

  MainWindow w;
  ASSERT_TRUE(w.open_project(QString::fromStdString(path("cli.json"))).is_ok());
  for (const auto& f : dic::dic_option_table()) {
    auto* widget = w.dic_panel()->findChild<QWidget*>(QString::fromStdString(f.key));
    ASSERT_NE(widget, nullptr) << "no widget for " << f.key;
    EXPECT_EQ(widget->toolTip().toStdString(), f.doc) << f.key;
  }
  ASSERT_TRUE(w.save_project(QString::fromStdString(path("gui.json"))).is_ok());
  const auto saved = dic::read_dic_job(path("gui.json"));
  ASSERT_TRUE(saved.is_ok()) << saved.status().message();
  for (const auto& f : dic::dic_option_table()) {
    EXPECT_EQ(f.get(saved.value().options), testing::off_default_text(f, defaults))
        << f.key << " did not survive the form";
  }
}

// Template tracking on the bundled tracking sample (resources/sample/README.md: the template at
// (96, 96) moves by (0.6, -0.35) px (dy, dx) per frame).
TEST_F(Studio, TracksTemplatesThroughTheStack) {
  MainWindow w;
  ASSERT_TRUE(
      w.open_stack(QString(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif").is_ok());
  w.add_template({96, 96, 64, 64});
  w.add_template({20, 150, 40, 40});
  w.undo_stack()->undo();
  ASSERT_EQ(w.templates().size(), 1u);
  QSignalSpy finished(&w, &MainWindow::run_finished);
  ASSERT_TRUE(w.start_tracking());
  ASSERT_TRUE(wait_for_run(w, finished));
  ASSERT_TRUE(finished.first().first().toBool());
  ASSERT_EQ(w.tracks().size(), 1u);
  const Track& t = w.tracks()[0];
  ASSERT_EQ(t.x.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_NEAR(t.x[k], 96 - 0.35 * static_cast<double>(k), 0.05) << "frame " << k;
    EXPECT_NEAR(t.y[k], 96 + 0.6 * static_cast<double>(k), 0.05) << "frame " << k;
  }
  ASSERT_TRUE(w.export_tracks_csv(QString::fromStdString(path("tracks.csv"))).is_ok());
  EXPECT_NE(read(path("tracks.csv")).find("frame,template,x,y,dx,dy,zncc"), std::string::npos);
}

// Run DIC, Track templates, Register stack and Cancel live in the Analysis menu and toolbar with
// keys (F5, F6, F7, Shift+F5), enabled only when they can run, with the reason in the tooltip
// when not (issue 42: Run DIC was only at the bottom of a 24-field form).
TEST_F(Studio, RunsAreReachedFromTheMenuToolbarAndKeys) {
  MainWindow w;
  w.show();
  w.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
  auto action = [&](const char* name) {
    auto* a = w.findChild<QAction*>(name);
    EXPECT_NE(a, nullptr) << name;
    return a;
  };
  QAction *dic = action("run_dic"), *track = action("run_tracking"), *reg = action("run_register"),
          *cancel = action("cancel_run");
  ASSERT_TRUE(dic && track && reg && cancel);
  EXPECT_EQ(dic->shortcut(), QKeySequence(Qt::Key_F5));
  EXPECT_EQ(track->shortcut(), QKeySequence(Qt::Key_F6));
  EXPECT_EQ(reg->shortcut(), QKeySequence(Qt::Key_F7));
  auto* toolbar = w.findChild<QToolBar*>("analysis_toolbar");
  ASSERT_NE(toolbar, nullptr);
  for (QAction* a : {dic, track, reg, cancel}) {
    EXPECT_TRUE(toolbar->actions().contains(a)) << a->text().toStdString();
    EXPECT_FALSE(a->icon().isNull()) << a->text().toStdString();
  }
  QMenu* analysis = nullptr;
  for (QAction* m : w.menuBar()->actions())
    if (m->text() == "&Analysis") analysis = m->menu();
  ASSERT_NE(analysis, nullptr);
  EXPECT_TRUE(analysis->actions().contains(dic) && analysis->actions().contains(track) &&
              analysis->actions().contains(reg));
  // Nothing open: disabled, and the tooltip says why.
  for (QAction* a : {dic, track, reg}) {
    EXPECT_FALSE(a->isEnabled());
    EXPECT_TRUE(a->toolTip().contains("open a stack first")) << a->toolTip().toStdString();
  }
  EXPECT_TRUE(cancel->toolTip().contains("nothing is running"));
  ASSERT_TRUE(w.open_sample().is_ok());
  EXPECT_TRUE(dic->isEnabled()) << dic->toolTip().toStdString();
  EXPECT_TRUE(dic->toolTip().endsWith("(F5)")) << dic->toolTip().toStdString();
  EXPECT_TRUE(reg->isEnabled()) << reg->toolTip().toStdString();
  EXPECT_FALSE(track->isEnabled());
  EXPECT_TRUE(track->toolTip().contains("draw a template first")) << track->toolTip().toStdString();
  // Settings the form refuses: DIC is off with the form's reason, the form's button too.
  dic::DicOptions o = w.dic_panel()->options();
  const dic::DicOptions good = o;
  o.subset = 30;
  w.dic_panel()->set_options(o);
  EXPECT_FALSE(dic->isEnabled());
  EXPECT_TRUE(dic->toolTip().contains("subset")) << dic->toolTip().toStdString();
  QPushButton* run_button = nullptr;
  for (QPushButton* b : w.findChildren<QPushButton*>())
    if (b->text() == "Run DIC") run_button = b;
  ASSERT_NE(run_button, nullptr);
  EXPECT_FALSE(run_button->isEnabled());
  o = good;
  o.step = 12;
  w.dic_panel()->set_options(o);
  ASSERT_TRUE(dic->isEnabled());
  // F5 runs DIC; while it runs only Cancel is on.
  QSignalSpy finished(&w, &MainWindow::run_finished);
  QTest::keyClick(&w, Qt::Key_F5);
  ASSERT_TRUE(w.running());
  EXPECT_FALSE(dic->isEnabled());
  EXPECT_TRUE(dic->toolTip().contains("a run is in progress"));
  EXPECT_TRUE(cancel->isEnabled());
  ASSERT_TRUE(wait_for_run(w, finished));
  EXPECT_TRUE(w.has_results());
  EXPECT_FALSE(cancel->isEnabled());
  // A template: F6 tracks it.
  w.add_template({96, 96, 64, 64});
  EXPECT_TRUE(track->isEnabled()) << track->toolTip().toStdString();
  finished.clear();
  QTest::keyClick(&w, Qt::Key_F6);
  ASSERT_TRUE(w.running());
  ASSERT_TRUE(wait_for_run(w, finished));
  EXPECT_EQ(w.tracks().size(), 1u);
  // A list of files cannot be registered: the reason names it.
  ASSERT_TRUE(
      w.open_files({QString(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif"}).is_ok());
  EXPECT_FALSE(reg->isEnabled());
  EXPECT_TRUE(reg->toolTip().contains("reads a stack from its file"))
      << reg->toolTip().toStdString();
}

// The image tools have icons, keys and tooltips that say how each is used (issue 42: names only,
// the polygon's double-click never hinted); choosing one says how in the status bar. The view
// zooms with Ctrl+plus / Ctrl+minus, fits with Ctrl+0, and the status bar reads the zoom.
TEST_F(Studio, ToolsHaveIconsKeysAndSayHowToUseThem) {
  MainWindow w;
  w.show();
  w.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
  ASSERT_TRUE(w.open_sample().is_ok());
  auto* tools = w.findChild<QToolBar*>("tools_toolbar");
  ASSERT_NE(tools, nullptr);
  int checked_tools = 0;
  for (QAction* a : tools->actions()) {
    if (!a->isCheckable()) continue;
    ++checked_tools;
    EXPECT_FALSE(a->icon().isNull()) << a->text().toStdString();
    EXPECT_FALSE(a->shortcut().isEmpty()) << a->text().toStdString();
    EXPECT_TRUE(a->toolTip().startsWith(a->text() + " (" + a->shortcut().toString() + "): "))
        << a->toolTip().toStdString();
    EXPECT_GT(a->toolTip().size(), a->text().size() + 20) << "the tooltip says how";
  }
  EXPECT_EQ(checked_tools, 9) << "8 tools and Subtract";
  QTest::keyClick(&w, Qt::Key_G);
  EXPECT_EQ(w.view()->tool(), Tool::polygon);
  EXPECT_TRUE(w.statusBar()->currentMessage().contains("double-click to close"))
      << w.statusBar()->currentMessage().toStdString();
  QTest::keyClick(&w, Qt::Key_R);
  EXPECT_EQ(w.view()->tool(), Tool::rectangle);
  QTest::keyClick(&w, Qt::Key_H);
  EXPECT_EQ(w.view()->tool(), Tool::pan);
  auto* zoom = w.findChild<QLabel*>("zoom");
  ASSERT_NE(zoom, nullptr);
  QTest::keyClick(&w, Qt::Key_0, Qt::ControlModifier);
  const double fitted = w.view()->zoom();
  EXPECT_EQ(zoom->text(), QString("%1 %").arg(fitted * 100, 0, 'f', 0));
  QTest::keyClick(&w, Qt::Key_Plus, Qt::ControlModifier);
  EXPECT_NEAR(w.view()->zoom(), fitted * 1.25, 1e-9);
  EXPECT_EQ(zoom->text(), QString("%1 %").arg(fitted * 125, 0, 'f', 0));
  QTest::keyClick(&w, Qt::Key_Minus, Qt::ControlModifier);
  QTest::keyClick(&w, Qt::Key_Minus, Qt::ControlModifier);
  EXPECT_NEAR(w.view()->zoom(), fitted / 1.25, 1e-9);
  QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier);
  EXPECT_EQ(zoom->text(), "100 %");
}

// The correlation surface around a probed point peaks at that point's displacement.
TEST_F(Studio, ProbeShowsTheCorrelationSurface) {
  MainWindow w;
  ASSERT_TRUE(w.open_sample().is_ok());
  w.show_frame(5);  // u = 5 (0.4 + 0.004 (x - 127.5)), v = 5 (0.25 - 0.0012 (y - 127.5))
  auto s = w.probe_surface(160, 100);
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  const MatrixView<const float> m = StackView<const float>(s.value().view())[0];
  ASSERT_EQ(m.rows, 21);
  Index best = 0;
  for (Index i = 1; i < 21 * 21; ++i)
    if (m.data[i] > m.data[best]) best = i;
  EXPECT_EQ(best % 21 - 10, std::lround(5 * (0.4 + 0.004 * (160 - 127.5))));    // u
  EXPECT_EQ(best / 21 - 10, std::lround(5 * (0.25 - 0.0012 * (100 - 127.5))));  // v
  EXPECT_GT(m.data[best], 0.9f);
  EXPECT_FALSE(w.probe_surface(3, 3).is_ok()) << "too close to the border";
}

TEST_F(Studio, OpensAListOfFilesInTheGivenOrder) {
  const std::string s = std::string(XCORR_SOURCE_DIR) + "/resources/sample/";
  MainWindow w;
  ASSERT_TRUE(w.open_files({QString::fromStdString(s + "template.tif"),
                            QString::fromStdString(s + "template.tif")})
                  .is_ok());
  EXPECT_EQ(w.frame_count(), 2);
  const Status bad = w.open_files(
      {QString::fromStdString(s + "template.tif"), QString::fromStdString(path("nope.tif"))});
  EXPECT_NE(bad.message().find("nope.tif"), std::string::npos) << bad.message();
  EXPECT_EQ(w.frame_count(), 2) << "a failed open keeps the stack that was open";
}

// The Edit tool with real mouse and key events: drag the sample's ellipse, then delete it;
// both undoable.
TEST_F(Studio, EditToolMovesAndDeletesShapes) {
  MainWindow w;
  w.resize(1200, 800);
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  ImageView* v = w.view();
  v->set_tool(Tool::edit);
  const QPoint centre = v->widget_position({127.5, 127.5}).toPoint();
  const QPoint moved = centre + QPoint(40, 20);
  QTest::mousePress(v, Qt::LeftButton, {}, centre);
  QMouseEvent move(QEvent::MouseMove, QPointF(moved), v->mapToGlobal(QPointF(moved)), Qt::NoButton,
                   Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(v, &move);
  QTest::mouseRelease(v, Qt::LeftButton, {}, moved);
  ASSERT_EQ(w.roi().shapes.size(), 1u);
  const dic::RoiShape& e = w.roi().shapes[0];
  EXPECT_NEAR(e.x, 127.5 + 40 / v->zoom(), 1.0);
  EXPECT_NEAR(e.y, 127.5 + 20 / v->zoom(), 1.0);
  EXPECT_NEAR(e.rx, 110, 1e-9) << "moved, not resized";
  QTest::keyClick(v, Qt::Key_Delete);
  EXPECT_TRUE(w.roi().shapes.empty());
  w.undo_stack()->undo();
  ASSERT_EQ(w.roi().shapes.size(), 1u);
  w.undo_stack()->undo();
  EXPECT_NEAR(w.roi().shapes[0].x, 127.5, 1e-9);
  // Resize: select it, then drag its bottom-right handle outwards.
  QTest::mouseClick(v, Qt::LeftButton, {}, centre);
  const QPoint handle = v->widget_position({127.5 + 110, 127.5 + 100}).toPoint();
  const QPoint out = handle + QPoint(30, 30);
  QTest::mousePress(v, Qt::LeftButton, {}, handle);
  QMouseEvent drag(QEvent::MouseMove, QPointF(out), v->mapToGlobal(QPointF(out)), Qt::NoButton,
                   Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(v, &drag);
  QTest::mouseRelease(v, Qt::LeftButton, {}, out);
  EXPECT_NEAR(w.roi().shapes[0].rx, 110 + 15 / v->zoom(), 1.0);
  EXPECT_NEAR(w.roi().shapes[0].ry, 100 + 15 / v->zoom(), 1.0);
}

TEST_F(Studio, BadInputShowsAMessageInsteadOfCrashing) {
  MainWindow w;
  EXPECT_FALSE(w.start_dic()) << "no stack yet";
  const Status missing = w.open_stack(QString::fromStdString(path("missing.tif")));
  EXPECT_FALSE(missing.is_ok());
  EXPECT_NE(missing.message().find("missing.tif"), std::string::npos) << missing.message();
  ASSERT_TRUE(w.open_sample().is_ok());
  dic::DicOptions o = w.dic_panel()->options();
  o.subset = 30;  // even: refused by the form's validation
  w.dic_panel()->set_options(o);
  EXPECT_FALSE(w.dic_panel()->valid());
  EXPECT_FALSE(w.start_dic());
}

// The DIC form's GPUs field: every visible device and all as choices (device 0 and all on a
// machine without one), other lists typed in; a bad list is named under the form and the window
// refuses to run it.
TEST_F(Studio, TheGpusFieldListsTheDevicesAndChecksTypedLists) {
  MainWindow w;
  auto* combo = w.dic_panel()->findChild<QComboBox*>("devices");
  ASSERT_NE(combo, nullptr);
  ASSERT_GE(combo->count(), 2);
  EXPECT_EQ(combo->itemText(0).toStdString(), "0");
  EXPECT_EQ(combo->itemText(combo->count() - 1).toStdString(), "all");
  EXPECT_TRUE(combo->isEditable());
  combo->setCurrentText("all");
  EXPECT_EQ(w.dic_panel()->options().devices, "all");
  combo->setCurrentText("0,x");
  EXPECT_FALSE(w.dic_panel()->valid());
  combo->setCurrentText("0");
  EXPECT_TRUE(w.dic_panel()->valid());
}

// The Tracking tab offers both accuracies (docs/formats.md, "Accuracy"); fast by default.
TEST(TrackingPanel, OffersFastAndExactAccuracy) {
  TrackingPanel panel;
  auto* combo = panel.findChild<QComboBox*>("accuracy");
  ASSERT_NE(combo, nullptr);
  EXPECT_EQ(panel.accuracy(), Accuracy::fast);
  combo->setCurrentText("exact");
  EXPECT_EQ(panel.accuracy(), Accuracy::exact);
}

// The line that says why the GPU is not used sits right under the Device field, and only when
// there is one (the window sets it from engine::gpu_not_used(); docs/gui.md).
TEST(DicPanel, TheDeviceNoteSitsUnderTheDeviceField) {
  DicPanel panel;
  panel.show();
  auto* note = panel.findChild<QLabel*>("device_note");
  auto* device = panel.findChild<QWidget*>("device");
  ASSERT_NE(note, nullptr);
  ASSERT_NE(device, nullptr);
  EXPECT_FALSE(note->isVisible());
  const QString why =
      "GPU not used, DIC runs on the CPU: GPU 0, NVIDIA GeForce RTX 3090 (sm_86): this build has "
      "no kernels for it (built for machine code for sm_90)";
  panel.set_device_note(why);
  EXPECT_TRUE(note->isVisible());
  EXPECT_EQ(note->text(), why);
  auto* form = qobject_cast<QFormLayout*>(panel.layout());
  ASSERT_NE(form, nullptr);
  int device_row = -1, note_row = -1;
  QFormLayout::ItemRole role{};
  form->getWidgetPosition(device, &device_row, &role);
  form->getWidgetPosition(note, &note_row, &role);
  EXPECT_EQ(note_row, device_row + 1);
  // With XCORR_SCREENSHOTS=FOLDER (under Xvfb) the form with the note is saved as
  // FOLDER/device-note.png: the line the sm_80 build printed on the H200
  // (docs/perf/gpu-support.md).
  if (const char* shots = std::getenv("XCORR_SCREENSHOTS")) {
    panel.set_device_note(
        "GPU not used, DIC runs on the CPU: GPU 0, NVIDIA H200 (sm_90): this build has no kernels "
        "for it (built for machine code for sm_80)");
    panel.resize(520, panel.sizeHint().height());
    QApplication::processEvents();
    EXPECT_TRUE(panel.grab().save(QString(shots) + "/device-note.png"));
  }
  panel.set_device_note({});
  EXPECT_FALSE(note->isVisible());
}

}  // namespace
}  // namespace xcorr::ui
