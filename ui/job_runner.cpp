#include "ui/job_runner.hpp"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrent>

namespace xcorr::ui {

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<Status>();
  connect(&watcher_, &QFutureWatcher<Status>::finished, this, [this] {
    busy_ = false;
    emit finished(watcher_.result());
  });
}

JobRunner::~JobRunner() {
  cancel_ = true;
  watcher_.waitForFinished();
}

bool JobRunner::start(Job job) {
  if (busy()) return false;
  busy_ = true;
  cancel_ = false;
  first_ = -1;
  posted_ms_ = -1000;
  clock_.start();
  watcher_.setFuture(QtConcurrent::run([this, job = std::move(job)]() {
    return job([this](double done, double total) {
      const qint64 now = clock_.elapsed();
      if (first_ < 0) first_ = done;
      if (now - posted_ms_ >= 100 || done >= total) {
        posted_ms_ = now;
        const double rate = now > 0 ? (done - first_) / (static_cast<double>(now) / 1e3) : 0;
        const double eta = rate > 0 ? (total - done) / rate : -1;
        QMetaObject::invokeMethod(
            this, [this, done, total, eta] { emit progress(done, total, eta); },
            Qt::QueuedConnection);
      }
      return !cancel_.load();
    });
  }));
  return true;
}

}  // namespace xcorr::ui
