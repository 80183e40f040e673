// gpu/engine.hpp in a build without CUDA: no GPU variants; timing explains why.
#include "gpu/counters.hpp"
#include "gpu/engine.hpp"

namespace xcorr::gpu {

void add_gpu_variants(Registry&) {}
void set_poison_outputs(bool) {}
void set_device_memory_limit(std::size_t) {}
bool is_gpu_variant(const Correlator&) {
  return false;
}
Result<const Correlator*> tuned_gpu_variant(const Registry&, const CorrelationProblem&) {
  return Status{ErrorCode::unsupported, "this build has no GPU support (built without CUDA)"};
}
Result<std::vector<KernelProfile>> kernel_profiles(const Correlator&, const CorrelationProblem&) {
  return Status{ErrorCode::unsupported, "this build has no GPU support (built without CUDA)"};
}
std::string tuning_key(const CorrelationProblem&) {
  return "none";
}
Result<GpuTiming> time_on_gpu(const Correlator&, const CorrelationProblem&, int, int,
                              StackView<float>) {
  return Status{ErrorCode::unsupported, "this build has no GPU support (built without CUDA)"};
}

CounterReadout read_counters(const Correlator&, const CorrelationProblem&) {
  return {"counters unavailable: this build has no GPU support (built without CUDA)", {}};
}
}  // namespace xcorr::gpu
