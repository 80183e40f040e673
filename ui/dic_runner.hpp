// Runs DIC off the GUI thread (QtConcurrent) with progress, ETA and cancellation; results and
// errors come back as queued signals, so the window stays responsive and never blocks.
#pragma once

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <memory>

#include "core/dic/dic.hpp"

namespace xcorr::ui {

struct DicRunOutput {
  Status status;  // ok, or why not (cancelled: ErrorCode::cancelled)
  dic::DicResult result;
};

class DicRunner : public QObject {
  Q_OBJECT
 public:
  explicit DicRunner(QObject* parent = nullptr);
  ~DicRunner() override;

  bool busy() const { return watcher_.isRunning(); }
  // Copies what it needs; the registrar follows options.device (gpu::make_dic_registrar).
  // False when already running.
  bool start(const Stack<float>& reference, const Stack<float>& frames, const dic::Roi& roi,
             const dic::DicOptions& options);
  void cancel() { cancel_ = true; }
  void wait() { watcher_.waitForFinished(); }

 signals:
  void progress(int done, int total, double eta_seconds);
  void finished(const xcorr::ui::DicRunOutput& output);

 private:
  QFutureWatcher<DicRunOutput> watcher_;
  std::atomic<bool> cancel_{false};
  QElapsedTimer clock_;
};

}  // namespace xcorr::ui

Q_DECLARE_METATYPE(xcorr::ui::DicRunOutput)
