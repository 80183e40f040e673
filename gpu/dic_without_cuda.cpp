// gpu/dic_gpu.hpp in a build without CUDA.
#include "gpu/dic_gpu.hpp"

namespace xcorr::gpu {

Result<std::unique_ptr<dic::FrameRegistrar>> make_gpu_registrar(const Registry&) {
  return Status{ErrorCode::unsupported, "this build has no GPU support (built without CUDA)"};
}
double last_gpu_frame_seconds(const dic::FrameRegistrar&) {
  return -1;
}
GpuDicStages last_gpu_stage_seconds(const dic::FrameRegistrar&) {
  return {};
}

}  // namespace xcorr::gpu
