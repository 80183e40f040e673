// The window on the screens labs have, and between starts (issue 42; docs/gui.md): the first
// start fits the screen (CTest runs this at XCORR_TEST_SCREEN 1024x700 and 1920x1080), the
// Analysis form shows every field whole (combo arrows in view, no sideways scrolling), the batch
// dialog's buttons are on the screen; geometry, dock layout and the analysis parameters come
// back on the next start (not the stack's own: channel, pixel size); the recent list holds what
// the user opened, without failed opens or the app's own outputs.
#include "ui/window_settings.hpp"

#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSignalSpy>
#include <filesystem>

#include "tests/support/temp_dir.hpp"
#include "ui/batch_dialog.hpp"
#include "ui/dic_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/tracking_panel.hpp"

namespace xcorr::ui {
namespace {

QRect screen_area() {
  return QGuiApplication::primaryScreen()->availableGeometry();
}

TEST(FirstStart, TheWindowAndTheBatchDialogFitTheScreen) {
  const QRect area = screen_area();
  ASSERT_EQ(QString(qgetenv("XCORR_TEST_SCREEN")),
            QString("%1x%2").arg(area.width()).arg(area.height()))
      << "the offscreen screen is the size asked for";
  MainWindow w;
  w.show();
  QApplication::processEvents();
  EXPECT_TRUE(area.contains(w.geometry())) << w.width() << "x" << w.height();
  EXPECT_EQ(w.size(), QSize(std::min(1400, area.width() * 92 / 100),
                            std::min(900, area.height() * 92 / 100)));
  BatchDialog* d = w.batch_dialog();
  d->show();
  QApplication::processEvents();
  EXPECT_TRUE(area.contains(d->geometry())) << d->width() << "x" << d->height();
  for (QPushButton* b : d->findChildren<QPushButton*>()) {
    if (b->text() != "Run" && b->text() != "Close") continue;
    const QRect on_screen(b->mapToGlobal(QPoint(0, 0)), b->size());
    EXPECT_TRUE(area.contains(on_screen)) << b->text().toStdString() << " is off the screen";
  }
}

TEST(FirstStart, EveryAnalysisFieldIsWholeInItsDock) {
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  QApplication::processEvents();
  auto* dock = w.findChild<QDockWidget*>("analysis_dock");
  ASSERT_NE(dock, nullptr);
  auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
  ASSERT_NE(scroll, nullptr);
  QWidget* viewport = scroll->viewport();
  const auto combos = w.dic_panel()->findChildren<QComboBox*>();
  ASSERT_GE(combos.size(), 8);
  for (QComboBox* c : combos) {
    const QPoint left = c->mapTo(viewport, QPoint(0, 0));
    EXPECT_GE(left.x(), 0) << c->objectName().toStdString();
    EXPECT_LE(left.x() + c->width(), viewport->width())
        << c->objectName().toStdString() << ": its arrow is cut off";
  }
}

class Settings : public testing::TempDirTest {};

TEST_F(Settings, GeometryDocksAndParametersComeBack) {
  {
    MainWindow a;
    a.show();
    a.resize(1000, 640);
    dic::DicOptions o = a.dic_panel()->options();
    o.subset = 41;
    o.step = 12;
    o.channel = "1";
    o.pixel_size = "0.5um";
    a.dic_panel()->set_options(o);
    a.findChild<TrackingPanel*>()->set_parameters("parabolic exact");
    a.findChild<QDockWidget*>("levels_dock")->hide();
    QApplication::processEvents();
    ASSERT_TRUE(a.close());
  }
  MainWindow b;
  const dic::DicOptions defaults = b.dic_panel()->options();
  b.restore_settings();
  b.show();
  QApplication::processEvents();
  EXPECT_EQ(b.size(), QSize(1000, 640));
  EXPECT_TRUE(b.findChild<QDockWidget*>("levels_dock")->isHidden());
  const dic::DicOptions o = b.dic_panel()->options();
  EXPECT_EQ(o.subset, 41);
  EXPECT_EQ(o.step, 12);
  EXPECT_EQ(o.channel, defaults.channel) << "the channel is the stack's, not a habit";
  EXPECT_EQ(o.pixel_size, defaults.pixel_size) << "the pixel size is the stack's";
  EXPECT_EQ(b.findChild<TrackingPanel*>()->parameters(), "parabolic exact");
}

TEST_F(Settings, TheRecentListHoldsOnlyWhatTheUserOpened) {
  const QString sample = QString(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif";
  const QString copy = QString::fromStdString(path("copy.tif"));
  std::filesystem::copy_file(sample.toStdString(), copy.toStdString());
  MainWindow w;
  w.show();
  EXPECT_FALSE(w.open_path(QString::fromStdString(path("missing.tif"))).is_ok());
  EXPECT_FALSE(recent_paths().contains(QString::fromStdString(path("missing.tif"))));
  ASSERT_TRUE(w.open_path(copy).is_ok());
  ASSERT_TRUE(w.open_path(sample).is_ok());
  EXPECT_EQ(recent_paths().mid(0, 2), (QStringList{sample, copy}));
  // The app's own output (a registered stack opened after the run) is not a recent file.
  reg::RegisterJob j;
  j.stack = sample.toStdString();
  j.out = path("registered.tif");
  j.drift = path("drift.csv");
  QSignalSpy finished(&w, &MainWindow::run_finished);
  ASSERT_TRUE(w.start_registration(j));
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  ASSERT_EQ(finished.count(), 1);
  ASSERT_TRUE(w.windowTitle().contains("registered.tif"));
  EXPECT_FALSE(recent_paths().contains(QString::fromStdString(j.out)));
  // A file that is gone leaves the list; one that fails to open leaves it too.
  std::filesystem::remove(copy.toStdString());
  EXPECT_FALSE(recent_paths().contains(copy));
  std::filesystem::copy_file(XCORR_SOURCE_DIR "/README.md", copy.toStdString());
  remember_recent(copy);
  EXPECT_FALSE(w.open_path(copy).is_ok());
  EXPECT_FALSE(recent_paths().contains(copy));
}

}  // namespace
}  // namespace xcorr::ui
