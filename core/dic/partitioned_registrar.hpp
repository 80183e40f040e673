// One frame's points registered in parts by several workers, with the results of one registrar
// bit for bit (the sharing contract of FrameRegistrar): the lead registrar resolves the frame's
// integer-guess variant once; every worker registers its contiguous part of the grid
// (split_points) with that variant and independent propagation; the parts are merged in grid
// order; the lead runs the reliability-guided waves over the merged frame.
//
// How parts reach the workers is a transport's (PartTransport): threads on the devices of one
// process (gpu/dic_multi_gpu.cpp) or the ranks of an MPI group (core/mpi/shared_job.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/dic/frame_registrar.hpp"

namespace xcorr::dic {

class PartTransport {
 public:
  virtual ~PartTransport() = default;
  // The registrar that resolves the guess variant and runs the waves, on the caller's thread
  // (it makes its own device current where it has one).
  virtual FrameRegistrar& lead() = 0;
  // Workers the next frame is split over (>= 1; may change between frames).
  virtual std::size_t workers() const = 0;
  // Registers the frame: worker k the active points of in.active within [bounds[k],
  // bounds[k + 1]) with options `part`, its results written to points[bounds[k] ..
  // bounds[k + 1]) (points has one entry per grid point); `variant`: the first worker's
  // variant. in.progress, when set, counts the lead's part in units of its own points (a
  // transport reports through it where the lead registers a part on the caller's thread).
  virtual Status register_parts(const FrameInputs& in, const DicOptions& part,
                                const std::vector<std::size_t>& bounds,
                                std::vector<IcgnResult>& points, std::string& variant) = 0;
  // FrameRegistrar::preload for every worker that keeps a frame (none by default).
  virtual void preload(MatrixView<const float> deformed, const DicOptions& o) {
    (void)deformed, (void)o;
  }
};

class PartitionedRegistrar : public FrameRegistrar {
 public:
  explicit PartitionedRegistrar(std::unique_ptr<PartTransport> transport);

  std::string device() const override;
  Result<const FrameRegistration*> register_frame(const FrameInputs& in,
                                                  const DicOptions& o) override;
  void preload(MatrixView<const float> deformed, const DicOptions& o) override {
    transport_->preload(deformed, o);
  }
  Result<std::string> guess_method(const DicOptions& o, Index rows, Index cols,
                                   Index points) const override;
  bool has_waves() const override;
  Status waves(const FrameInputs& in, const DicOptions& o,
               std::vector<IcgnResult>& points) override;

  PartTransport& transport() { return *transport_; }
  // Host wall seconds of the last frame's waves (0 when it had none).
  double last_waves_seconds() const { return waves_seconds_; }

 private:
  std::unique_ptr<PartTransport> transport_;
  FrameRegistration reg_;
  double waves_seconds_ = 0;
};

}  // namespace xcorr::dic
