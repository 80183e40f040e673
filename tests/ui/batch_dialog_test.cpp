// The batch dialog under the offscreen platform, driven through its public actions (what its
// buttons call) on real image files: queue a multi-page TIFF, a folder of images and a list of
// files with the settings of a saved project, save the queue, run it in the dialog and compare
// every CSV byte for byte with `xcorr run` (the real CLI) on the same queue; Cancel then Run
// again resumes to the uninterrupted CSV; bad input is refused with the problem named.
#include "ui/batch_dialog.hpp"

#include <gtest/gtest.h>

#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/image_io.hpp"
#include "tests/support/temp_dir.hpp"
#include "ui/dic_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/register_dialog.hpp"

namespace xcorr::ui {
namespace {

namespace fs = std::filesystem;
const std::string kSample = std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif";

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

QString q(const fs::path& p) {
  return QString::fromStdString(p.string());
}

// Runs the dialog's queue to the end; the status it finished with.
Status run_to_end(BatchDialog& d) {
  QSignalSpy finished(&d, &BatchDialog::batch_finished);
  if (!d.start()) return {ErrorCode::invalid_argument, d.message().toStdString()};
  for (int i = 0; i < 1200 && finished.count() == 0; ++i) finished.wait(100);
  if (finished.count() == 0 || d.running()) return {ErrorCode::internal, "the batch did not end"};
  return finished.first().first().value<Status>();
}

class Batch : public testing::TempDirTest {
 protected:
  // A saved project (a DIC job file) whose region set and options the jobs take.
  fs::path project(const std::string& roi, int step) const {
    dic::DicJob j;
    j.reference = kSample;
    j.roi.shapes.push_back(dic::parse_roi_shape(roi).value());
    j.options.step = step;
    j.options.strain = dic::StrainKind::engineering;
    j.out = path("project.csv");
    const fs::path file = path("project.json");
    std::ofstream(file) << dic::to_json(j);
    return file;
  }
  // The sample's pages as single files in `folder`: f0.tif (the reference) ... f5.tif.
  std::vector<fs::path> frame_files(const std::string& folder) const {
    auto stack = io::read_image_stack(kSample);
    EXPECT_TRUE(stack.is_ok());
    const fs::path dir = dir_ / folder;
    fs::create_directories(dir);
    std::vector<fs::path> files;
    for (Index k = 0; k < stack.value().frames.count(); ++k) {
      const auto all = stack.value().frames.view();
      const StackView<const float> one{all[k].data, all.rows,       all.cols,
                                       1,           all.row_stride, all.matrix_stride};
      files.push_back(dir / ("f" + std::to_string(k) + ".tif"));
      EXPECT_TRUE(io::write_image_stack(files.back(), one, io::PixelType::u16).is_ok());
    }
    return files;
  }
  // The same three stacks queued in `d` writing into `out`.
  void queue_three(BatchDialog& d, const fs::path& out, const std::vector<fs::path>& files) {
    fs::create_directories(out);
    ASSERT_TRUE(d.use_project_file(q(path("project.json"))).is_ok());
    d.set_output(q(out), "{n}_{stack}.csv");
    ASSERT_TRUE(d.add_stacks({q(kSample), q(dir_ / "folder")}).is_ok());
    QStringList list;
    for (const fs::path& f : files) list << q(f);
    const Status s = d.add_files_as_stack(list);
    ASSERT_TRUE(s.is_ok()) << s.message();
  }
};

TEST_F(Batch, RunsTheQueueInTheDialogToTheCsvOfXcorrRun) {
  project("ellipse:127.5,127.5,100,90", 12);
  const std::vector<fs::path> files = frame_files("folder");  // f0 (reference) ... f5
  BatchDialog gui;
  gui.show();
  queue_three(gui, dir_ / "gui", files);
  ASSERT_EQ(gui.queue().jobs.size(), 3u);
  EXPECT_EQ(gui.queue().jobs[0].out, (dir_ / "gui" / "01_dic_stack.csv").string());
  EXPECT_EQ(gui.queue().jobs[1].out, (dir_ / "gui" / "02_folder.csv").string());
  EXPECT_EQ(gui.queue().jobs[2].out, (dir_ / "gui" / "03_f0.csv").string());
  EXPECT_EQ(gui.queue().jobs[2].frames.size(), 5u);
  EXPECT_EQ(gui.queue().jobs[1].options.step, 12);
  EXPECT_EQ(gui.queue().jobs[1].options.strain, dic::StrainKind::engineering);
  ASSERT_EQ(gui.queue().jobs[1].roi.shapes.size(), 1u);
  ASSERT_TRUE(gui.save_queue(q(path("gui.json"))).is_ok());

  const Status s = run_to_end(gui);
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(gui.reports().size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(gui.reports()[static_cast<std::size_t>(k)].computed, 5);
    EXPECT_TRUE(gui.job_status(k).startsWith("done")) << gui.job_status(k).toStdString();
  }
  EXPECT_TRUE(gui.message().startsWith("Done")) << gui.message().toStdString();

  // The saved queue loads back as it was saved.
  BatchDialog loaded;
  ASSERT_TRUE(loaded.load_queue(q(path("gui.json"))).is_ok());
  EXPECT_EQ(dic::to_json(loaded.queue()), dic::to_json(gui.queue()));

  // `xcorr run` on the same queue (written elsewhere) gives the same bytes.
  BatchDialog cli;
  queue_three(cli, dir_ / "cli", files);
  ASSERT_TRUE(cli.save_queue(q(path("cli.json"))).is_ok());
  const std::string command = std::string(XCORR_EXE) + " run --quiet " + path("cli.json");
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  for (const char* name : {"01_dic_stack.csv", "02_folder.csv", "03_f0.csv"}) {
    const std::string a = read(dir_ / "gui" / name), b = read(dir_ / "cli" / name);
    ASSERT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, b) << name << ": the dialog's CSV differs from xcorr run's";
  }
}

TEST_F(Batch, CancelThenRunAgainResumesToTheUninterruptedCsv) {
  project("rect:40,40,180,180", 10);
  BatchDialog d;
  d.show();
  ASSERT_TRUE(d.use_project_file(q(path("project.json"))).is_ok());
  fs::create_directories(dir_ / "a");
  d.set_output(q(dir_ / "a"), "{stack}.csv");
  ASSERT_TRUE(d.add_stacks({q(kSample)}).is_ok());
  const fs::path csv = dir_ / "a" / "dic_stack.csv";

  // Cancel once frame 1 is committed: the worker stops inside the frame it is in.
  QSignalSpy finished(&d, &BatchDialog::batch_finished);
  ASSERT_TRUE(d.start());
  EXPECT_FALSE(d.start()) << "one run at a time";
  const std::string first = csv.string() + ".partial/frame_000001.bin";
  for (int i = 0; i < 6000 && !fs::exists(first) && finished.count() == 0; ++i) QTest::qWait(5);
  d.cancel();
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  ASSERT_EQ(finished.count(), 1);
  EXPECT_EQ(finished.first().first().value<Status>().code(), ErrorCode::cancelled);
  EXPECT_TRUE(d.job_status(0).startsWith("cancelled")) << d.job_status(0).toStdString();
  EXPECT_TRUE(d.message().startsWith("Cancelled")) << d.message().toStdString();
  EXPECT_FALSE(fs::exists(csv));
  Index committed = 0;
  for (int f = 1; f <= 5; ++f)
    committed += fs::exists(csv.string() + ".partial/frame_00000" + std::to_string(f) + ".bin");
  EXPECT_GE(committed, 1);
  EXPECT_LT(committed, 5) << "cancelled before the end";

  const Status s = run_to_end(d);
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(d.reports().size(), 1u);
  EXPECT_EQ(d.reports()[0].resumed, committed);
  EXPECT_EQ(d.reports()[0].computed, 5 - committed);
  EXPECT_FALSE(fs::exists(csv.string() + ".partial"));

  // Uninterrupted, headless.
  fs::create_directories(dir_ / "b");
  d.set_output(q(dir_ / "b"), "{stack}.csv");
  d.remove_job(0);
  ASSERT_TRUE(d.add_stacks({q(kSample)}).is_ok());
  ASSERT_TRUE(d.save_queue(q(path("b.json"))).is_ok());
  const std::string command = std::string(XCORR_EXE) + " run --quiet " + path("b.json");
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_EQ(read(csv), read(dir_ / "b" / "dic_stack.csv"));
}

TEST_F(Batch, ClosingWhileRunningCancelsAndKeepsTheCommittedFrames) {
  project("rect:40,40,180,180", 10);
  BatchDialog d;
  d.show();
  ASSERT_TRUE(d.use_project_file(q(path("project.json"))).is_ok());
  d.set_output(q(dir_), "{stack}.csv");
  ASSERT_TRUE(d.add_stacks({q(kSample)}).is_ok());
  QSignalSpy finished(&d, &BatchDialog::batch_finished);
  ASSERT_TRUE(d.start());
  for (int i = 0; i < 6000 && !fs::exists(path("dic_stack.csv.partial/frame_000001.bin")); ++i)
    QTest::qWait(5);
  d.reject();  // the Close button
  EXPECT_TRUE(d.isVisible()) << "stays open until the worker has stopped";
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  ASSERT_EQ(finished.count(), 1);
  EXPECT_FALSE(d.isVisible());
  EXPECT_TRUE(fs::exists(path("dic_stack.csv.partial/frame_000001.bin")));
}

TEST_F(Batch, BadInputIsRefusedWithTheProblemNamed) {
  project("rect:200,200,400,100", 10);  // reaches outside the 256 x 256 sample
  BatchDialog d;
  d.set_output(q(dir_), "{stack}.csv");
  auto expect_error = [](const Status& s, const std::string& words) {
    ASSERT_FALSE(s.is_ok()) << words;
    EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
  };
  ASSERT_TRUE(d.use_project_file(q(path("project.json"))).is_ok());
  expect_error(d.add_stacks({q(kSample)}), "reaches outside");
  expect_error(d.use_project_file(q(path("nope.json"))), "nope.json");
  project("rect:40,40,180,180", 10);
  ASSERT_TRUE(d.use_project_file(q(path("project.json"))).is_ok());
  expect_error(d.add_stacks({q(path("missing.tif"))}), "not found");
  d.set_output(q(dir_), "{stack}.txt");
  expect_error(d.add_stacks({q(kSample)}), ".csv");
  d.set_output(q(dir_ / "no_such_folder"), "{stack}.csv");
  expect_error(d.add_stacks({q(kSample)}), "does not exist");
  expect_error(d.add_files_as_stack({q(kSample)}), "at least two");
  EXPECT_TRUE(d.queue().jobs.empty()) << "nothing bad was queued";
  EXPECT_FALSE(d.start());
  EXPECT_TRUE(d.message().contains("empty"));
  expect_error(d.save_queue(q(path("empty.json"))), "empty");
  EXPECT_FALSE(fs::exists(path("empty.json")));

  // A queue file with an unknown key, and a queued image removed before Run.
  std::ofstream(path("bad.json"))
      << R"({"jobs": [{"reference": "a.tif", "out": "a.csv", "sbuset": 3}]})";
  expect_error(d.load_queue(q(path("bad.json"))), "sbuset");
  const fs::path copy = dir_ / "copy.tif";
  fs::copy_file(kSample, copy);
  d.set_output(q(dir_), "{stack}.csv");
  ASSERT_TRUE(d.add_stacks({q(copy)}).is_ok());
  fs::remove(copy);
  EXPECT_FALSE(d.start());
  EXPECT_TRUE(d.message().contains("not found")) << d.message().toStdString();
  EXPECT_TRUE(d.message().contains("job 1 ('copy')")) << d.message().toStdString();
  EXPECT_FALSE(fs::exists(path("copy.csv.partial"))) << "nothing ran";
}

// File > Batch runs: new jobs get the window's ROI and options, and its stack can be queued.
TEST_F(Batch, TheMainWindowsProjectIsTheDefaultSettings) {
  MainWindow w;
  ASSERT_TRUE(w.open_sample().is_ok());
  dic::DicOptions o = w.dic_panel()->options();
  o.step = 14;
  w.dic_panel()->set_options(o);
  BatchDialog* d = w.batch_dialog();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->settings().options.step, 14);
  EXPECT_EQ(dic::to_json(d->settings()), dic::to_json(w.project()));
  d->set_output(q(dir_), "{stack}.csv");
  const Status s = d->add_current_stack();
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(d->queue().jobs.size(), 1u);
  EXPECT_EQ(fs::path(d->queue().jobs[0].reference).filename(), "dic_stack.tif");
  EXPECT_EQ(d->queue().jobs[0].roi.shapes.size(), w.roi().shapes.size());
}

// A stack opened as a list of files is queued as that list (the reference first).
TEST_F(Batch, AddCurrentStackTakesAListOfFiles) {
  auto sample =
      io::read_image_stack(std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif");
  ASSERT_TRUE(sample.is_ok());
  QStringList files;
  for (Index k = 0; k < 3; ++k) {
    const std::string f = path("f" + std::to_string(k) + ".tif");
    StackView<const float> one = sample.value().frames.view();
    one.data += k * one.matrix_stride;
    one.count = 1;
    ASSERT_TRUE(io::write_image_stack(f, one, io::PixelType::u16).is_ok());
    files << q(f);
  }
  MainWindow w;
  ASSERT_TRUE(w.open_files(files).is_ok());
  BatchDialog* d = w.batch_dialog();
  d->set_output(q(dir_), "{stack}.csv");
  const Status s = d->add_current_stack();
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(d->queue().jobs.size(), 1u);
  EXPECT_EQ(d->queue().jobs[0].reference, path("f0.tif"));
  EXPECT_EQ(d->queue().jobs[0].frames, (std::vector<std::string>{path("f1.tif"), path("f2.tif")}));
}

// A register job saved by Analysis > Register stack joins a DIC queue (Add job file), runs after
// the DIC job, and writes what `xcorr register` writes for the same settings; a job file whose
// output a queued job already writes is refused, and so are settings that cannot run.
TEST_F(Batch, ARegisterJobFromTheRegisterDialogRunsInTheQueue) {
  project("rect:40,40,180,180", 10);
  const fs::path stack = dir_ / "drifting.tif";
  fs::copy_file(std::string(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif", stack);
  RegisterDialog r(stack.string(), std::nullopt, {});
  ASSERT_TRUE(r.save_job(q(path("register.json"))).is_ok());
  BatchDialog d;
  d.set_output(q(dir_), "{stack}.csv");
  ASSERT_TRUE(d.use_project_file(q(path("project.json"))).is_ok());
  ASSERT_TRUE(d.add_job_file(q(path("register.json"))).is_ok());
  ASSERT_TRUE(d.add_stacks({q(kSample)}).is_ok());  // DIC jobs run first: its row goes first
  ASSERT_EQ(d.queue().jobs.size(), 1u);
  ASSERT_EQ(d.queue().registrations.size(), 1u);
  EXPECT_EQ(d.queue().registrations[0].out, path("drifting_registered.tif"));
  EXPECT_EQ(d.job_status(1), "queued");
  const Status again = d.add_job_file(q(path("register.json")));
  ASSERT_FALSE(again.is_ok());
  EXPECT_NE(again.message().find("cannot add"), std::string::npos) << again.message();
  EXPECT_EQ(d.queue().registrations.size(), 1u) << "nothing half-added";

  const Status s = run_to_end(d);
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(d.reports().size(), 2u);
  EXPECT_TRUE(d.job_status(1).startsWith("done")) << d.job_status(1).toStdString();
  EXPECT_EQ(d.reports()[1].frames, 6);

  fs::create_directories(dir_ / "cli");
  const std::string command = std::string(XCORR_EXE) + " register --quiet " + stack.string() +
                              " --out " + (dir_ / "cli" / "drifting_registered.tif").string() +
                              " --drift " + (dir_ / "cli" / "drifting_drift.csv").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  for (const char* name : {"drifting_registered.tif", "drifting_drift.csv"}) {
    const std::string a = read(dir_ / name), b = read(dir_ / "cli" / name);
    ASSERT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, b) << name << ": the queue's output differs from xcorr register's";
  }

  // Settings that cannot run are not saved.
  r.findChild<QLineEdit*>("out")->setText(q(path("s.png")));
  EXPECT_FALSE(r.save_job(q(path("bad.json"))).is_ok());
  EXPECT_FALSE(fs::exists(path("bad.json")));
}

}  // namespace
}  // namespace xcorr::ui
