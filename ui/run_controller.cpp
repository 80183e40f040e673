#include "ui/run_controller.hpp"

#include <utility>

namespace xcorr::ui {

RunController::RunController(QObject* parent) : QObject(parent), runner_(new JobRunner(this)) {
  connect(runner_, &JobRunner::progress, this, [this](double done, double total, double eta) {
    const int per_mille = total > 0 ? static_cast<int>(1000 * done / total) : 0;
    emit advanced(per_mille, run_.progress_text ? run_.progress_text(done, total) : tr("%p %"),
                  eta);
  });
  connect(runner_, &JobRunner::finished, this, &RunController::on_finished);
}

bool RunController::start(Run run, Job work) {
  if (runner_->busy()) return false;
  run_ = std::move(run);
  return runner_->start(std::move(work));
}

void RunController::on_finished(const Status& status) {
  emit ending(run_.name, status);
  if (!status.is_ok()) {
    emit finished(false);
    return;
  }
  if (run_.done) run_.done();
  emit finished(true);
}

}  // namespace xcorr::ui
