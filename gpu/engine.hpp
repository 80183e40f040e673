// The GPU engine's public face (CUDA-free): registration, timing and a test switch.
// In a build without CUDA the same functions exist: nothing registers, timing says why.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/engine/engine.hpp"
#include "core/profiling/kernel_smem.hpp"
#include "core/registry.hpp"

namespace xcorr::gpu {

// Adds the GPU variants when a usable CUDA device is present; otherwise adds nothing.
void add_gpu_variants(Registry& r);

// The registry every front end uses (CLI, desktop app): the CPU variants, and the GPU variants
// when a device is present. Built on first use.
const Registry& engine_registry();

// Fill device outputs with NaN before every GPU run (tests use it to prove full coverage).
void set_poison_outputs(bool on);

// Caps the device memory GpuCorrelator::run believes it may use (bytes; 0 = 90 % of the free
// memory). Work larger than that runs in slices of outputs; tests use it to exercise slicing.
void set_device_memory_limit(std::size_t bytes);

// Timings of one GPU variant on one problem, in milliseconds, from CUDA events:
// kernel = device-resident run (inputs and output already on the device);
// back_to_back = `repeats` device-resident runs launched without waiting, total / repeats
// (throughput: launch overhead overlaps; how the thesis timed its FFT path);
// e2e = pinned host inputs -> device -> run -> pinned host output.
using engine::GpuTiming;  // core/engine/engine.hpp
// When `last_output` has data, the result of the last device-resident run is copied there
// (tests use it: repeated runs are the ones that replay captured CUDA graphs).
Result<GpuTiming> time_on_gpu(const Correlator& c, const CorrelationProblem& p, int warmup,
                              int repeats, StackView<float> last_output = {});

bool is_gpu_variant(const Correlator& c);

// A kernel a GPU variant launches for a problem, with its resources (cudaFuncGetAttributes) and
// the blocks per SM CUDA's occupancy API reports (the profiler's check of our own calculator,
// core/profiling/occupancy.hpp).
struct KernelProfile {
  std::string kernel;
  int threads_per_block = 0, registers = 0;
  int static_shared_bytes = 0, dynamic_shared_bytes = 0, local_bytes = 0;
  int cuda_blocks_per_sm = 0;
  std::optional<profiling::KernelSmemModel> smem;  // modelled traffic; none without shared arrays
};
// Empty for variants whose kernels are not ours (gpu_fft's transforms are cuFFT's). Run the
// variant once first: kernels that opt into more shared memory do it on their first run.
Result<std::vector<KernelProfile>> kernel_profiles(const Correlator& c,
                                                   const CorrelationProblem& p);

}  // namespace xcorr::gpu

namespace xcorr::gpu {

// Measured choice: every GPU variant that can run `p` (and whose model prior is within 10x of the
// best prior) is timed on p's own data (device-resident, median of 5 runs after 2 warm-ups); then
// every parameter combination of the fastest is timed too, and the fastest wins. Winners are cached
// per device and problem key in memory and in a JSON file ($XCORR_TUNING_CACHE, else
// $HOME/.cache/xcorr/gpu-tuning.json) as "variant" or "variant:param=value,...", so a size is
// tuned once per device. The returned variant lives as long as the process.
Result<const Correlator*> tuned_gpu_variant(const Registry& r, const CorrelationProblem& p);

// "<device>|form|mode|norm|left shape|right shape|left count bucket|right count bucket", with
// "|peak" after it for peak output; counts are rounded up to powers of two.
std::string tuning_key(const CorrelationProblem& p);

}  // namespace xcorr::gpu
