// Runs one long job off the GUI thread (QtConcurrent) with progress, ETA and cancellation; the
// outcome comes back as a queued signal, so the window stays responsive and never blocks. Jobs
// write their results into state they capture (e.g. a shared_ptr the window reads on finished).
#pragma once

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <functional>

#include "core/status.hpp"

namespace xcorr::ui {

// A job's progress hook: `done` of `total` units (fractions allowed), called as often as the job
// likes (the window is told at most 10 times a second); false means "stop now".
using JobProgress = std::function<bool(double done, double total)>;
using Job = std::function<Status(const JobProgress& progress)>;

class JobRunner : public QObject {
  Q_OBJECT
 public:
  explicit JobRunner(QObject* parent = nullptr);
  ~JobRunner() override;

  // From start() until finished() is emitted (not only while the job's thread runs: a job that
  // ended but whose outcome the window has not been told of still holds the runner).
  bool busy() const { return busy_; }
  bool start(Job job);  // false when a job is already running
  void cancel() { cancel_ = true; }

 signals:
  // ETA from the rate since the first report (units resumed from earlier runs do not count).
  void progress(double done, double total, double eta_seconds);
  void finished(const xcorr::Status& status);  // cancelled: ErrorCode::cancelled

 private:
  QFutureWatcher<Status> watcher_;
  bool busy_ = false;  // the GUI thread's only
  std::atomic<bool> cancel_{false};
  QElapsedTimer clock_;
  double first_ = -1;     // units done at the first report (the job's thread only)
  qint64 posted_ms_ = 0;  // when progress was last posted
};

}  // namespace xcorr::ui

Q_DECLARE_METATYPE(xcorr::Status)
