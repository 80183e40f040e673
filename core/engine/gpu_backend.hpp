// The GPU backend behind the engine facade (core/engine/engine.hpp): the few things only CUDA
// code can do, as a table of functions that the xcorr_gpu library fills in with one call,
// engine::install_gpu(). Everything else the facade does (composing the registry, choosing the
// DIC device, measured tuning and its cache, profiling CPU variants, profile JSON/CSV) is policy
// in core/engine/*.cpp. Without an installed backend (a build without CUDA, or a program that
// never calls install_gpu) the engine is CPU-only and GPU calls say why.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"

namespace xcorr::engine {

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

// Hardware counters of one variant run: one CUPTI range per kernel launch, in launch order.
struct CounterReadout {
  std::string unavailable;  // empty when `ranges` holds the measurement
  std::vector<KernelCounters> ranges;
};

// Every entry is set by install_gpu (none may be null).
struct GpuBackend {
  // Adds the GPU variants when a usable device is present; otherwise adds nothing.
  void (*add_variants)(Registry& r);
  Result<std::vector<DeviceInfo>> (*devices)();
  bool (*is_gpu_variant)(const Correlator& c);
  // DIC frame registration on the device, its integer guess through `engine`'s GPU variants.
  Result<std::unique_ptr<dic::FrameRegistrar>> (*make_dic_registrar)(const Registry& engine);
  // `f()` on a host thread of its own with CUDA device `device` made current (the caller's
  // current device is untouched; an error naming the device when it cannot be used).
  std::future<Status> (*on_device)(int device, std::function<Status()> f);
  // The same on several devices, each frame's points shared among them (its own registry each).
  Result<std::unique_ptr<dic::FrameRegistrar>> (*make_multi_dic_registrar)(
      std::vector<int> devices);
  double (*last_frame_seconds)(const dic::FrameRegistrar& r);
  DicStages (*last_stage_seconds)(const dic::FrameRegistrar& r);
  // Phase correlation of stack frames on the device (gpu/phase_gpu.hpp).
  Result<std::unique_ptr<reg::PhaseEngine>> (*make_phase_engine)(Shape shape,
                                                                 const reg::PhaseOptions& o,
                                                                 int iterations);
  // 3-D phase correlation of volumes on the device (gpu/volume_gpu.hpp).
  Result<std::unique_ptr<reg::VolumeEngine>> (*make_volume_engine)(reg::VolumeShape shape,
                                                                   int upsample);
  // IC-GN of transforms on the device (gpu/transform_gpu.hpp).
  Result<std::unique_ptr<reg::LevelFitter>> (*make_level_fitter)(Shape shape, int bin);
  Result<VolumeTiming> (*time_volumes)(const float* reference,
                                       const std::vector<const float*>& volumes,
                                       reg::VolumeShape shape, Index measured, int upsample);
  Result<PhaseTiming> (*time_phase)(MatrixView<const float> reference,
                                    StackView<const float> frames, Index measured,
                                    const reg::PhaseOptions& o, int iterations);
  Result<GpuTiming> (*time)(const Correlator& c, const CorrelationProblem& p, int warmup,
                            int repeats, StackView<float> last_output);
  // Empty for variants whose kernels are not ours (cuFFT's transforms). Run the variant once
  // first: kernels that opt into more shared memory do it on their first run.
  Result<std::vector<KernelProfile>> (*kernel_profiles)(const Correlator& c,
                                                        const CorrelationProblem& p);
  // Runs `c` once on `p` (after one warm-up run) under CUPTI's range profiler.
  CounterReadout (*read_counters)(const Correlator& c, const CorrelationProblem& p);
};

// Installs the backend (install_gpu calls it). Must come before the first registry() call,
// which composes the registry once: a later call throws std::logic_error.
void set_gpu_backend(const GpuBackend& b);

// The installed backend, or null.
const GpuBackend* gpu_backend();

}  // namespace xcorr::engine
