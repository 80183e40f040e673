// A DIC registrar whose GPU timings (last_gpu_frame_seconds, last_gpu_stage_seconds) are summed
// over its calls: read on the calling thread right after each call, since a DicSession may
// register the next frame ahead on a thread of its own while the caller goes on
// (core/dic/session.hpp). Everything else goes to the registrar it wraps.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/dic/frame_registrar.hpp"
#include "core/engine/engine.hpp"

namespace xcorr::engine {

class SummedTimes final : public dic::FrameRegistrar {
 public:
  explicit SummedTimes(dic::FrameRegistrar& inner) : inner_(inner) {}
  std::string device() const override { return inner_.device(); }
  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions& o) override;
  void preload(MatrixView<const float> deformed, const dic::DicOptions& o) override {
    inner_.preload(deformed, o);
  }
  bool may_run_ahead() const override { return inner_.may_run_ahead(); }
  Result<std::string> guess_method(const dic::DicOptions& o, Index rows, Index cols,
                                   Index points) const override {
    return inner_.guess_method(o, rows, cols, points);
  }
  bool has_waves() const override { return inner_.has_waves(); }
  Status waves(const dic::FrameInputs& in, const dic::DicOptions& o,
               std::vector<dic::IcgnResult>& points) override {
    return inner_.waves(in, o, points);
  }

  // Sums over the calls so far (s): last_gpu_frame_seconds of each GPU call (0 on the CPU), and
  // the stages integer_guess, icgn, download, part_slowest, part_fastest, parts, images_wait and
  // results_host.
  double seconds() const;
  DicStages stages() const;

 private:
  dic::FrameRegistrar& inner_;
  mutable std::mutex lock_;
  double seconds_ = 0;
  DicStages stages_;
};

}  // namespace xcorr::engine
