// The profiling panel of xcorr-studio: a problem picker, Run (off the GUI thread; optionally a
// sweep of sizes), a sortable table with one row per variant kernel (timings, GFLOP/s,
// bandwidth, resources, occupancy ours/CUDA/achieved and its limiter, shared-memory wavefronts and
// bank conflicts modelled and measured, each shared array's pitch, gcd degree and padding), and
// plots: time vs size per variant on log-log axes with the direct-vs-FFT crossover marked,
// occupancy bars (theoretical beside achieved), and modelled vs measured bank conflicts. Load a
// profile JSON (`xcorr profile --out`), export the table as CSV and the plot as PNG. Without a
// GPU it profiles the CPU variants and says why the GPU columns are empty.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "core/engine/engine.hpp"
#include "ui/job_runner.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace xcorr::ui {

class ProfilePanel : public QWidget {
  Q_OBJECT
 public:
  explicit ProfilePanel(QWidget* parent = nullptr);

  bool run();  // the picked problem (or the sweep); false when busy
  // The open data's problems offered as cases: its registration (the reference against the
  // other frames, full, at the stack's smaller side) and its DIC integer guess (a subset in
  // its search window, ZNCC peak). Nothing is offered without a stack of two frames or more.
  void set_open_data(long rows, long cols, long frames, int subset, int search_radius);
  Status load(const QString& json_path);  // appends the rows of a profile JSON
  void set_rows(std::vector<engine::VariantProfile> rows);
  const std::vector<engine::VariantProfile>& rows() const { return rows_; }
  Status export_csv(const QString& path) const;
  Status export_plot(const QString& path) const;
  bool busy() const { return runner_->busy(); }
  // Shows the plot tab whose title starts with `title` ("Time", "Occupancy", "Bank"); false if
  // none.
  bool show_plot(const QString& title);

 signals:
  void finished(bool ok);

 private:
  void refresh();
  void fill_table();
  void plot_time();
  void plot_occupancy();
  void plot_conflicts();
  std::vector<engine::VariantProfile> rows_;
  JobRunner* runner_;
  std::shared_ptr<std::vector<engine::VariantProfile>> pending_;
  QComboBox *form_, *mode_, *norm_, *output_, *case_;
  struct DataCase {
    const char *form, *mode, *norm, *output;
    int size, template_size, n, m;
  };
  std::vector<DataCase> cases_;  // case_'s items after the first
  QSpinBox *size_, *template_, *n_, *m_, *repeats_;
  QCheckBox *sweep_, *counters_;
  QPushButton* run_;
  QLabel* note_;
  QTableWidget* table_;
  QTabWidget* plots_;
  QCustomPlot *time_plot_, *occupancy_plot_, *conflict_plot_;
};

}  // namespace xcorr::ui
