// core/batch/batch_run.hpp in a build without image support (no libtiff): batch runs
// need images, so every call says why it cannot run.
#include "core/batch/batch_run.hpp"

namespace xcorr::batch {
namespace {

Status no_images() {
  return {ErrorCode::unsupported, "this build has no image support (built without libtiff)"};
}

}  // namespace

Status validate_job(const dic::DicJob&) {
  return no_images();
}

Status validate_batch(const dic::Batch&, const std::vector<bool>&) {
  return no_images();
}

Result<io::ImageScale> stack_scale(const io::LazyStack&, const dic::DicOptions&) {
  return no_images();
}

Result<Index> count_frames(const dic::DicJob&) {
  return no_images();
}

Result<std::vector<Index>> count_batch_frames(const dic::Batch&, const std::vector<bool>&) {
  return no_images();
}

Result<JobReport> run_job(const dic::DicJob&, const RegistrarFactory&, const FrameProgress&,
                          const ResultHook&, const std::shared_ptr<io::LazyStack>&) {
  return no_images();
}

Result<std::vector<JobReport>> run_batch(const dic::Batch&, const RegistrarFactory&,
                                         const BatchHooks&, const BatchScope&) {
  return no_images();
}

void remove_partials(const dic::Batch&) {}

}  // namespace xcorr::batch
