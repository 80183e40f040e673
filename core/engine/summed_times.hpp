// A DIC registrar whose GPU timings (last_gpu_frame_seconds, last_gpu_stage_seconds) are summed
// over its calls: read on the calling thread right after each call, since a DicSession may
// register the next frame ahead on a thread of its own while the caller goes on
// (core/dic/session.hpp). Everything else goes to the registrar it wraps.
#pragma once

#include <mutex>

#include "core/dic/frame_registrar.hpp"
#include "core/engine/engine.hpp"

namespace xcorr::engine {

class SummedTimes final : public dic::ForwardingRegistrar {
 public:
  using ForwardingRegistrar::ForwardingRegistrar;
  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions& o) override;

  // Sums over the calls so far (s): last_gpu_frame_seconds of each GPU call (0 on the CPU), and
  // the stages integer_guess, icgn, download, part_slowest, part_fastest, parts, images_wait and
  // results_host.
  double seconds() const;
  DicStages stages() const;

 private:
  mutable std::mutex lock_;
  double seconds_ = 0;
  DicStages stages_;
};

}  // namespace xcorr::engine
