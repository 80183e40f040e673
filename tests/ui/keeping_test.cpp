// Keeping work (docs/gui.md): results are saved with the project and come back bit for bit when it
// is reopened (maps and tracks, without computing); unsaved results make Quit, closing and
// opening ask first; results of other images are not loaded.
#include <gtest/gtest.h>

#include <QMessageBox>
#include <QSignalSpy>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/io/image_io.hpp"
#include "tests/support/sample_files.hpp"
#include "tests/support/temp_dir.hpp"
#include "ui/dic_panel.hpp"
#include "ui/main_window.hpp"

namespace xcorr::ui {
namespace {

namespace fs = std::filesystem;

bool run(MainWindow& w, bool tracking) {
  QSignalSpy finished(&w, &MainWindow::run_finished);
  if (!(tracking ? w.start_tracking() : w.start_dic())) return false;
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  return finished.count() == 1 && finished.first().first().toBool();
}

class Keeping : public testing::TempDirTest {};

TEST_F(Keeping, AReopenedProjectShowsItsResultsWithoutComputing) {
  const std::string stack = path("stack.tif");
  fs::copy_file(std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif", stack);
  MainWindow w;
  ASSERT_TRUE(w.open_stack(QString::fromStdString(stack)).is_ok());
  w.add_roi_shape(dic::parse_roi_shape("ellipse:127.5,127.5,110,100").value());
  dic::DicOptions o = w.dic_panel()->options();
  o.step = 12;
  w.dic_panel()->set_options(o);
  ASSERT_TRUE(run(w, false));
  w.add_template({96, 96, 48, 48});
  ASSERT_TRUE(run(w, true));
  EXPECT_TRUE(w.unsaved_results());
  ASSERT_TRUE(w.save_project(QString::fromStdString(path("p.json"))).is_ok());
  EXPECT_FALSE(w.unsaved_results());
  EXPECT_TRUE(fs::exists(path("p.results")));
  ASSERT_TRUE(w.export_csv(QString::fromStdString(path("first.csv"))).is_ok());

  MainWindow again;
  ASSERT_TRUE(again.open_project(QString::fromStdString(path("p.json"))).is_ok());
  ASSERT_TRUE(again.has_results()) << again.log_text().toStdString();
  ASSERT_EQ(again.results()->frames.size(), w.results()->frames.size());
  for (std::size_t f = 0; f < w.results()->frames.size(); ++f) {
    const auto& a = w.results()->frames[f].points;
    const auto& b = again.results()->frames[f].points;
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].status, b[k].status);
      if (a[k].status == dic::PointStatus::converged) {
        EXPECT_EQ(a[k].u, b[k].u);  // bit for bit
        EXPECT_EQ(a[k].exy, b[k].exy);
      }
    }
  }
  ASSERT_EQ(again.tracks().size(), 1u);
  EXPECT_EQ(again.tracks()[0].x, w.tracks()[0].x);
  ASSERT_TRUE(again.export_csv(QString::fromStdString(path("again.csv"))).is_ok());
  EXPECT_EQ(testing::read_bytes(path("first.csv")), testing::read_bytes(path("again.csv")));
  EXPECT_FALSE(again.unsaved_results());

  // Results of other images are not loaded: the message names the file.
  auto sample = io::read_image_stack(stack);
  ASSERT_TRUE(sample.is_ok());
  StackView<const float> three = sample.value().frames.view();
  three.count = 3;
  ASSERT_TRUE(io::write_image_stack(stack, three, io::PixelType::u16).is_ok());
  MainWindow changed;
  ASSERT_TRUE(changed.open_project(QString::fromStdString(path("p.json"))).is_ok());
  EXPECT_FALSE(changed.has_results());
  auto* box = changed.findChild<QMessageBox*>("results_problem");
  ASSERT_NE(box, nullptr);
  EXPECT_TRUE(box->text().contains("other images")) << box->text().toStdString();
}

TEST_F(Keeping, UnsavedResultsAskBeforeTheyAreLost) {
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  EXPECT_TRUE(w.keep_or_discard()) << "nothing to lose: no question";
  dic::DicOptions o = w.dic_panel()->options();
  o.step = 16;
  w.dic_panel()->set_options(o);
  ASSERT_TRUE(run(w, false));
  int asked = 0;
  w.set_question_for_tests([&](const QString&) {
    ++asked;
    return static_cast<int>(QMessageBox::Cancel);
  });
  EXPECT_FALSE(w.close()) << "Cancel keeps the window";
  EXPECT_TRUE(w.isVisible());
  EXPECT_EQ(asked, 1);
  w.set_question_for_tests([&](const QString&) {
    ++asked;
    return static_cast<int>(QMessageBox::Save);
  });
  ASSERT_TRUE(w.save_project(QString::fromStdString(path("p.json"))).is_ok());
  EXPECT_TRUE(w.keep_or_discard()) << "saved: no question";
  EXPECT_EQ(asked, 1);
  ASSERT_TRUE(run(w, false));
  EXPECT_TRUE(w.keep_or_discard()) << "Save writes the known project";
  EXPECT_EQ(asked, 2);
  EXPECT_FALSE(w.unsaved_results());
  ASSERT_TRUE(run(w, false));
  w.set_question_for_tests([&](const QString&) { return static_cast<int>(QMessageBox::Discard); });
  EXPECT_TRUE(w.close());
}

// Closing during a run is not refused: the run is cancelled inside its frame and the window goes.
TEST_F(Keeping, ClosingDuringARunCancelsIt) {
  auto w = std::make_unique<MainWindow>();
  w->show();
  ASSERT_TRUE(w->open_sample().is_ok());
  dic::DicOptions o = w->dic_panel()->options();
  o.step = 1;
  w->dic_panel()->set_options(o);
  ASSERT_TRUE(w->start_dic());
  EXPECT_TRUE(w->running());
  EXPECT_TRUE(w->close());
  w.reset();  // waits for the cancelled run
}

}  // namespace
}  // namespace xcorr::ui
