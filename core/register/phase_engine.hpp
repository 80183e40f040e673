// Phase correlation of blocks of frames: the CPU implementation here (PhaseCorrelator on the
// host's threads, one frame per thread) or the CUDA one in gpu/ (gpu/phase_gpu.hpp: batched
// cuFFT, the sub-pixel search on the device), both behind this interface so that registration
// (core) uses either without depending on gpu/. The engine facade picks one for a job's
// device option (engine::make_phase_engine, handed to registration as a PhaseEngineFactory). Same
// arithmetic in both: phase_correlation.hpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/matrix.hpp"
#include "core/register/phase_correlation.hpp"
#include "core/status.hpp"

namespace xcorr::reg {

class PhaseEngine {
 public:
  virtual ~PhaseEngine() = default;
  virtual std::string device() const = 0;  // "cpu" or "gpu"
  // How many frames one measure() call should hand the engine to keep its device busy (a GPU
  // engine: its block, measured in one batch); 0: no preference (the CPU's threads take any).
  // A call with more is measured in blocks of this many, in order.
  virtual Index frames_per_call() const { return 0; }
  // The reference every later measure() without references is against; its shape is the
  // engine's.
  virtual Status set_reference(MatrixView<const float> reference) = 0;
  // The shift of each frame from the set reference, or from (*references)[k] when given (one per
  // frame, as `previous` registration needs). Each frame is measured `iterations` times: every
  // measurement after the first moves the frame's window by the shift found so far and starts
  // its search there (PhaseCorrelator::measure's `near`).
  virtual Result<std::vector<Shift>> measure(
      const std::vector<MatrixView<const float>>& frames,
      const std::vector<MatrixView<const float>>* references = nullptr) = 0;
};

// Images of `shape` px; iterations >= 1.
Result<std::unique_ptr<PhaseEngine>> make_cpu_phase_engine(Shape shape, const PhaseOptions& o,
                                                           int iterations);

// Makes the phase engine a job's `device` option ("cpu", "gpu" or "auto") asks for, for images
// of `shape` px, on the GPUs its `devices` option names ("0", "0,1", "all":
// core/device_list.hpp; several: split_phase_engine.hpp). Registration takes one from its caller
// (engine::register_engines() gives the facade's, which knows the GPU), so core/register/ needs no
// engine.
using PhaseEngineFactory = std::function<Result<std::unique_ptr<PhaseEngine>>(
    Shape shape, const PhaseOptions& o, int iterations, const std::string& device,
    const std::string& devices)>;

// The host's factory: make_cpu_phase_engine for "cpu" and "auto"; "gpu" is refused
// (unsupported), as the facade refuses it where no GPU is usable; devices are not looked at.
Result<std::unique_ptr<PhaseEngine>> cpu_phase_engines(Shape shape, const PhaseOptions& o,
                                                       int iterations, const std::string& device,
                                                       const std::string& devices);

}  // namespace xcorr::reg
