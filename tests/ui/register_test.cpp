// Register stack in the window (docs/registration.md): the dialog builds the job from the
// registration options, the paths beside the stack and the last template as the region; the run
// writes the corrected stack and the drift table, plots the drift (in um against time for a stack
// with a scale) in the Drift tab, and opens the corrected stack to step through. The bundled
// tracking sample moves by (dx, dy) = (-0.35, 0.6) px per frame (resources/sample/README.md).
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <filesystem>

#include "tests/support/temp_dir.hpp"
#include "ui/main_window.hpp"
#include "ui/register_dialog.hpp"
#include "ui/results_panel.hpp"

namespace xcorr::ui {
namespace {

namespace fs = std::filesystem;

class Registering : public testing::TempDirTest {
 protected:
  std::string sample() {
    const std::string p = path("speckle_stack.tif");
    fs::copy_file(std::string(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif", p);
    return p;
  }
};

TEST_F(Registering, TheDialogBuildsTheJobBesideTheStack) {
  reg::RegisterOptions o;
  o.pixel_size = "0.5um";
  RegisterDialog d(path("s.tif"), TemplateRect{96, 96, 64, 64}, o);
  reg::RegisterJob j = d.job();
  EXPECT_EQ(j.stack, path("s.tif"));
  EXPECT_EQ(j.out, path("s_registered.tif"));
  EXPECT_EQ(j.drift, path("s_drift.csv"));
  EXPECT_EQ(j.options.pixel_size, "0.5um");
  EXPECT_TRUE(j.options.region.empty());
  d.findChild<QCheckBox*>("use_template")->setChecked(true);
  EXPECT_EQ(d.job().options.region, "rect:96,96,64,64");
  d.findChild<QLineEdit*>("out")->setText(QString::fromStdString(path("s.png")));
  EXPECT_NE(d.check().message().find("must end in .tif or .tiff"), std::string::npos);
  RegisterDialog none(path("s.tif"), std::nullopt, o);
  EXPECT_FALSE(none.findChild<QCheckBox*>("use_template")->isEnabled());
}

// The output rule in the window: the dialog refuses a corrected stack or drift table that is the
// stack itself (or the same file twice), says why, and cannot be accepted.
TEST_F(Registering, TheDialogNeverWritesOverTheStack) {
  const std::string stack = sample();
  RegisterDialog d(stack, std::nullopt, reg::RegisterOptions{});
  auto* ok = d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
  EXPECT_TRUE(ok->isEnabled());
  d.findChild<QLineEdit*>("out")->setText(QString::fromStdString(stack));
  EXPECT_NE(d.check().message().find("the corrected stack (out) '" + stack + "' is the stack"),
            std::string::npos)
      << d.check().message();
  EXPECT_FALSE(ok->isEnabled());
  d.findChild<QLineEdit*>("out")->setText(QString::fromStdString(path("o.tif")));
  d.findChild<QLineEdit*>("drift")->setText(QString::fromStdString(path("o.tif")));
  EXPECT_NE(d.check().message().find("is also the corrected stack"), std::string::npos)
      << d.check().message();
  EXPECT_FALSE(ok->isEnabled());
}

TEST_F(Registering, TheRunPlotsTheDriftAndOpensTheCorrectedStack) {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  const std::string stack = sample();
  ASSERT_TRUE(w.open_stack(QString::fromStdString(stack)).is_ok());
  reg::RegisterJob j;
  j.stack = stack;
  j.out = path("registered.tif");
  j.drift = path("drift.csv");
  j.options.pixel_size = "0.25um";
  j.options.frame_interval = "2s";
  QSignalSpy finished(&w, &MainWindow::run_finished);
  ASSERT_TRUE(w.start_registration(j));
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  ASSERT_EQ(finished.count(), 1);
  EXPECT_TRUE(finished.first().first().toBool());
  EXPECT_TRUE(fs::exists(j.out));
  EXPECT_TRUE(fs::exists(j.drift));
  // The corrected stack is open.
  EXPECT_EQ(w.frame_count(), 6);
  EXPECT_TRUE(w.windowTitle().contains("registered.tif")) << w.windowTitle().toStdString();
  // The drift in um against time: frame 5 at 10 s, dy = 5 x 0.6 px x 0.25 um.
  auto* panel = w.findChild<ResultsPanel*>();
  EXPECT_TRUE(panel->drift_text().contains("6 frames registered, 0 left out"))
      << panel->drift_text().toStdString();
  QCustomPlot* drift = nullptr;
  for (QCustomPlot* p : panel->findChildren<QCustomPlot*>())
    if (p->yAxis->label() == "drift (um): dx solid, dy dashed") drift = p;
  ASSERT_NE(drift, nullptr);
  EXPECT_EQ(drift->xAxis->label(), "time (s)");
  ASSERT_EQ(drift->graph(1)->data()->size(), 6);
  EXPECT_EQ(drift->graph(1)->data()->at(5)->key, 10.0);
  EXPECT_NEAR(drift->graph(1)->data()->at(5)->value, 5 * 0.6 * 0.25, 0.01);
  EXPECT_NEAR(drift->graph(0)->data()->at(5)->value, -5 * 0.35 * 0.25, 0.01);
  // A list of files cannot be registered from the window: it names why.
  ASSERT_TRUE(w.open_files({QString::fromStdString(stack)}).is_ok());
  w.open_register_dialog();
  EXPECT_TRUE(w.log_text().contains("Open a multi-page TIFF or a folder first"))
      << w.log_text().toStdString();
}

}  // namespace
}  // namespace xcorr::ui
