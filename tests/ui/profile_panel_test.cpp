// The profiling panel under the offscreen platform: it loads a profile measured on the H200
// (docs/perf/runs), shows one table row per variant kernel, exports CSV; and Run profiles the
// variants this machine has (off the GUI thread) and adds their rows.
#include "ui/profile_panel.hpp"

#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/engine/engine.hpp"
#include "tests/support/temp_dir.hpp"
#include "ui/main_window.hpp"

namespace xcorr::ui {
namespace {

class Profiling : public testing::TempDirTest {};

TEST_F(Profiling, LoadsTheH200ProfileAndExportsCsv) {
  ProfilePanel panel;
  const QString json =
      QString(XCORR_SOURCE_DIR) + "/docs/perf/runs/h200-profile-one_to_many-64-x16.json";
  ASSERT_TRUE(panel.load(json).is_ok());
  ASSERT_GE(panel.rows().size(), 10u);
  bool tiled = false;
  for (const auto& r : panel.rows()) {
    if (r.variant == "gpu_tiled_4x1") {
      tiled = true;
      ASSERT_EQ(r.kernels.size(), 1u);
      EXPECT_GT(r.kernels[0].registers, 0);
      EXPECT_DOUBLE_EQ(r.kernels[0].occupancy, r.kernels[0].cuda_occupancy);
      // The model and the H200's counters, as recorded: equal shared instructions, two arrays.
      ASSERT_TRUE(r.kernels[0].smem_model.has_value());
      ASSERT_TRUE(r.kernels[0].counters.has_value());
      EXPECT_EQ(r.kernels[0].smem_model->load_instructions,
                r.kernels[0].counters->smem.load_instructions);
      EXPECT_GT(r.kernels[0].counters->achieved_occupancy, 0.0);
      EXPECT_EQ(r.kernels[0].smem_arrays.size(), 2u);
    }
  }
  EXPECT_TRUE(tiled);
  ASSERT_TRUE(panel.export_csv(QString::fromStdString(path("p.csv"))).is_ok());
  std::ifstream f(path("p.csv"));
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("gpu_tiled_4x1,gpu,"), std::string::npos);
  EXPECT_NE(text.str().find("measured_ld_wavefronts"), std::string::npos);
  // The table shows the achieved occupancy and both conflict counts of the tiled kernel.
  const auto* table = panel.findChild<QTableWidget*>();
  ASSERT_NE(table, nullptr);
  bool shown = false;
  for (int row = 0; row < table->rowCount(); ++row) {
    if (table->item(row, 0)->text() != "gpu_tiled_8x1") continue;
    shown = table->item(row, 15) != nullptr && table->item(row, 18) != nullptr &&
            table->item(row, 19) != nullptr &&
            table->item(row, 18)->data(Qt::DisplayRole).toDouble() > 0 &&
            table->item(row, 20)->text().contains("gcd 8");
  }
  EXPECT_TRUE(shown);
  EXPECT_FALSE(panel.load(QString::fromStdString(path("missing.json"))).is_ok());
}

TEST_F(Profiling, RunProfilesTheVariantsThisMachineHas) {
  ProfilePanel panel;
  QSignalSpy finished(&panel, &ProfilePanel::finished);
  ASSERT_TRUE(panel.run());  // the default problem: one_to_many 64x64 x16
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  ASSERT_EQ(finished.count(), 1);
  EXPECT_TRUE(finished.first().first().toBool());
  ASSERT_FALSE(panel.rows().empty());
  for (const auto& r : panel.rows()) {
    EXPECT_GT(r.median_ms, 0.0) << r.variant;
    EXPECT_EQ(r.rows, 64);
  }
}

// A valid-mode ZNCC peak problem: every variant that answers it is profiled (on this machine the
// CPU ones), and the rows say what was asked.
TEST_F(Profiling, RunProfilesPeakOutput) {
  ProfilePanel panel;
  auto combo = [&](const char* name) { return panel.findChild<QComboBox*>(name); };
  auto spin = [&](const char* name) { return panel.findChild<QSpinBox*>(name); };
  ASSERT_NE(combo("output"), nullptr);
  const auto pick = [&](const char* name, const char* key) {
    combo(name)->setCurrentIndex(combo(name)->findData(QString(key)));
    ASSERT_EQ(combo(name)->currentData().toString(), key);
  };
  pick("mode", "valid");
  pick("norm", "zncc");
  pick("output", "peak");
  spin("size")->setValue(40);
  spin("template")->setValue(9);
  QSignalSpy finished(&panel, &ProfilePanel::finished);
  ASSERT_TRUE(panel.run());
  for (int i = 0; i < 600 && finished.count() == 0; ++i) finished.wait(100);
  ASSERT_EQ(finished.count(), 1);
  EXPECT_TRUE(finished.first().first().toBool());
  ASSERT_FALSE(panel.rows().empty());
  for (const auto& r : panel.rows()) {
    EXPECT_EQ(r.output, "peak") << r.variant;
    EXPECT_EQ(r.norm, "zncc") << r.variant;
    EXPECT_GT(r.median_ms, 0.0) << r.variant;
  }
}

// Understandable to a scientist (issue 42): each choice is labelled with what it means (its data
// the CLI's name), the open stack's problems are offered as cases, and a machine without a GPU
// is told so plainly (it said "CUDA driver version is insufficient for CUDA runtime version").
// With XCORR_SCREENSHOTS the panel is saved as profiling-no-gpu.png.
TEST_F(Profiling, ChoicesAreLabelledTheOpenDataIsOfferedAndNoGpuIsPlain) {
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  ASSERT_TRUE(w.open_sample().is_ok());
  ProfilePanel* panel = w.profile_panel();
  for (const char* name : {"form", "mode", "norm", "output"}) {
    auto* c = panel->findChild<QComboBox*>(name);
    ASSERT_NE(c, nullptr) << name;
    for (int k = 0; k < c->count(); ++k) {
      const QString key = c->itemData(k).toString();
      EXPECT_TRUE(c->itemText(k).endsWith("(" + key + ")")) << c->itemText(k).toStdString();
      EXPECT_GT(c->itemText(k).size(), key.size() + 8) << "a label, not the bare name";
    }
  }
  auto* cases = panel->findChild<QComboBox*>("case");
  ASSERT_NE(cases, nullptr);
  ASSERT_EQ(cases->count(), 3);
  auto data = [&](const char* name) {
    return panel->findChild<QComboBox*>(name)->currentData().toString();
  };
  auto value = [&](const char* name) { return panel->findChild<QSpinBox*>(name)->value(); };
  cases->setCurrentIndex(1);  // registration: the reference against the 5 other frames
  EXPECT_TRUE(cases->currentText().contains("5 frames against the reference, 256 px"))
      << cases->currentText().toStdString();
  EXPECT_EQ(data("form"), "one_to_many");
  EXPECT_EQ(data("mode"), "full");
  EXPECT_EQ(value("size"), 256);
  EXPECT_EQ(value("m"), 5);
  cases->setCurrentIndex(2);  // DIC's guess: the 31 px subset in a 51 px window
  EXPECT_EQ(data("form"), "one_to_one");
  EXPECT_EQ(data("mode"), "valid");
  EXPECT_EQ(data("norm"), "zncc");
  EXPECT_EQ(data("output"), "peak");
  EXPECT_EQ(value("size"), 51);
  EXPECT_EQ(value("template"), 31);
  if (!engine::devices().is_ok()) {  // this machine: no GPU
    auto* note = panel->findChild<QLabel*>("no_gpu");
    ASSERT_NE(note, nullptr);
    EXPECT_TRUE(note->text().startsWith("This machine has no GPU to profile"))
        << note->text().toStdString();
    EXPECT_FALSE(note->text().contains("insufficient")) << note->text().toStdString();
    if (engine::built_with_cuda()) {
      EXPECT_TRUE(note->text().contains("no NVIDIA GPU")) << note->text().toStdString();
    }
  }
  if (const char* shots = std::getenv("XCORR_SCREENSHOTS")) {
    w.show_profile_panel();
    auto* dock = w.findChild<QDockWidget*>("profiling_dock");
    dock->setFloating(true);
    dock->resize(1300, 900);
    QApplication::processEvents();
    QTest::qWait(200);
    EXPECT_TRUE(dock->grab().save(QString(shots) + "/profiling-no-gpu.png"));
  }
}

}  // namespace
}  // namespace xcorr::ui
