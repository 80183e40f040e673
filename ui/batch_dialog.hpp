// The batch dialog (File > Batch runs...): a queue of DIC jobs built from stacks (multi-page TIFF
// files, folders of images, or a list of files taken as one stack). Each job gets the region set
// and options it was queued with (the current project's or a saved project's) and writes its CSV
// into the output folder under the naming pattern. The queue saves and loads as a batch file
// (docs/batch.md) that `xcorr run` executes headless. Run executes it here, off the GUI thread,
// with progress per job and overall, and Cancel. Both go through batch::validate_batch and
// batch::run_job, so their CSV files are byte-identical and a cancelled queue resumes where it
// stopped when run again.
// The public methods are what the buttons call; tests and --batch drive them directly.
#pragma once

#include <QDialog>
#include <QElapsedTimer>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <vector>

#include "core/batch/batch_file.hpp"
#include "core/batch/report.hpp"
#include "core/status.hpp"
#include "ui/job_runner.hpp"  // also declares Status as a Qt metatype, for batch_finished

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace xcorr::ui {

class BatchDialog : public QDialog {
  Q_OBJECT
 public:
  // `current_project` returns the main window's project (stack, ROI, options, templates); it may
  // be empty (then "Use current project" is off).
  explicit BatchDialog(std::function<dic::DicJob()> current_project = {},
                       QWidget* parent = nullptr);
  ~BatchDialog() override;

  // The region set and options new jobs are queued with.
  void use_current_project();
  Status use_project_file(const QString& path);  // a saved project or job file
  const dic::DicJob& settings() const { return settings_; }

  // Where new jobs write: `folder` (empty: beside each stack) / `naming`, where {stack} is the
  // stack's file or folder name without extension and {n} the job's number in the queue; the
  // name must end in an extension of a result writer (core/dic/result_writers.hpp). Checked when
  // jobs are added.
  void set_output(const QString& folder, const QString& naming, bool per_frame = false);

  // Each path (a multi-page TIFF or a folder of images) is one job: its first image is the
  // reference, the others the frames.
  Status add_stacks(const QStringList& paths);
  Status add_current_stack();                           // the stack open in the main window
  Status add_files_as_stack(const QStringList& files);  // one job: the first file is the reference
  void remove_job(int index);
  const dic::Batch& queue() const { return queue_; }
  Status save_queue(const QString& path) const;  // a batch file `xcorr run` executes
  Status load_queue(const QString& path);        // replaces the queue
  // Appends the DIC and register jobs of a job or batch file (checked with the queue).
  Status add_job_file(const QString& path);

  bool start();  // validates the whole queue first; false (reason in message()) when it cannot
  void cancel();
  bool running() const;
  // The last run's reports, one per finished job, and the status line.
  const std::vector<batch::JobReport>& reports() const { return reports_; }
  QString message() const;
  QString job_status(int index) const;  // the queue table's status cell

  void reject() override;  // Close while running cancels first (committed frames are kept)

 signals:
  void batch_finished(const xcorr::Status& status);

 private:
  Status add_job(dic::DicJob job);  // job.reference is the stack; settings and output applied
  void refresh_queue();
  void refresh_settings();
  void set_job_status(int index, const QString& text);
  void set_running(bool on);
  void on_finished(const Status& status);
  void say(const QString& text);

  std::function<dic::DicJob()> current_project_;
  dic::DicJob settings_;
  QString settings_from_;
  dic::Batch queue_;
  std::vector<QString> job_status_;
  std::vector<batch::JobReport> reports_;
  std::shared_ptr<std::vector<batch::JobReport>> reports_out_;  // filled by the running job
  bool close_when_done_ = false;

  JobRunner* runner_;
  QLabel *settings_label_, *message_, *job_label_, *eta_label_;
  QLineEdit *folder_, *naming_;
  QCheckBox* per_frame_;
  QTableWidget* table_;
  QProgressBar *job_progress_, *overall_progress_;
  QPlainTextEdit* summary_;
  QPushButton *use_current_, *run_, *cancel_;
  std::vector<QWidget*> edit_widgets_;  // disabled while a run goes
};

}  // namespace xcorr::ui
