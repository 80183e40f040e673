// Opening images in the window is as honest as the command line (docs/gui.md, "Loading"): real
// files made by each test (a cut multi-page TIFF, a folder of mixed sizes, a single image, an RGB
// PNG, 8- and 16-bit stacks), the real window under the offscreen platform.
#include <gtest/gtest.h>

#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QSignalSpy>
#include <cmath>
#include <filesystem>
#include <limits>

#include "core/io/image_io.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/xcorr_cli.hpp"
#include "ui/dic_panel.hpp"
#include "ui/image_view.hpp"
#include "ui/levels_bar.hpp"
#include "ui/main_window.hpp"

namespace xcorr::ui {
namespace {

namespace fs = std::filesystem;

const std::string kSample = std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif";

// Frame k of the (16-bit) sample as a grey image file of the given type, values times `scale`.
void write_sample_frame(Index k, const std::string& file, io::PixelType type = io::PixelType::u8,
                        float scale = 1.0f / 256) {
  auto s = io::read_image_stack(kSample);
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  Stack<float> one(s.value().frames.rows(), s.value().frames.cols(), 1);
  for (Index i = 0; i < one.rows() * one.cols(); ++i)
    one.data()[i] = s.value().frames[k].data[i] * scale;
  ASSERT_TRUE(io::write_image_stack(file, one.view(), type).is_ok());
}

QMessageBox* dialog(const MainWindow& w, const char* name) {
  return w.findChild<QMessageBox*>(name);
}

class Loading : public testing::TempDirTest {};

// A stack cut inside page 3 opens with pages 0-2, and a dialog (it stays until dismissed) says
// what the command line says: the same text, naming the damage and the usable pages.
TEST_F(Loading, ACutStackOpensItsUsablePagesWithTheCliMessage) {
  fs::copy_file(kSample, path("cut.tif"));
  fs::resize_file(path("cut.tif"), fs::file_size(path("cut.tif")) * 7 / 12);
  MainWindow w;
  ASSERT_TRUE(w.open_stack(QString::fromStdString(path("cut.tif"))).is_ok());
  EXPECT_EQ(w.frame_count(), 3);
  QMessageBox* box = dialog(w, "open_problem");
  ASSERT_NE(box, nullptr) << "a dialog names the damage";
  EXPECT_TRUE(box->isVisible());
  const std::string text = box->text().toStdString();
  EXPECT_NE(text.find("corrupt or truncated"), std::string::npos) << text;
  EXPECT_NE(text.find("pages 0-2"), std::string::npos) << "the usable pages: " << text;
  const testing::CliRun cli = testing::run_xcorr("dic --quiet --reference " + path("cut.tif") +
                                                 " --step 16 --out " + path("d.csv"));
  EXPECT_EQ(cli.code, 2);
  EXPECT_NE(cli.output.find(text), std::string::npos) << "CLI: " << cli.output << "\nGUI: " << text;
  EXPECT_TRUE(w.log_text().contains("corrupt or truncated")) << "and the log keeps it";
}

// A folder whose frames differ in size is refused at open, naming both sizes; so is a list of
// files. Nothing of the previous stack is lost.
TEST_F(Loading, FramesOfAnotherSizeAreRefusedAtOpenNamingBothSizes) {
  fs::create_directory(path("mixed"));
  write_sample_frame(0, path("mixed/a.png"));
  write_sample_frame(1, path("mixed/b.png"));
  Stack<float> small(100, 120, 1);
  ASSERT_TRUE(io::write_image_stack(path("mixed/c.png"), small.view(), io::PixelType::u8).is_ok());
  MainWindow w;
  ASSERT_TRUE(w.open_stack(QString::fromStdString(kSample)).is_ok());
  const Status s = w.open_stack(QString::fromStdString(path("mixed")));
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("'c.png' is 120 x 100 px (width x height)"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("'a.png' is 256 x 256 px (width x height)"), std::string::npos)
      << s.message();
  const Status f = w.open_files(
      {QString::fromStdString(path("mixed/a.png")), QString::fromStdString(path("mixed/c.png"))});
  EXPECT_FALSE(f.is_ok());
  EXPECT_EQ(w.frame_count(), 6) << "the open stack stays";
}

// A single image opens to look at; analysis asks for the deformed image; once added, DIC runs.
// An RGB PNG opens as luminance (0.299 R + 0.587 G + 0.114 B).
TEST_F(Loading, ASingleImageOpensAndAnalysisAsksForASecond) {
  write_sample_frame(0, path("ref.png"));
  write_sample_frame(1, path("def.png"));
  MainWindow w;
  ASSERT_TRUE(w.open_stack(QString::fromStdString(path("ref.png"))).is_ok());
  EXPECT_EQ(w.frame_count(), 1);
  w.add_roi_shape(dic::parse_roi_shape("rect:60,60,120,120").value());
  EXPECT_FALSE(w.start_dic());
  ASSERT_NE(dialog(w, "needs_frames"), nullptr);
  EXPECT_TRUE(dialog(w, "needs_frames")->text().contains("ref.png"));
  ASSERT_TRUE(w.add_frames({QString::fromStdString(path("def.png"))}).is_ok());
  EXPECT_EQ(w.frame_count(), 2);
  EXPECT_EQ(w.roi().shapes.size(), 1u) << "the ROI stays";
  QSignalSpy finished(&w, &MainWindow::run_finished);
  ASSERT_TRUE(w.start_dic());
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  ASSERT_EQ(finished.count(), 1);
  EXPECT_TRUE(finished.first().first().toBool());
  const dic::DicJob job = w.project();
  EXPECT_EQ(job.reference, path("ref.png"));
  EXPECT_EQ(job.frames, std::vector<std::string>{path("def.png")});

  QImage rgb(40, 30, QImage::Format_RGB888);
  rgb.fill(QColor(200, 100, 50));
  ASSERT_TRUE(rgb.save(QString::fromStdString(path("rgb.png"))));
  ASSERT_TRUE(w.open_stack(QString::fromStdString(path("rgb.png"))).is_ok());
  EXPECT_EQ(w.frame_count(), 1);
  EXPECT_NEAR(w.levels_bar()->black(), 0.299 * 200 + 0.587 * 100 + 0.114 * 50, 1.0);
  // One chosen channel (a DIC option: saved with the project, `--channel` for the CLI).
  dic::DicOptions o = w.dic_panel()->options();
  o.channel = "blue";
  w.dic_panel()->set_options(o);
  EXPECT_EQ(w.levels_bar()->black(), 50) << "read again with the blue channel";
  EXPECT_EQ(w.project().options.channel, "blue");
}

// Levels reset to Auto for every stack: manual levels of a 16-bit stack do not carry over to an
// 8-bit one; the histogram's limits are editable and Auto brings the percentiles back.
TEST_F(Loading, LevelsResetPerStackAndAutoComesBack) {
  write_sample_frame(0, path("deep.tif"), io::PixelType::u16, 1);
  write_sample_frame(0, path("eight.tif"));
  MainWindow w;
  ASSERT_TRUE(w.open_stack(QString::fromStdString(path("deep.tif"))).is_ok());
  LevelsBar* levels = w.levels_bar();
  EXPECT_TRUE(levels->automatic());
  EXPECT_GT(levels->white(), 1000) << "16-bit values";
  emit levels->levels_edited(10000, 40000);
  EXPECT_FALSE(w.view()->auto_levels());
  EXPECT_EQ(w.view()->white(), 40000);
  ASSERT_TRUE(w.open_stack(QString::fromStdString(path("eight.tif"))).is_ok());
  EXPECT_TRUE(w.view()->auto_levels()) << "a new stack starts with auto levels";
  EXPECT_LE(w.view()->white(), 255);
  EXPECT_GT(w.view()->white(), w.view()->black());
  const double auto_white = w.view()->white();
  emit levels->levels_edited(0, 100);
  EXPECT_EQ(w.view()->white(), 100);
  emit levels->auto_requested();
  EXPECT_TRUE(w.view()->auto_levels());
  EXPECT_EQ(w.view()->white(), auto_white);
}

// Any frame of a folder can be the reference (DIC Challenge sample 14 sorts reference.tif last);
// the frame list shows it first, the project saves it, and the project reopens with it.
TEST_F(Loading, AnyFrameCanBeTheReferenceAndTheProjectKeepsIt) {
  fs::create_directory(path("s14"));
  write_sample_frame(1, path("s14/L1.tif"));
  write_sample_frame(2, path("s14/L2.tif"));
  write_sample_frame(0, path("s14/reference.tif"));
  MainWindow w;
  ASSERT_TRUE(w.open_stack(QString::fromStdString(path("s14"))).is_ok());
  EXPECT_TRUE(w.frame_list()->item(0)->text().contains("L1.tif"));
  w.add_roi_shape(dic::parse_roi_shape("rect:60,60,120,120").value());
  ASSERT_TRUE(w.use_as_reference(2).is_ok());
  EXPECT_TRUE(w.frame_list()->item(0)->text().contains("reference: reference.tif"))
      << w.frame_list()->item(0)->text().toStdString();
  EXPECT_TRUE(w.frame_list()->item(1)->text().contains("L1.tif"));
  EXPECT_TRUE(w.frame_list()->item(2)->text().contains("L2.tif"));
  EXPECT_EQ(w.roi().shapes.size(), 1u);
  ASSERT_TRUE(w.save_project(QString::fromStdString(path("p.json"))).is_ok());

  MainWindow again;
  ASSERT_TRUE(again.open_project(QString::fromStdString(path("p.json"))).is_ok());
  ASSERT_EQ(again.frame_count(), 3);
  EXPECT_TRUE(again.frame_list()->item(0)->text().contains("reference.tif"));
  EXPECT_EQ(again.project().frames,
            (std::vector<std::string>{path("s14/L1.tif"), path("s14/L2.tif")}));
  EXPECT_EQ(again.roi().shapes.size(), 1u);
  // A separate reference file goes first.
  write_sample_frame(3, path("other.png"));
  ASSERT_TRUE(again.use_reference_file(QString::fromStdString(path("other.png"))).is_ok());
  EXPECT_EQ(again.frame_count(), 4);
}

// Any page of a multi-page TIFF can be the reference: the window reopens the stack with that
// page first (the others in their order), keeps the ROI, and the project saves and reopens it.
TEST_F(Loading, AnyPageOfAMultiPageTiffCanBeTheReference) {
  MainWindow w;
  ASSERT_TRUE(w.open_stack(QString::fromStdString(kSample)).is_ok());
  w.add_roi_shape(dic::parse_roi_shape("rect:60,60,120,120").value());
  ASSERT_TRUE(w.use_as_reference(3).is_ok());  // frame 3 is page 3
  ASSERT_TRUE(w.use_as_reference(1).is_ok());  // frame 1 is now page 0
  ASSERT_EQ(w.frame_count(), 6);
  const auto row = [&w](int k) { return w.frame_list()->item(k)->text(); };
  EXPECT_TRUE(row(0).contains("page 0")) << row(0).toStdString();
  EXPECT_TRUE(row(1).contains("page 1")) << row(1).toStdString();
  ASSERT_TRUE(w.use_as_reference(4).is_ok());  // page 4
  EXPECT_TRUE(row(0).contains("reference: dic_stack.tif[page 4]")) << row(0).toStdString();
  EXPECT_TRUE(row(4).contains("page 3")) << row(4).toStdString();
  EXPECT_TRUE(row(5).contains("page 5")) << row(5).toStdString();
  EXPECT_EQ(w.roi().shapes.size(), 1u);
  EXPECT_EQ(w.project().reference_page, 4);
  ASSERT_TRUE(w.save_project(QString::fromStdString(path("p.json"))).is_ok());
  MainWindow again;
  ASSERT_TRUE(again.open_project(QString::fromStdString(path("p.json"))).is_ok());
  EXPECT_TRUE(again.frame_list()->item(0)->text().contains("page 4"));
  EXPECT_EQ(again.roi().shapes.size(), 1u);
  const Status file = again.use_reference_file(QString::fromStdString(kSample));
  EXPECT_NE(file.message().find("Use as reference"), std::string::npos) << file.message();
}

}  // namespace
}  // namespace xcorr::ui

namespace xcorr::ui {
namespace {

// Missing data is marked on open: a float stack with NaN and Inf pixels shows them in magenta,
// the frame label counts them, and the levels come from the finite pixels.
// Failed before: drawn as black or white like any value, nothing said, NaN in the levels' sort.
TEST_F(Loading, MissingPixelsAreMarkedOnOpen) {
  auto s = io::read_image_stack(kSample);
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  Stack<float> frames = std::move(s.value().frames);
  for (Index y = 40; y < 50; ++y)
    for (Index x = 60; x < 80; ++x) frames[0](y, x) = std::numeric_limits<float>::quiet_NaN();
  frames[0](5, 5) = std::numeric_limits<float>::infinity();
  const std::string file = path("holes.tif");
  ASSERT_TRUE(io::write_image_stack(file, frames.view(), io::PixelType::f32).is_ok());
  MainWindow w;
  w.resize(1200, 800);
  w.show();
  ASSERT_TRUE(w.open_stack(QString::fromStdString(file)).is_ok());
  EXPECT_EQ(w.view()->missing_pixels(), 201);
  auto* label = w.findChild<QLabel*>("frame_label");
  ASSERT_NE(label, nullptr);
  EXPECT_TRUE(label->text().contains("201 missing pixel(s) (NaN or Inf) shown in magenta"))
      << label->text().toStdString();
  const QImage& shown = w.view()->image();
  EXPECT_EQ(shown.pixel(70, 45), ImageView::kMissingColour);
  EXPECT_EQ(shown.pixel(5, 5), ImageView::kMissingColour);
  EXPECT_NE(shown.pixel(100, 100), ImageView::kMissingColour);
  EXPECT_LT(w.view()->black(), w.view()->white());
  EXPECT_TRUE(std::isfinite(w.view()->black()) && std::isfinite(w.view()->white()));
}

}  // namespace
}  // namespace xcorr::ui
