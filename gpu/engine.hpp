// The GPU engine's own interface (CUDA-free header): registration, timing, kernel resources and
// test switches. Front ends reach these through the engine facade (core/engine/engine.hpp),
// whose backend table install_gpu() fills with them (gpu/install.cpp); tests of gpu/ call them
// directly.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/engine/engine.hpp"
#include "core/engine/gpu_backend.hpp"
#include "core/profiling/kernel_smem.hpp"
#include "core/registry.hpp"

namespace xcorr::gpu {

// Adds the GPU variants when a usable CUDA device is present; otherwise adds nothing.
void add_gpu_variants(Registry& r);

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

using engine::KernelProfile;  // core/engine/gpu_backend.hpp
// Empty for variants whose kernels are not ours (gpu_fft's transforms are cuFFT's). Run the
// variant once first: kernels that opt into more shared memory do it on their first run.
Result<std::vector<KernelProfile>> kernel_profiles(const Correlator& c,
                                                   const CorrelationProblem& p);

}  // namespace xcorr::gpu
