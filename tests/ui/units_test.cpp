// Physical units in the window (docs/units.md; trajectories against time, docs/gui.md): a stack
// whose ImageJ description gives 0.25 um pixels and 2 s per frame shows its scale in the Frames
// dock, the status-bar readout and the data cursor in um, the map axes and colour bar in um, and
// the trajectories against time in um; the tracks CSV carries the physical columns and velocities;
// the user's pixel size overrides the file's and is saved with the project.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/atomic_write.hpp"
#include "core/io/lazy_stack.hpp"
#include "core/io/tiff_writer.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiff_tags.hpp"
#include "ui/annotations.hpp"
#include "ui/channels_panel.hpp"
#include "ui/dic_panel.hpp"
#include "ui/image_view.hpp"
#include "ui/levels_bar.hpp"
#include "ui/lut.hpp"
#include "ui/main_window.hpp"
#include "ui/result_display.hpp"
#include "ui/results_panel.hpp"

namespace xcorr::ui {
namespace {

namespace fs = std::filesystem;

class Units : public testing::TempDirTest {
 protected:
  // The bundled tracking sample (the template at (96, 96) moves by dy 0.6, dx -0.35 px per
  // frame) with an ImageJ description and resolution: 4 px per micron, 2 s per frame.
  std::string scaled_stack() {
    const std::string p = path("scaled.tif");
    fs::copy_file(std::string(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif", p);
    EXPECT_TRUE(testing::set_tiff_description(
        p, "ImageJ=1.54f\nimages=6\nframes=6\nunit=micron\nfinterval=2\n", 4.0f));
    return p;
  }
  // The same frames as a 2-channel ImageJ hyperstack (TCYX: pages t0c0, t0c1, t1c0, ...; channel
  // 1 the inverted image), 2 s per time point.
  std::string two_channel_stack() {
    auto sample =
        io::LazyStack::open(std::string(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif");
    EXPECT_TRUE(sample.is_ok());
    io::LazyStack& st = *sample.value();
    EXPECT_TRUE(st.wait_indexed().is_ok());
    const long t = static_cast<long>(st.count());
    const std::string p = path("tcyx.tif");
    io::ImageScale scale;
    scale.pixel_x = scale.pixel_y = 0.25;
    scale.unit = "um";
    const std::string description = "ImageJ=1.54f\nimages=" + std::to_string(2 * t) +
                                    "\nchannels=2\nframes=" + std::to_string(t) +
                                    "\nhyperstack=true\nunit=micron\nfinterval=2\n";
    EXPECT_TRUE(io::write_atomically(p, [&](const fs::path& tmp) -> Status {
                  auto w = io::TiffWriter::create(tmp, io::PixelType::u16, st.shape(), 2 * t,
                                                  description, scale);
                  XCORR_RETURN_IF_ERROR(w.status());
                  for (Index k = 0; k < t; ++k) {
                    auto f = st.frame(k);
                    XCORR_RETURN_IF_ERROR(f.status());
                    Stack<float> inverted(st.shape().rows, st.shape().cols, 1);
                    const MatrixView<const float> page = (*f.value())[0];
                    for (Index y = 0; y < page.rows; ++y)
                      for (Index x = 0; x < page.cols; ++x) inverted[0](y, x) = 65535 - page(y, x);
                    XCORR_RETURN_IF_ERROR(w.value()->add_page(page));
                    XCORR_RETURN_IF_ERROR(w.value()->add_page(inverted[0]));
                  }
                  return w.value()->close();
                }).is_ok());
    return p;
  }
  static std::string read(const std::string& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  // Tracks the window's templates; the trajectories plot against time (null when it failed).
  static QCustomPlot* track(MainWindow& w) {
    QSignalSpy finished(&w, &MainWindow::run_finished);
    if (!w.start_tracking()) return nullptr;
    for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
    return finished.count() == 1 ? plot_labelled(w, "time (s)") : nullptr;
  }
  // The tracks CSV of the bundled template (dy 0.6 px a frame, 0.25 um px, 2 s a time point):
  // 6 rows with time_s = 2 x frame and vy = 0.075 um/s.
  void expect_track_rows(const std::string& csv) {
    std::istringstream rows(read(csv));
    int checked = 0;
    for (std::string line; std::getline(rows, line);) {
      if (line.empty() || line[0] == '#' || line[0] == 'f') continue;
      std::vector<double> v;
      std::stringstream cs(line);
      for (std::string c; std::getline(cs, c, ',');) v.push_back(std::stod(c));
      ASSERT_EQ(v.size(), 14u) << line;
      EXPECT_EQ(v[11], 2 * v[0]) << line;        // time_s
      EXPECT_NEAR(v[13], 0.075, 0.005) << line;  // vy um/s: 0.6 px x 0.25 um / 2 s
      ++checked;
    }
    EXPECT_EQ(checked, 6);
  }
  static QCustomPlot* plot_labelled(QWidget& w, const QString& x_label) {
    for (QCustomPlot* p : w.findChildren<QCustomPlot*>())
      if (p->xAxis->label() == x_label) return p;
    return nullptr;
  }
};

TEST_F(Units, TheFilesScaleShowsEverywhereAndTheUserCanOverrideIt) {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.open_stack(QString::fromStdString(scaled_stack())).is_ok());
  auto* scale = w.findChild<QLabel*>("scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_TRUE(
      scale->text().contains("pixel 0.25 x 0.25 um (ImageJ description); frame "
                             "interval 2 s (ImageJ description)"))
      << scale->text().toStdString();
  // Status bar: px and um.
  emit w.view()->pixel_hovered(10, 20, 5, true);
  bool readout = false;
  for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
    readout = readout || l->text().contains("x 10.0  y 20.0 (2.5, 5 um)  value 5");
  EXPECT_TRUE(readout);
  // Map axes in um.
  EXPECT_NE(plot_labelled(w, "x (um)"), nullptr);

  // Trajectories against time, displacement in um; the CSV has um, time and velocity.
  w.add_template({96, 96, 64, 64});
  EXPECT_EQ(w.statusBar()->currentMessage(),
            "Added template 1: 64.0 x 64.0 px at (96, 96) = 16 x 16 um at (24, 24)");
  w.add_roi_shape(dic::parse_roi_shape("rect:10,20,40,8").value());
  EXPECT_EQ(w.statusBar()->currentMessage(),
            "Added rectangle: 40.0 x 8.0 px at (10, 20) = 10 x 2 um at (2.5, 5)");
  QCustomPlot* tracks = track(w);
  ASSERT_NE(tracks, nullptr);
  EXPECT_EQ(tracks->yAxis->label(), "displacement (um): dx solid, dy dashed");
  ASSERT_GE(tracks->graphCount(), 2);
  const auto dy = tracks->graph(1)->data();
  ASSERT_EQ(dy->size(), 6);
  EXPECT_EQ(dy->at(5)->key, 10.0);                      // frame 5 at 10 s
  EXPECT_NEAR(dy->at(5)->value, 5 * 0.6 * 0.25, 0.02);  // um
  ASSERT_TRUE(w.export_tracks_csv(QString::fromStdString(path("t.csv"))).is_ok());
  const std::string csv = read(path("t.csv"));
  EXPECT_NE(csv.find("frame,template,x,y,dx,dy,zncc,x_um,y_um,dx_um,dy_um,time_s,vx_um_per_s,"
                     "vy_um_per_s\n"),
            std::string::npos)
      << csv.substr(0, 600);
  expect_track_rows(path("t.csv"));

  // The user's pixel size replaces the file's, in the label, the plots and the project.
  dic::DicOptions o = w.dic_panel()->options();
  o.pixel_size = "100nm";
  w.dic_panel()->set_options(o);
  EXPECT_TRUE(scale->text().contains("pixel 100 x 100 nm (user)")) << scale->text().toStdString();
  EXPECT_NE(plot_labelled(w, "x (nm)"), nullptr);
  EXPECT_NEAR(plot_labelled(w, "time (s)")->graph(1)->data()->at(5)->value, 5 * 0.6 * 100, 8);
  ASSERT_TRUE(w.save_project(QString::fromStdString(path("p.json"))).is_ok());
  EXPECT_NE(read(path("p.json")).find("\"pixel_size\": \"100nm\""), std::string::npos);
  MainWindow again;
  ASSERT_TRUE(again.open_project(QString::fromStdString(path("p.json"))).is_ok());
  EXPECT_TRUE(again.findChild<QLabel*>("scale")->text().contains("100 x 100 nm (user)"));
}

// Tracking a hyperstack: frame k is time point k (2 s apart), not page k (channels interleaved):
// the plot and the CSV's time_s and velocities follow the time points. Failed before: time_s 0,
// 4, 8, ... and velocities halved.
TEST_F(Units, TracksOfAHyperstackRunAgainstItsTimePoints) {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.open_stack(QString::fromStdString(two_channel_stack())).is_ok());
  ASSERT_EQ(w.frame_count(), 6);
  w.add_template({96, 96, 64, 64});
  QCustomPlot* tracks = track(w);
  ASSERT_NE(tracks, nullptr);
  ASSERT_GE(tracks->graphCount(), 2);
  ASSERT_EQ(tracks->graph(1)->data()->size(), 6);
  EXPECT_EQ(tracks->graph(1)->data()->at(5)->key, 10.0);  // time point 5 at 10 s
  ASSERT_TRUE(w.export_tracks_csv(QString::fromStdString(path("t.csv"))).is_ok());
  expect_track_rows(path("t.csv"));
}

TEST(UnitsText, TheDataCursorAddsTheUnit) {
  dic::PointResult p;
  p.x = 120, p.y = 80, p.u = 0.412, p.v = -0.25, p.zncc = 0.98;
  p.status = dic::PointStatus::converged;
  const io::ImageScale s = io::apply_user_scale({}, "0.65um", "").value();
  const QString t = point_text(p, s);
  EXPECT_TRUE(
      t.startsWith("x 120.0, y 80.0 (78, 52 um): u 0.412 px (0.2678 um), v -0.250 px "
                   "(-0.1625 um),"))
      << t.toStdString();
  EXPECT_TRUE(point_text(p).startsWith("x 120.0, y 80.0: u 0.412 px, v -0.250 px,"));
}

// A 2-channel hyperstack opens as a composite (issue 42: channel 0 only, channel 1 only through
// the DIC form): Green and Magenta, each channel with its own levels, added; a channel switched
// off drops out; without Composite the active channel shows alone; C makes channel 2 the one the
// Levels dock edits, with its own levels.
TEST_F(Units, AHyperstackShowsAsACompositeWithAChannelLutAndLevelsEach) {
  const std::string file = two_channel_stack();
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.open_stack(QString::fromStdString(file)).is_ok());
  auto* channels = w.findChild<ChannelsPanel*>();
  ASSERT_NE(channels, nullptr);
  ASSERT_EQ(channels->channels(), 2);
  EXPECT_EQ(channels->lut(0), Lut::green);
  EXPECT_EQ(channels->lut(1), Lut::magenta);
  EXPECT_TRUE(channels->composite());
  EXPECT_EQ(channels->active(), 0);
  // Each channel's frame 0 and its auto levels, read here on their own.
  std::vector<std::vector<float>> px(2);
  std::vector<Levels> levels(2);
  long cols = 0;
  for (long c = 0; c < 2; ++c) {
    io::PlaneSelection plane;
    plane.channel = c;
    auto st = io::LazyStack::open(file, io::LazyStack::kDefaultCacheBytes, plane);
    ASSERT_TRUE(st.is_ok()) << st.status().message();
    auto f = st.value()->frame(0);
    ASSERT_TRUE(f.is_ok());
    const MatrixView<const float> m = (*f.value())[0];
    cols = m.cols;
    for (Index y = 0; y < m.rows; ++y) px[c].insert(px[c].end(), m.row(y), m.row(y) + m.cols);
    levels[c] = percentile_levels(px[c]);
  }
  const auto mapped = [&](long c, std::size_t i) {
    return (px[c][i] - levels[c].black) / (levels[c].white - levels[c].black);
  };
  const auto expect_pixels = [&](bool green, bool magenta, const char* what) {
    const QImage& image = w.view()->image();
    for (const auto& [x, y] : {std::pair{10, 20}, {100, 57}, {201, 180}, {33, 240}}) {
      const std::size_t i = static_cast<std::size_t>(y * cols + x);
      const int g = green ? qGreen(lut_rgb(Lut::green, mapped(0, i))) : 0;
      const int m = magenta ? qRed(lut_rgb(Lut::magenta, mapped(1, i))) : 0;
      EXPECT_EQ(image.pixel(x, y), qRgb(m, g, m)) << what << " at " << x << "," << y;
    }
  };
  w.show_frame(0);
  expect_pixels(true, true, "composite");
  channels->set_visible(1, false);
  expect_pixels(true, false, "channel 2 off");
  channels->set_visible(1, true);
  channels->set_composite(false);
  expect_pixels(true, false, "channel 1 alone");
  channels->set_active(1);
  EXPECT_DOUBLE_EQ(w.view()->black(), levels[1].black);
  EXPECT_DOUBLE_EQ(w.view()->white(), levels[1].white);
  EXPECT_DOUBLE_EQ(w.levels_bar()->black(), levels[1].black) << "the Levels dock edits channel 2";
  expect_pixels(false, true, "channel 2 alone");
  channels->set_composite(true);
  expect_pixels(true, true, "composite, channel 2 active");
  channels->set_lut(0, Lut::cyan);
  const std::size_t i = 57 * static_cast<std::size_t>(cols) + 100;
  const int cyan = qGreen(lut_rgb(Lut::cyan, mapped(0, i)));
  const int m = qRed(lut_rgb(Lut::magenta, mapped(1, i)));
  EXPECT_EQ(w.view()->image().pixel(100, 57), qRgb(m, cyan, std::min(255, cyan + m)));
}

// The scale bar is a round length about a sixth of the view wide, in the stack's unit; the time
// stamp is the frame's time (issue 42: neither existed).
TEST(Annotations, RoundLengthsAndTimes) {
  EXPECT_DOUBLE_EQ(round_length(37), 20);
  EXPECT_DOUBLE_EQ(round_length(0.74), 0.5);
  EXPECT_DOUBLE_EQ(round_length(10), 10);
  EXPECT_DOUBLE_EQ(round_length(1.99e-3), 1e-3);
  io::ImageScale s;
  EXPECT_EQ(scale_bar(s, 2, 600).length, 0) << "no pixel size, no bar";
  s.pixel_x = s.pixel_y = 0.25;
  s.unit = "um";
  // 600 screen px at zoom 2: a sixth is 100 screen px = 50 image px = 12.5 um -> 10 um, 80 px.
  const ScaleBar bar = scale_bar(s, 2, 600);
  EXPECT_DOUBLE_EQ(bar.length, 10);
  EXPECT_DOUBLE_EQ(bar.screen_px, 80);
  EXPECT_EQ(bar.label, QString::fromUtf8("10 \u00b5m"));
  EXPECT_EQ(time_stamp(7.5), "t = 7.50 s");
  EXPECT_EQ(time_stamp(90), "t = 90.0 s");
  EXPECT_EQ(time_stamp(150), "t = 2.50 min");
  EXPECT_EQ(time_stamp(-4), "t = -4.00 s");
  EXPECT_EQ(time_stamp(9000), "t = 2.50 h");
}

// In the window: a stack with a scale shows the bar (white, bottom right) and the time of the
// frame shown; View > Scale bar and Time stamp switch them off.
TEST_F(Units, TheViewCarriesAScaleBarAndATimeStamp) {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.open_stack(QString::fromStdString(scaled_stack())).is_ok());
  w.show_frame(3);
  QApplication::processEvents();
  // White pixels in the view's bottom-right corner (the bar) and top-left (the time stamp).
  auto white_in = [&](QRect r) {
    const QImage shot = w.view()->grab().toImage();
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
      for (int x = r.left(); x <= r.right(); ++x) n += shot.pixel(x, y) == qRgb(255, 255, 255);
    return n;
  };
  const QSize v = w.view()->size();
  const QRect bar_corner(v.width() - v.width() / 4, v.height() - 60, v.width() / 4 - 1, 59);
  const QRect time_corner(0, 0, v.width() / 4, 60);
  const int bar_on = white_in(bar_corner), time_on = white_in(time_corner);
  auto* bar = w.findChild<QAction*>("scale_bar");
  auto* stamp = w.findChild<QAction*>("time_stamp");
  ASSERT_TRUE(bar && stamp);
  bar->trigger();
  stamp->trigger();
  QApplication::processEvents();
  EXPECT_GT(bar_on, 100 + white_in(bar_corner)) << "the bar's white pixels";
  EXPECT_GT(time_on, 30 + white_in(time_corner)) << "the time stamp's white pixels";
}

}  // namespace
}  // namespace xcorr::ui
