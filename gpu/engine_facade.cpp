// The engine facade (core/engine/engine.hpp) over the GPU engine: each call forwards to gpu/
// (the profiles are defined in profile.cpp). In a build without CUDA the gpu/ functions report
// "not available" and register nothing, so the facade works the same there.
#include "core/engine/engine.hpp"
#include "gpu/device.hpp"
#include "gpu/dic_gpu.hpp"
#include "gpu/engine.hpp"

namespace xcorr::engine {

const Registry& registry() {
  return gpu::engine_registry();
}

bool built_with_cuda() {
  return gpu::built_with_cuda();
}

Result<std::vector<DeviceInfo>> devices() {
  return gpu::list_devices();
}

bool is_gpu_variant(const Correlator& c) {
  return gpu::is_gpu_variant(c);
}

Result<std::unique_ptr<dic::FrameRegistrar>> make_dic_registrar(const dic::DicOptions& o) {
  return gpu::make_dic_registrar(o);
}

double last_gpu_frame_seconds(const dic::FrameRegistrar& r) {
  return gpu::last_gpu_frame_seconds(r);
}

DicStages last_gpu_stage_seconds(const dic::FrameRegistrar& r) {
  return gpu::last_gpu_stage_seconds(r);
}

Result<GpuTiming> time_on_gpu(const Correlator& c, const CorrelationProblem& p, int warmup,
                              int repeats, StackView<float> last_output) {
  return gpu::time_on_gpu(c, p, warmup, repeats, last_output);
}

Result<const Correlator*> tuned_gpu_variant(const Registry& r, const CorrelationProblem& p) {
  return gpu::tuned_gpu_variant(r, p);
}

}  // namespace xcorr::engine
