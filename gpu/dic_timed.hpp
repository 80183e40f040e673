// What the GPU registrars (gpu/dic_gpu.cu, gpu/dic_multi_gpu.cpp) report of their last frame,
// behind last_gpu_frame_seconds and last_gpu_stage_seconds (gpu/dic_gpu.hpp).
#pragma once

#include "core/dic/frame_registrar.hpp"
#include "core/engine/engine.hpp"

namespace xcorr::gpu {

class TimedRegistrar : public dic::FrameRegistrar {
 public:
  // Seconds of the last frame (negative before the first): one device, images on the device to
  // results in host memory; several devices, the whole register_frame call (uploads included).
  virtual double last_seconds() const = 0;
  // Per stage, seconds (several devices: the first device's stages).
  virtual engine::DicStages stages() const = 0;
};

}  // namespace xcorr::gpu
