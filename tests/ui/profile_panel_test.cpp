// The profiling panel under the offscreen platform: it loads a profile measured on the H200
// (docs/perf/runs), shows one table row per variant kernel, exports CSV; and Run profiles the
// variants this machine has (off the GUI thread) and adds their rows.
#include "ui/profile_panel.hpp"

#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/temp_dir.hpp"

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
  combo("mode")->setCurrentText("valid");
  combo("norm")->setCurrentText("zncc");
  combo("output")->setCurrentText("peak");
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

}  // namespace
}  // namespace xcorr::ui
