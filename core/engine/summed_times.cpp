#include "core/engine/summed_times.hpp"

#include <algorithm>

namespace xcorr::engine {

Result<const dic::FrameRegistration*> SummedTimes::register_frame(const dic::FrameInputs& in,
                                                                  const dic::DicOptions& o) {
  auto r = inner().register_frame(in, o);
  if (!r.is_ok()) return r;
  const double s = std::max(0.0, last_gpu_frame_seconds(inner()));
  const DicStages st = last_gpu_stage_seconds(inner());
  const std::lock_guard guard(lock_);
  seconds_ += s;
  stages_.integer_guess += st.integer_guess, stages_.icgn += st.icgn;
  stages_.download += st.download, stages_.part_slowest += st.part_slowest;
  stages_.part_fastest += st.part_fastest, stages_.parts += st.parts;
  stages_.images_wait += st.images_wait, stages_.results_host += st.results_host;
  return r;
}

double SummedTimes::seconds() const {
  const std::lock_guard guard(lock_);
  return seconds_;
}

DicStages SummedTimes::stages() const {
  const std::lock_guard guard(lock_);
  return stages_;
}

}  // namespace xcorr::engine
