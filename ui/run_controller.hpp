// The window's runs (DIC, tracking, registration), one at a time off the GUI thread through a
// JobRunner. Each kind of run brings its own completion and the way its progress reads; the
// controller has no switch over kinds. It says when a run advances and how it ended; the window
// shows that (buttons, progress bar, messages).
#pragma once

#include <QObject>
#include <QString>
#include <functional>

#include "core/status.hpp"
#include "ui/job_runner.hpp"

namespace xcorr::ui {

class RunController : public QObject {
  Q_OBJECT

 public:
  struct Run {
    QString name;  // in messages: "DIC", "Tracking", "Registration"
    // The progress bar's text for `done` of `total` (the run's units); empty: per cent.
    std::function<QString(double done, double total)> progress_text;
    std::function<void()> done;  // after the run succeeded, on the GUI thread
  };

  explicit RunController(QObject* parent = nullptr);
  bool running() const { return runner_->busy(); }
  // Starts `work` off the GUI thread as `run`; false (nothing starts) while a run is in progress.
  bool start(Run run, Job work);
  void cancel() { runner_->cancel(); }

 signals:
  // Per mille of the run, the progress text, the ETA (seconds; negative: unknown).
  void advanced(int per_mille, const QString& text, double eta_seconds);
  // The run ended (before its completion runs): its name and status (cancelled: ErrorCode::
  // cancelled).
  void ending(const QString& name, const xcorr::Status& status);
  // After the completion of a run that succeeded (ok), or right after `ending` (not ok).
  void finished(bool ok);

 private:
  void on_finished(const Status& status);

  JobRunner* runner_;
  Run run_;
};

}  // namespace xcorr::ui
