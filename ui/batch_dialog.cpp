#include "ui/batch_dialog.hpp"

#include <QCheckBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMetaObject>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cstdio>
#include <filesystem>

#include "core/batch/batch_run.hpp"
#include "core/dic/result_writers.hpp"
#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "core/io/image_metadata.hpp"
#include "core/register/job.hpp"
#include "core/register/options.hpp"
#include "ui/job_runner.hpp"
#include "ui/qt_text.hpp"
#include "ui/window_settings.hpp"

namespace xcorr::ui {
namespace fs = std::filesystem;
namespace {

// A stack's path as jobs hold it: absolute, normalised, no trailing separator.
std::string stack_path(const QString& path) {
  fs::path p = fs::absolute(path.toStdString()).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.string();
}

// A stack's name: the file name without extension, or the folder's name.
std::string stack_name(const fs::path& stack) {
  return fs::is_directory(stack) ? stack.filename().string() : stack.stem().string();
}

// "ROI rect:...; subset=31 px, step=8 px, shape=first, ..." (the settings line and the queue's
// column: the option table's summary fields; the cell's tooltip has the whole job).
std::string settings_text(const dic::DicJob& j) {
  std::string roi = j.roi.shapes.empty() ? "whole image" : "";
  for (const dic::RoiShape& s : j.roi.shapes) roi += (roi.empty() ? "" : " ") + dic::to_string(s);
  return "ROI " + roi + "; " +
         describe_fields(dic::dic_option_table(), j.options, Described::summary);
}

std::string replace_all(std::string s, const std::string& key, const std::string& value) {
  for (std::size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size()))
    s.replace(at, key.size(), value);
  return s;
}

enum Column { kName, kStatus, kStack, kOutput, kSettings, kColumns };

}  // namespace

BatchDialog::BatchDialog(std::function<dic::DicJob()> current_project, QWidget* parent)
    : QDialog(parent), current_project_(std::move(current_project)) {
  setWindowTitle(tr("Batch runs"));
  fit_to_screen(this, QSize(1100, 720));
  runner_ = new JobRunner(this);
  auto* layout = new QVBoxLayout(this);

  // Settings new jobs get.
  auto* settings_box = new QGroupBox(tr("Region set and options for new jobs"));
  auto* settings_layout = new QHBoxLayout(settings_box);
  settings_label_ = new QLabel;
  settings_label_->setWordWrap(true);
  settings_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  use_current_ = new QPushButton(tr("Use current project"));
  use_current_->setEnabled(static_cast<bool>(current_project_));
  auto* load_project = new QPushButton(tr("Load project..."));
  settings_layout->addWidget(settings_label_, 1);
  settings_layout->addWidget(use_current_);
  settings_layout->addWidget(load_project);
  layout->addWidget(settings_box);
  connect(use_current_, &QPushButton::clicked, this, [this] { use_current_project(); });
  connect(load_project, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Project or job file"), {}, tr("Projects (*.json)"));
    if (path.isEmpty()) return;
    if (const Status s = use_project_file(path); !s.is_ok())
      QMessageBox::warning(this, tr("Load project"), qs(s.message()));
  });

  // Output of new jobs.
  auto* output_box = new QGroupBox(tr("Output of new jobs"));
  auto* output_form = new QFormLayout(output_box);
  auto* folder_row = new QHBoxLayout;
  folder_ = new QLineEdit;
  folder_->setPlaceholderText(tr("beside each stack"));
  auto* browse = new QPushButton(tr("Browse..."));
  folder_row->addWidget(folder_, 1);
  folder_row->addWidget(browse);
  output_form->addRow(tr("Folder"), folder_row);
  naming_ = new QLineEdit("{stack}.csv");
  naming_->setToolTip(tr("{stack}: the stack's file or folder name; {n}: the job's number"));
  output_form->addRow(tr("Naming ({stack}, {n})"), naming_);
  per_frame_ = new QCheckBox(tr("One CSV per frame (<name>_frame0001.csv, ...)"));
  output_form->addRow(QString(), per_frame_);
  layout->addWidget(output_box);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Output folder"), folder_->text());
    if (!dir.isEmpty()) folder_->setText(dir);
  });

  // The queue.
  auto* queue_box = new QGroupBox(tr("Queue"));
  auto* queue_layout = new QVBoxLayout(queue_box);
  table_ = new QTableWidget(0, kColumns);
  table_->setHorizontalHeaderLabels(
      {tr("Job"), tr("Status"), tr("Stack"), tr("Output"), tr("Region set and options")});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setVisible(false);
  queue_layout->addWidget(table_, 1);
  auto* queue_buttons = new QHBoxLayout;
  auto* add_stacks_button = new QPushButton(tr("Add stacks..."));
  auto* add_folder = new QPushButton(tr("Add folder..."));
  auto* add_files = new QPushButton(tr("Add files as one stack..."));
  auto* add_current = new QPushButton(tr("Add current stack"));
  add_current->setEnabled(static_cast<bool>(current_project_));
  auto* add_job_file_button = new QPushButton(tr("Add job file..."));
  add_job_file_button->setToolTip(
      tr("Append the jobs of a job or batch file: a DIC job, or a register job saved by "
         "Analysis > Register stack > Save job"));
  auto* remove = new QPushButton(tr("Remove"));
  auto* load_queue_button = new QPushButton(tr("Load queue..."));
  auto* save_queue_button = new QPushButton(tr("Save queue..."));
  for (QPushButton* b :
       {add_stacks_button, add_folder, add_files, add_current, add_job_file_button, remove})
    queue_buttons->addWidget(b);
  queue_buttons->addStretch(1);
  queue_buttons->addWidget(load_queue_button);
  queue_buttons->addWidget(save_queue_button);
  queue_layout->addLayout(queue_buttons);
  layout->addWidget(queue_box, 1);
  auto warn_on_error = [this](const QString& title, const Status& s) {
    if (!s.is_ok()) QMessageBox::warning(this, title, qs(s.message()));
  };
  connect(add_stacks_button, &QPushButton::clicked, this, [this, warn_on_error] {
    const QStringList files = QFileDialog::getOpenFileNames(this, tr("Stacks (multi-page TIFF)"),
                                                            {}, tr("TIFF stacks (*.tif *.tiff)"));
    if (!files.isEmpty()) warn_on_error(tr("Add stacks"), add_stacks(files));
  });
  connect(add_folder, &QPushButton::clicked, this, [this, warn_on_error] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("A folder of images"));
    if (!dir.isEmpty()) warn_on_error(tr("Add folder"), add_stacks({dir}));
  });
  connect(add_files, &QPushButton::clicked, this, [this, warn_on_error] {
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Images, one frame each (the first is the reference)"), {},
        tr("Images (*.tif *.tiff *.png *.bmp *.jpg *.jpeg)"));
    if (!files.isEmpty()) warn_on_error(tr("Add files"), add_files_as_stack(files));
  });
  connect(add_current, &QPushButton::clicked, this,
          [this, warn_on_error] { warn_on_error(tr("Add current stack"), add_current_stack()); });
  connect(add_job_file_button, &QPushButton::clicked, this, [this, warn_on_error] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Add job file"), {}, tr("Job files (*.json)"));
    if (!path.isEmpty()) warn_on_error(tr("Add job file"), add_job_file(path));
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    const int row = table_->currentRow();
    if (row >= 0) remove_job(row);
  });
  connect(load_queue_button, &QPushButton::clicked, this, [this, warn_on_error] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Load queue"), {}, tr("Batch files (*.json)"));
    if (!path.isEmpty()) warn_on_error(tr("Load queue"), load_queue(path));
  });
  connect(save_queue_button, &QPushButton::clicked, this, [this, warn_on_error] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save queue"), "batch.json",
                                                      tr("Batch files (*.json)"));
    if (!path.isEmpty()) warn_on_error(tr("Save queue"), save_queue(path));
  });

  // Running: per-job and overall progress, Cancel, and the summary.
  auto* run_box = new QGroupBox(tr("Run"));
  auto* run_form = new QFormLayout(run_box);
  job_label_ = new QLabel(tr("Job"));
  job_progress_ = new QProgressBar;
  job_progress_->setFormat("%v / %m frames");
  run_form->addRow(job_label_, job_progress_);
  auto* overall_row = new QHBoxLayout;
  overall_progress_ = new QProgressBar;
  overall_progress_->setObjectName("overall_progress");
  overall_progress_->setFormat("%p %");
  eta_label_ = new QLabel;
  overall_row->addWidget(overall_progress_, 1);
  overall_row->addWidget(eta_label_);
  run_form->addRow(tr("All jobs"), overall_row);
  summary_ = new QPlainTextEdit;
  summary_->setReadOnly(true);
  summary_->setMaximumBlockCount(2000);
  summary_->setMinimumHeight(90);
  summary_->setPlaceholderText(
      tr("The summary of each job appears here: frames computed, "
         "resumed and failed, and the files written."));
  run_form->addRow(tr("Summary"), summary_);
  layout->addWidget(run_box);
  layout->setStretchFactor(queue_box, 3);
  layout->setStretchFactor(run_box, 1);
  auto* buttons = new QHBoxLayout;
  message_ = new QLabel;
  message_->setWordWrap(true);
  run_ = new QPushButton(tr("Run"));
  run_->setDefault(true);
  cancel_ = new QPushButton(tr("Cancel run"));
  cancel_->setEnabled(false);
  auto* close = new QPushButton(tr("Close"));
  buttons->addWidget(message_, 1);
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  buttons->addWidget(close);
  layout->addLayout(buttons);
  connect(run_, &QPushButton::clicked, this, [this] { start(); });
  connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
  connect(close, &QPushButton::clicked, this, &BatchDialog::reject);
  // Frames across the queue, fractional inside a frame; the ETA (JobRunner's) counts only the
  // work of this run, not frames resumed from an earlier one.
  connect(runner_, &JobRunner::progress, this, [this](double done, double total, double eta) {
    overall_progress_->setRange(0, static_cast<int>(100 * total));
    overall_progress_->setValue(static_cast<int>(100 * done));
    eta_label_->setText(done >= total ? QString()
                        : eta >= 0    ? tr("ETA %1 s").arg(eta, 0, 'f', 0)
                                      : tr("ETA after the first block of points"));
  });
  connect(runner_, &JobRunner::finished, this, [this](const Status& s) { on_finished(s); });

  edit_widgets_ = {settings_box, output_box, add_stacks_button, add_folder, add_files,
                   add_current,  remove,     load_queue_button, run_};
  if (current_project_) use_current_project();
  refresh_settings();
  say(tr("Queue stacks, then Run. A cancelled run continues where it stopped when run again."));
}

BatchDialog::~BatchDialog() {
  delete runner_;  // cancels and waits for a running batch while this dialog still exists
}

void BatchDialog::use_current_project() {
  if (!current_project_) return;
  settings_ = current_project_();
  settings_from_ = tr("current project");
  refresh_settings();
}

Status BatchDialog::use_project_file(const QString& path) {
  auto job = dic::read_dic_job(path.toStdString());
  if (!job.is_ok()) return job.status();
  settings_ = std::move(job).value();
  settings_from_ = QFileInfo(path).fileName();
  refresh_settings();
  return Status::ok();
}

void BatchDialog::refresh_settings() {
  settings_label_->setText(tr("From %1: %2")
                               .arg(settings_from_.isEmpty() ? tr("defaults") : settings_from_,
                                    qs(settings_text(settings_))));
}

void BatchDialog::set_output(const QString& folder, const QString& naming, bool per_frame) {
  folder_->setText(folder);
  naming_->setText(naming);
  per_frame_->setChecked(per_frame);
}

Status BatchDialog::add_job(dic::DicJob job) {
  const fs::path stack = job.reference;
  job.roi = settings_.roi;
  job.options = settings_.options;
  // The channel is the job's: a stack without the one in use is analysed on its channel 0.
  if (const io::PlaneSelection p = job.options.plane();
      !io::stack_has_plane(stack, p.channel, p.z)) {
    job.options.channel = "0";
    job.options.z = 0;
  }
  job.templates = settings_.templates;
  job.per_frame = per_frame_->isChecked();
  job.name = stack_name(stack);
  const std::string naming = naming_->text().trimmed().toStdString();
  if (naming.empty()) return {ErrorCode::invalid_argument, "the output naming is empty"};
  if (auto w = dic::writer_for(naming); !w.is_ok())
    return {ErrorCode::invalid_argument, "the output naming: " + w.status().message()};
  if (naming.find('/') != std::string::npos)
    return {ErrorCode::invalid_argument, "the output naming '" + naming + "' must be a file name"};
  char number[16];
  std::snprintf(number, sizeof number, "%02zu", queue_.jobs.size() + 1);
  const std::string file = replace_all(replace_all(naming, "{stack}", job.name), "{n}", number);
  const std::string folder_text = folder_->text().trimmed().toStdString();
  // Empty: beside the stack (a file's folder, or a folder's parent).
  const fs::path folder = folder_text.empty() ? stack.parent_path() : fs::path(folder_text);
  // A name already taken in the queue gets _2, _3, ...
  const fs::path base = folder / file;
  fs::path out = base;
  auto taken = [this](const fs::path& p) {
    for (const dic::DicJob& j : queue_.jobs)
      if (fs::path(j.out) == p) return true;
    return false;
  };
  for (int k = 2; taken(out); ++k)
    out = folder / (base.stem().string() + "_" + std::to_string(k) + base.extension().string());
  job.out = out.string();
  if (Status s = batch::validate_job(job); !s.is_ok())
    return {s.code(), "cannot queue '" + stack.string() + "': " + s.message()};
  // DIC jobs run before register jobs (run_batch's order): the rows follow it.
  job_status_.insert(job_status_.begin() + static_cast<long>(queue_.jobs.size()), tr("queued"));
  queue_.jobs.push_back(std::move(job));
  queue_.positions.clear();  // labels follow the queue's order once it is edited
  refresh_queue();
  return Status::ok();
}

Status BatchDialog::add_stacks(const QStringList& paths) {
  for (const QString& p : paths) {
    dic::DicJob job;
    job.reference = stack_path(p);
    XCORR_RETURN_IF_ERROR(add_job(std::move(job)));
  }
  return Status::ok();
}

Status BatchDialog::add_current_stack() {
  const dic::DicJob project = current_project_ ? current_project_() : dic::DicJob{};
  if (project.reference.empty())
    return {ErrorCode::invalid_argument, "the main window has no stack open"};
  if (project.frames.empty()) return add_stacks({qs(project.reference)});
  QStringList files = {qs(project.reference)};  // a list of files: the reference first
  for (const std::string& f : project.frames) files << qs(f);
  return add_files_as_stack(files);
}

Status BatchDialog::add_files_as_stack(const QStringList& files) {
  if (files.size() < 2) {
    return {ErrorCode::invalid_argument,
            "a stack of files needs at least two: the reference and a frame"};
  }
  dic::DicJob job;
  job.reference = stack_path(files[0]);
  for (qsizetype k = 1; k < files.size(); ++k) job.frames.push_back(stack_path(files[k]));
  return add_job(std::move(job));
}

void BatchDialog::remove_job(int index) {
  if (running() || index < 0 || index >= static_cast<int>(queue_.size())) return;
  const auto dic_jobs = static_cast<int>(queue_.jobs.size());
  if (index < dic_jobs)
    queue_.jobs.erase(queue_.jobs.begin() + index);
  else
    queue_.registrations.erase(queue_.registrations.begin() + (index - dic_jobs));
  queue_.positions.clear();
  job_status_.erase(job_status_.begin() + index);
  refresh_queue();
}

Status BatchDialog::save_queue(const QString& path) const {
  if (queue_.size() == 0)
    return {ErrorCode::invalid_argument, "the queue is empty: add stacks first"};
  return io::write_text_atomically(path.toStdString(), dic::to_json(queue_));
}

Status BatchDialog::load_queue(const QString& path) {
  if (running()) return {ErrorCode::invalid_argument, "a batch is running"};
  auto b = dic::read_batch(path.toStdString());
  if (!b.is_ok()) return b.status();
  queue_ = std::move(b).value();
  job_status_.assign(queue_.size(), tr("queued"));
  refresh_queue();
  say(tr("Loaded %1 job(s) from %2").arg(queue_.size()).arg(QFileInfo(path).fileName()));
  return Status::ok();
}

Status BatchDialog::add_job_file(const QString& path) {
  if (running()) return {ErrorCode::invalid_argument, "a batch is running"};
  auto b = dic::read_batch(path.toStdString());
  if (!b.is_ok()) return b.status();
  dic::Batch joined = queue_;
  joined.positions.clear();
  for (dic::DicJob& j : b.value().jobs) joined.jobs.push_back(std::move(j));
  for (reg::RegisterJob& r : b.value().registrations) joined.registrations.push_back(std::move(r));
  // The whole queue is checked as run_batch checks it (no two jobs write one file).
  if (const Status s = batch::validate_batch(joined); !s.is_ok())
    return {s.code(), "cannot add '" + path.toStdString() + "': " + s.message()};
  const std::size_t added = joined.size() - queue_.size();
  std::vector<QString> status(joined.size(), tr("queued"));
  for (std::size_t k = 0; k < queue_.jobs.size(); ++k) status[k] = job_status_[k];
  for (std::size_t r = 0; r < queue_.registrations.size(); ++r)
    status[joined.jobs.size() + r] = job_status_[queue_.jobs.size() + r];
  queue_ = std::move(joined);
  job_status_ = std::move(status);
  refresh_queue();
  say(tr("Added %1 job(s) from %2").arg(added).arg(QFileInfo(path).fileName()));
  return Status::ok();
}

void BatchDialog::refresh_queue() {
  table_->setRowCount(static_cast<int>(queue_.size()));
  const auto set_row = [this](std::size_t k, QString cells[kColumns], QString tips[kColumns]) {
    cells[kName] = tips[kName] = qs(dic::job_label(queue_, k));
    cells[kStatus] = tips[kStatus] = job_status_[k];
    for (int c = 0; c < kColumns; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setToolTip(tips[c]);
      table_->setItem(static_cast<int>(k), c, item);
    }
  };
  for (std::size_t k = 0; k < queue_.jobs.size(); ++k) {
    const dic::DicJob& j = queue_.jobs[k];
    // Paths shown by name (the table stays readable); the tooltips give them in full.
    std::string stack = fs::path(j.reference).filename().string();
    if (!j.frames.empty()) stack += " + " + std::to_string(j.frames.size()) + " frame file(s)";
    std::string stack_tip = j.reference;
    for (const std::string& f : j.frames) stack_tip += "\n" + f;
    const std::string out =
        fs::path(j.out).filename().string() + (j.per_frame ? " (per frame)" : "");
    QString cells[kColumns], tips[kColumns];
    cells[kStack] = qs(stack);
    tips[kStack] = qs(stack_tip);
    cells[kOutput] = qs(out);
    tips[kOutput] = qs(j.out);
    cells[kSettings] = qs(settings_text(j));
    tips[kSettings] = qs(dic::to_json(j));
    set_row(k, cells, tips);
  }
  for (std::size_t r = 0; r < queue_.registrations.size(); ++r) {
    const reg::RegisterJob& j = queue_.registrations[r];
    std::string out, out_tip;
    for (const std::string& f : {j.out, j.drift}) {
      if (f.empty()) continue;
      out += (out.empty() ? "" : " + ") + fs::path(f).filename().string();
      out_tip += (out_tip.empty() ? "" : "\n") + f;
    }
    QString cells[kColumns], tips[kColumns];
    cells[kStack] = qs(fs::path(j.stack).filename().string());
    tips[kStack] = qs(j.stack);
    cells[kOutput] = qs(out);
    tips[kOutput] = qs(out_tip);
    cells[kSettings] = qs("register: " + describe_fields(reg::register_option_table(), j.options));
    tips[kSettings] = qs(reg::to_json(j));
    set_row(queue_.jobs.size() + r, cells, tips);
  }
  table_->resizeColumnsToContents();
  run_->setEnabled(queue_.size() > 0 && !running());
}

void BatchDialog::set_job_status(int index, const QString& text) {
  if (index < 0 || index >= static_cast<int>(job_status_.size())) return;
  job_status_[static_cast<std::size_t>(index)] = text;
  if (QTableWidgetItem* item = table_->item(index, kStatus)) {
    item->setText(text);
    item->setToolTip(text);
    table_->resizeColumnToContents(kStatus);
  }
}

bool BatchDialog::running() const {
  return runner_->busy();
}

QString BatchDialog::message() const {
  return message_->text();
}

QString BatchDialog::job_status(int index) const {
  return index >= 0 && index < static_cast<int>(job_status_.size())
             ? job_status_[static_cast<std::size_t>(index)]
             : QString();
}

void BatchDialog::say(const QString& text) {
  message_->setText(text);
}

bool BatchDialog::start() {
  if (running()) return false;
  if (queue_.size() == 0) {
    say(tr("The queue is empty: add stacks first"));
    return false;
  }
  if (const Status s = batch::validate_batch(queue_); !s.is_ok()) {
    say(tr("Not started: %1").arg(qs(s.message())));
    return false;
  }
  auto queue = std::make_shared<const dic::Batch>(queue_);
  auto reports = std::make_shared<std::vector<batch::JobReport>>();
  reports_out_ = reports;
  reports_.clear();
  summary_->clear();
  for (int k = 0; k < static_cast<int>(queue_.size()); ++k) set_job_status(k, tr("queued"));
  // The worker posts per-job progress to this dialog; JobRunner reports the overall frames.
  auto post = [this](std::function<void()> f) {
    QMetaObject::invokeMethod(this, std::move(f), Qt::QueuedConnection);
  };
  const bool started = runner_->start([this, queue, reports, post](const JobProgress& overall) {
    std::vector<Index> frames, before;  // of each job, and of the jobs before it
    Index total = 0;
    batch::BatchHooks hooks;
    hooks.started = [&](const std::vector<Index>& counts) {
      frames = counts;
      for (Index n : counts) {
        before.push_back(total);
        total += n;
      }
    };
    hooks.job_started = [&](std::size_t k) {
      const Index n = frames[k];
      const std::string& job_name = k < queue->jobs.size()
                                        ? queue->jobs[k].name
                                        : queue->registrations[k - queue->jobs.size()].name;
      post([this, row = static_cast<int>(k), name = qs(job_name), n, jobs = queue->size()] {
        job_label_->setText(tr("Job %1 of %2").arg(row + 1).arg(jobs));
        job_progress_->setFormat(name.isEmpty() ? tr("%1 frames").arg(n)
                                                : tr("%1: %2 frames").arg(name).arg(n));
        job_progress_->setRange(0, static_cast<int>(100 * n));
        job_progress_->setValue(0);
        set_job_status(row, tr("running"));
      });
    };
    QElapsedTimer posted;  // the job's row and bar are told at most 10 times a second
    posted.start();
    hooks.frame = [&](std::size_t k, double done, Index n) {
      if (posted.elapsed() >= 100 || done >= static_cast<double>(n)) {
        posted.restart();
        post([this, row = static_cast<int>(k), done, n] {
          job_progress_->setValue(static_cast<int>(100 * done));
          set_job_status(row, tr("frame %1/%2").arg(done, 0, 'f', 1).arg(n));
        });
      }
      return overall(static_cast<double>(before[k]) + done, static_cast<double>(total));
    };
    hooks.job_done = [&](std::size_t k, const batch::JobReport& report) {
      reports->push_back(report);
      post([this, row = static_cast<int>(k), report, label = dic::job_label(*queue, k)] {
        set_job_status(
            row, report.failed.empty()
                     ? tr("done: %1 computed, %2 resumed").arg(report.computed).arg(report.resumed)
                     : tr("done with %1 failed frame(s)").arg(report.failed.size()));
        for (const std::string& line : batch::summary_lines(label, report))
          summary_->appendPlainText(qs(line));
      });
    };
    auto r = batch::run_batch(*queue, engine::make_dic_registrar, hooks);
    if (!r.is_ok()) {  // the job that stopped: the first without a report
      post([this, row = static_cast<int>(reports->size()), s = r.status()] {
        set_job_status(row, s.code() == ErrorCode::cancelled
                                ? tr("cancelled (committed frames kept)")
                                : tr("error: %1").arg(qs(s.message())));
      });
    }
    return r.status();
  });
  if (!started) return false;
  set_running(true);
  say(tr("Running %1 job(s)...").arg(queue_.size()));
  return true;
}

void BatchDialog::cancel() {
  if (running()) {
    runner_->cancel();
    say(tr("Cancelling..."));
  }
}

void BatchDialog::set_running(bool on) {
  for (QWidget* w : edit_widgets_) w->setEnabled(!on);
  cancel_->setEnabled(on);
  if (!on) run_->setEnabled(queue_.size() > 0);
}

void BatchDialog::on_finished(const Status& status) {
  set_running(false);
  reports_ = reports_out_ ? *reports_out_ : std::vector<batch::JobReport>{};
  std::size_t failed = 0;
  for (const batch::JobReport& r : reports_) failed += r.failed.size();
  if (status.code() == ErrorCode::cancelled) {
    say(tr("Cancelled. Finished frames are kept: Run again to continue where it stopped."));
  } else if (!status.is_ok()) {
    say(tr("Stopped: %1").arg(qs(status.message())));
  } else if (failed > 0) {
    say(tr("Done: %1 job(s), %2 frame(s) failed (listed in the summary); the others are written")
            .arg(reports_.size())
            .arg(failed));
  } else {
    say(tr("Done: %1 job(s), every frame written").arg(reports_.size()));
  }
  emit batch_finished(status);
  if (close_when_done_) {
    close_when_done_ = false;
    QDialog::reject();
  }
}

void BatchDialog::reject() {
  if (running()) {
    close_when_done_ = true;
    cancel();
    return;
  }
  QDialog::reject();
}

}  // namespace xcorr::ui
