// 3-D phase correlation of blocks of volumes: the CPU implementation here (VolumeCorrelator on
// the host's threads, one volume per thread) or the CUDA one in gpu/ (gpu/volume_gpu.hpp:
// batched 3-D cuFFT, the sub-voxel search on the device), behind one interface so that
// register_volumes (core) uses either without depending on gpu/. Same arithmetic in both:
// phase_volume.hpp (the measurement repeated with the window moved by the shift found, up to 6
// times, until the shift changes by less than 1/200 voxel).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/register/phase_volume.hpp"

namespace xcorr::reg {

class VolumeEngine {
 public:
  virtual ~VolumeEngine() = default;
  virtual std::string device() const = 0;  // "cpu" or "gpu"
  // The reference every later measure() without references is against: shape() voxels.
  virtual Status set_reference(const float* reference) = 0;
  // The shift of each volume (shape() voxels, contiguous) from the set reference, or from
  // (*references)[k] when given (one per volume, as `previous` registration needs).
  virtual Result<std::vector<Shift3>> measure(
      const std::vector<const float*>& volumes,
      const std::vector<const float*>* references = nullptr) = 0;
};

// Volumes of `shape` voxels (each side >= 2); upsample >= 1.
Result<std::unique_ptr<VolumeEngine>> make_cpu_volume_engine(VolumeShape shape, int upsample);

// The volume engine a job's `device` option ("cpu", "gpu" or "auto") asks for. Registration
// takes one from its caller (engine::register_engines()), so core/register/ needs no engine.
using VolumeEngineFactory = std::function<Result<std::unique_ptr<VolumeEngine>>(
    VolumeShape shape, int upsample, const std::string& device)>;

// The host's factory: make_cpu_volume_engine for "cpu" and "auto"; "gpu" is refused.
Result<std::unique_ptr<VolumeEngine>> cpu_volume_engines(VolumeShape shape, int upsample,
                                                         const std::string& device);

}  // namespace xcorr::reg
