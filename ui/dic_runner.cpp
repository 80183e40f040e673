#include "ui/dic_runner.hpp"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrent>

#include "gpu/dic_gpu.hpp"

namespace xcorr::ui {

DicRunner::DicRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<DicRunOutput>();
  connect(&watcher_, &QFutureWatcher<DicRunOutput>::finished, this,
          [this] { emit finished(watcher_.result()); });
}

DicRunner::~DicRunner() {
  cancel_ = true;
  watcher_.waitForFinished();
}

bool DicRunner::start(const Stack<float>& reference, const Stack<float>& frames,
                      const dic::Roi& roi, const dic::DicOptions& options) {
  if (busy()) return false;
  cancel_ = false;
  clock_.start();
  auto ref = std::make_shared<Stack<float>>(reference);
  auto fr = std::make_shared<Stack<float>>(frames);
  watcher_.setFuture(QtConcurrent::run([this, ref, fr, roi, options]() {
    DicRunOutput out;
    auto registrar = gpu::make_dic_registrar(options);
    if (!registrar.is_ok()) {
      out.status = registrar.status();
      return out;
    }
    auto r = dic::run_dic(
        *registrar.value(), (*ref)[0], fr->view(), roi, options, [this](Index done, Index total) {
          const double elapsed = static_cast<double>(clock_.elapsed()) / 1e3;
          const double eta =
              elapsed / static_cast<double>(done) * static_cast<double>(total - done);
          QMetaObject::invokeMethod(
              this,
              [this, done, total, eta] {
                emit progress(static_cast<int>(done), static_cast<int>(total), eta);
              },
              Qt::QueuedConnection);
          return !cancel_.load();
        });
    if (r.is_ok())
      out.result = std::move(r).value();
    else
      out.status = r.status();
    return out;
  }));
  return true;
}

}  // namespace xcorr::ui
