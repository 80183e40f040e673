// A real microscope hyperstack in the real window, the whole path of a microscopist's day
// (tests/support/real_images.hpp: ihc.png's R, G, B as a drifting 3-channel TCYX stack with
// noise, hot pixels and NaN blocks): open, choose channel 1, register (measured on channel 1,
// every channel moved), the corrected hyperstack opens whole (any channel can be shown: failed
// before with "has 1 channel ... no channel 1"), apply the saved drift table to the same
// acquisition without defects, track a template on it (it stands still), export, save and
// reopen the project; then another,
// single-channel stack opens and queues with channel 1 still chosen (the channel is the
// analysis', not the window's), and changing the channel keeps the tracks.
// With XCORR_SCREENSHOTS=FOLDER (scripts/screenshots.sh runs it under Xvfb) the window is saved
// as FOLDER/hyperstack-registered.png after the registration.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QSignalSpy>
#include <QStatusBar>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "core/io/image_metadata.hpp"
#include "tests/support/real_images.hpp"
#include "tests/support/temp_dir.hpp"
#include "ui/batch_dialog.hpp"
#include "ui/channels_panel.hpp"
#include "ui/dic_panel.hpp"
#include "ui/image_view.hpp"
#include "ui/lut.hpp"
#include "ui/main_window.hpp"
#include "ui/results_panel.hpp"

namespace xcorr::ui {
namespace {

namespace fs = std::filesystem;

class Hyperstack : public testing::TempDirTest {
 protected:
  static bool wait(MainWindow& w) {
    QSignalSpy finished(&w, &MainWindow::run_finished);
    for (int i = 0; i < 1200 && finished.count() == 0; ++i) finished.wait(100);
    return finished.count() == 1 && finished.first().first().toBool();
  }
  static void choose_channel(MainWindow& w, const std::string& channel) {
    dic::DicOptions o = w.dic_panel()->options();
    o.channel = channel;
    w.dic_panel()->set_options(o);
  }
};

TEST_F(Hyperstack, RegisteredOnOneChannelReopensWholeAndTracksStandStill) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string stack = path("ihc_drift.tif");
  ASSERT_TRUE(testing::write_real_hyperstack(stack, 10, seed).is_ok());
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  ASSERT_TRUE(w.open_stack(QString::fromStdString(stack)).is_ok());
  ASSERT_EQ(w.frame_count(), 10);
  choose_channel(w, "1");

  reg::RegisterJob j;
  j.stack = stack;
  j.out = path("ihc_registered.tif");
  j.drift = path("ihc_drift.csv");
  j.options.channel = "1";
  ASSERT_TRUE(w.start_registration(j));
  ASSERT_TRUE(wait(w));
  // The corrected hyperstack is open, whole: 3 channels, 10 time points, the scale kept.
  EXPECT_TRUE(w.windowTitle().contains("ihc_registered.tif")) << w.windowTitle().toStdString();
  EXPECT_EQ(w.frame_count(), 10);
  auto meta = io::read_stack_metadata(j.out);
  ASSERT_TRUE(meta.is_ok());
  EXPECT_EQ(meta.value().layout.channels, 3);
  EXPECT_EQ(meta.value().layout.frames, 10);
  EXPECT_EQ(meta.value().scale.pixel_x, 0.32);
  if (const char* shots = std::getenv("XCORR_SCREENSHOTS")) {
    w.findChild<ResultsPanel*>()->setCurrentIndex(w.findChild<ResultsPanel*>()->count() - 1);
    w.show_frame(9);
    QApplication::processEvents();
    EXPECT_TRUE(w.grab().save(QString(shots) + "/hyperstack-registered.png"));
  }
  // Every channel of it can be shown.
  for (const char* channel : {"0", "2"}) {
    choose_channel(w, channel);
    EXPECT_EQ(w.frame_count(), 10) << "channel " << channel;
    EXPECT_TRUE(w.log_text().indexOf("no channel") < 0) << w.log_text().toStdString();
  }

  // The saved table applied to another file of the acquisition (File > Apply drift table):
  // the same stack without the defects (hot pixels and NaN, which resampling smears into what a
  // template is matched on).
  const std::string clean = path("ihc_clean.tif");
  ASSERT_TRUE(testing::write_real_hyperstack(clean, 10, seed, false).is_ok());
  choose_channel(w, "1");
  ASSERT_TRUE(w.open_stack(QString::fromStdString(clean)).is_ok());
  ASSERT_TRUE(w.apply_drift_table(QString::fromStdString(j.drift),
                                  QString::fromStdString(path("ihc_applied.tif"))));
  ASSERT_TRUE(wait(w));
  EXPECT_TRUE(w.windowTitle().contains("ihc_applied.tif")) << w.windowTitle().toStdString();
  EXPECT_EQ(w.frame_count(), 10);

  // On it a tracked template stands still (channel 1, a region clear of the borders).
  w.add_template({40, 40, 40, 40});
  ASSERT_TRUE(w.start_tracking());
  ASSERT_TRUE(wait(w));
  ASSERT_EQ(w.tracks().size(), 1u);
  const Track& t = w.tracks()[0];
  ASSERT_EQ(t.x.size(), 10u);
  double worst = 0;  // 0.02-0.04 px measured
  for (std::size_t k = 0; k < 10; ++k) {
    if (std::isnan(t.x[k])) continue;  // missing pixels under the match: not a position
    worst = std::max({worst, std::abs(t.x[k] - 40), std::abs(t.y[k] - 40)});
  }
  std::cout << "template tracked on the corrected stack: worst " << worst << " px\n";
  EXPECT_LE(worst, 0.1);
  ASSERT_TRUE(w.export_tracks_csv(QString::fromStdString(path("tracks.csv"))).is_ok());
  EXPECT_TRUE(fs::file_size(path("tracks.csv")) > 100);
  // Changing the channel keeps the tracks, and says which channel they were measured on.
  choose_channel(w, "0");
  EXPECT_EQ(w.tracks().size(), 1u);
  EXPECT_TRUE(w.statusBar()->currentMessage().contains("measured on channel 1"))
      << w.statusBar()->currentMessage().toStdString();
  ASSERT_TRUE(w.save_project(QString::fromStdString(path("p.json"))).is_ok());
  MainWindow again;
  ASSERT_TRUE(again.open_project(QString::fromStdString(path("p.json"))).is_ok());
  EXPECT_EQ(again.frame_count(), 10);
  EXPECT_EQ(again.tracks().size(), 1u);

  // Another stack, single-channel, opens with channel 2 chosen; and queues in a batch.
  choose_channel(w, "2");
  const std::string plain = std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif";
  ASSERT_TRUE(w.open_stack(QString::fromStdString(plain)).is_ok());
  EXPECT_EQ(w.dic_panel()->options().channel, "0");
  BatchDialog batch([] {
    dic::DicJob project;
    project.options.channel = "2";
    project.roi = dic::Roi{{dic::parse_roi_shape("rect:40,40,160,160").value()}};
    return project;
  });
  batch.use_current_project();
  batch.set_output(QString::fromStdString(dir_.string()), "{stack}.csv");
  const Status queued = batch.add_stacks({QString::fromStdString(plain)});
  EXPECT_TRUE(queued.is_ok()) << queued.message();
  ASSERT_EQ(batch.queue().jobs.size(), 1u);
  EXPECT_EQ(batch.queue().jobs[0].options.channel, "0");
}

// A real 2-channel hyperstack (ihc.png's R and G with noise, hot pixels and NaN blocks) opens as
// a composite of Green and Magenta with a scale bar and time stamp, every channel at its own
// levels; the analysis channel stays the DIC form's. With XCORR_SCREENSHOTS the window is saved
// as composite-2-channels.png.
TEST_F(Hyperstack, TwoRealChannelsShowAsAGreenMagentaComposite) {
  const std::string stack = path("ihc_2c.tif");
  ASSERT_TRUE(testing::write_real_hyperstack(stack, 8, 7, true, 2).is_ok());
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  ASSERT_TRUE(w.open_stack(QString::fromStdString(stack)).is_ok());
  auto* channels = w.findChild<ChannelsPanel*>();
  ASSERT_NE(channels, nullptr);
  ASSERT_EQ(channels->channels(), 2);
  EXPECT_TRUE(channels->composite());
  EXPECT_EQ(channels->lut(0), Lut::green);
  EXPECT_EQ(channels->lut(1), Lut::magenta);
  w.show_frame(5);
  QApplication::processEvents();
  // Both channels contribute: green and magenta (red = blue) parts, and their sums.
  const QImage& image = w.view()->image();
  long green = 0, magenta = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QRgb p = image.pixel(x, y);
      if (p == ImageView::kMissingColour) continue;
      EXPECT_EQ(qRed(p), qBlue(p)) << "Green + Magenta has red = blue";
      green += qGreen(p) > 0, magenta += qRed(p) > 0;
    }
  EXPECT_GT(green, image.width() * image.height() / 2);
  EXPECT_GT(magenta, image.width() * image.height() / 2);
  EXPECT_EQ(w.dic_panel()->options().channel, dic::DicOptions{}.channel)
      << "showing channels does not change the analysis'";
  if (const char* shots = std::getenv("XCORR_SCREENSHOTS")) {
    w.findChild<QDockWidget*>("channels_dock")->raise();
    QApplication::processEvents();
    EXPECT_TRUE(w.grab().save(QString(shots) + "/composite-2-channels.png"));
  }
}

// The composite as the user set it (LUTs, a channel off, levels) stays when the analysis channel
// changes (the stack is read again) and when registration opens its corrected stack: the
// registration's view is the same composite. Before, both reset to Green/Magenta and auto levels.
TEST_F(Hyperstack, TheCompositeStaysThroughAChannelChangeAndRegistration) {
  const std::string stack = path("ihc_2c.tif");
  ASSERT_TRUE(testing::write_real_hyperstack(stack, 6, 11, true, 2).is_ok());
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  ASSERT_TRUE(w.open_stack(QString::fromStdString(stack)).is_ok());
  auto* channels = w.findChild<ChannelsPanel*>();
  ASSERT_EQ(channels->channels(), 2);
  channels->set_lut(0, Lut::cyan);
  channels->set_lut(1, Lut::fire);
  channels->set_visible(1, false);
  w.view()->set_levels(10, 120);  // channel 0's, the active one
  const auto expect_kept = [&](const char* when) {
    SCOPED_TRACE(when);
    ASSERT_EQ(channels->channels(), 2);
    EXPECT_EQ(channels->lut(0), Lut::cyan);
    EXPECT_EQ(channels->lut(1), Lut::fire);
    EXPECT_FALSE(channels->visible(1));
    EXPECT_TRUE(channels->composite());
  };
  choose_channel(w, "0");  // read again at another analysis channel (luminance -> 0)
  expect_kept("the analysis channel changed");
  EXPECT_EQ(w.view()->black(), 10);
  EXPECT_EQ(w.view()->white(), 120);

  reg::RegisterJob j;
  j.stack = stack;
  j.out = path("ihc_2c_registered.tif");
  j.drift = path("ihc_2c_drift.csv");
  j.options.channel = "0";
  ASSERT_TRUE(w.start_registration(j));
  ASSERT_TRUE(wait(w));
  EXPECT_TRUE(w.windowTitle().contains("ihc_2c_registered.tif")) << w.windowTitle().toStdString();
  expect_kept("registration opened its corrected stack");
  EXPECT_EQ(w.view()->black(), 10);
  EXPECT_EQ(w.view()->white(), 120);

  // Another stack starts afresh.
  const std::string other = path("other.tif");
  ASSERT_TRUE(testing::write_real_hyperstack(other, 4, 5, true, 2).is_ok());
  ASSERT_TRUE(w.open_stack(QString::fromStdString(other)).is_ok());
  EXPECT_EQ(channels->lut(0), Lut::green);
  EXPECT_EQ(channels->lut(1), Lut::magenta);
  EXPECT_TRUE(channels->visible(1));
}

}  // namespace
}  // namespace xcorr::ui
