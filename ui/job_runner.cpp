#include "ui/job_runner.hpp"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrent>

namespace xcorr::ui {

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<Status>();
  connect(&watcher_, &QFutureWatcher<Status>::finished, this,
          [this] { emit finished(watcher_.result()); });
}

JobRunner::~JobRunner() {
  cancel_ = true;
  watcher_.waitForFinished();
}

bool JobRunner::start(Job job) {
  if (busy()) return false;
  cancel_ = false;
  clock_.start();
  watcher_.setFuture(QtConcurrent::run([this, job = std::move(job)]() {
    return job([this](long long done, long long total) {
      const double elapsed = static_cast<double>(clock_.elapsed()) / 1e3;
      const double eta =
          done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0;
      QMetaObject::invokeMethod(
          this,
          [this, done, total, eta] {
            emit progress(static_cast<int>(done), static_cast<int>(total), eta);
          },
          Qt::QueuedConnection);
      return !cancel_.load();
    });
  }));
  return true;
}

}  // namespace xcorr::ui
