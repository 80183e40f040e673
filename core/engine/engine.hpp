// The engine facade: everything a front end (app/, ui/) asks of the correlation engine, in one
// CUDA-free header: the registry, the devices, the DIC registrar for a job's options, timing,
// the measured choice, kernel profiles and their JSON/CSV. Declared and defined in core
// (core/engine/*.cpp); the few things only CUDA code can do come from a backend table
// (core/engine/gpu_backend.hpp) that the xcorr_gpu library installs with install_gpu(). Front
// ends call install_gpu() once at start, include no gpu/ header and link xcorr_gpu; a program
// that does not install it (or a build without CUDA) gets a CPU-only engine.
// Units: as each name says (`_ms` milliseconds, `seconds` and DicStages seconds); bytes for
// memory.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/correlation.hpp"
#include "core/dic/frame_registrar.hpp"
#include "core/engine/device_info.hpp"
#include "core/profiling/kernel_smem.hpp"
#include "core/register/phase_engine.hpp"
#include "core/register/register_stack.hpp"
#include "core/register/transform_level.hpp"
#include "core/register/volume_engine.hpp"
#include "core/registry.hpp"

namespace xcorr::engine {

// --- Registry and devices -------------------------------------------------------------------

// Installs the GPU backend when this build has CUDA (defined by xcorr_gpu: gpu/install.cpp, or
// gpu/install_without_cuda.cpp, which installs nothing). Call it before the first registry().
void install_gpu();

// The registry every front end uses: the CPU variants, and the GPU variants when a device is
// present. Built on first use.
const Registry& registry();

// DeviceInfo: core/engine/device_info.hpp
// True when a GPU backend is installed (the build has CUDA; a device may still be absent).
bool built_with_cuda();
// The CUDA devices, or why there are none ("built without CUDA", "no CUDA-capable device ...").
Result<std::vector<DeviceInfo>> devices();

bool is_gpu_variant(const Correlator& c);

// OK when GPU work can run on device 0 (the default GPU); otherwise why not: the build, no
// device, the driver, or "GPU 0, NVIDIA X (sm_86): this build has no kernels for it (built for
// ...)". Every front end's device choice goes through it: auto runs on the CPU, gpu fails with it.
Status gpu_usable();
// The same reason when a GPU is there but cannot be used (no kernels for it, a driver too old
// for this build, an unknown XCORR_GPU_PROFILE): the one line `xcorr` prints before running on
// the CPU and the window shows under the Device field. Empty when the GPU is used or when the
// machine has none.
std::string gpu_not_used();
// Called once with gpu_not_used()'s line when the registry is built and the line is not empty
// (xcorr prints it as a note on stderr; set before the first registry()).
void set_gpu_notice(std::function<void(const std::string&)> notice);

// `c`, a GPU variant of registry(), run on several GPUs (core/device_list.hpp numbers): a
// problem's results are split into contiguous slices of whole result units, one per GPU, each
// computed by that GPU's own copy of `c` (same name and parameters) from a host thread of its
// own, into the slice of the output. Direct variants give the same output bit for bit as one
// GPU; FFT variants (rounding with the batch) and atomic sums (their order varies run to run)
// stay within 1e-6 relative (tests/gpu/on_devices_test.cpp). (For device 0 alone, callers run
// `c` itself.)
Result<std::unique_ptr<Correlator>> on_devices(const Correlator& c,
                                               const std::vector<int>& devices);

// --- DIC --------------------------------------------------------------------------------------

// The frame registrar options.device asks for: cpu; gpu (an error without a device); auto = the
// GPU when present and the options allow it (first-order shape function, independent points),
// else the CPU.
Result<std::unique_ptr<dic::FrameRegistrar>> make_dic_registrar(const dic::DicOptions& o);

// Seconds of the last GPU register_frame with images already on the device, up to the results in
// host memory; negative before the first frame or on the CPU. By stage (CUDA events): integer
// guess (host point lists and the dispatcher's choice included; guess_gather and guess_search
// its device parts), IC-GN, download.
struct DicStages {
  // coefficients: the frame's own; when it was preloaded (FrameRegistrar::preload), enqueued
  // then, while the host worked, and not in last_gpu_frame_seconds.
  double coefficients = 0, integer_guess = 0, icgn = 0, download = 0;
  bool preloaded = false;  // the frame's pixels and coefficients came from a preload
  // The reference's coefficients and PixelTable when this frame made them (0 when it kept the
  // last frame's), before the frame's own clock starts: not in last_gpu_frame_seconds.
  double reference = 0;
  double guess_gather = 0, guess_search = 0;
  // Reliability-guided work after the independent pass (host wall seconds; 0 otherwise): its
  // checks, waves and the points the waves registered.
  double propagation = 0;
  int waves = 0;
  long long wave_points = 0;
  // Several devices (host wall seconds): the slowest and the fastest device's part, each from
  // its host thread's start to its results in the frame's list, and the whole call that
  // registered the parts (its excess over the slowest part is the threads' start and join).
  double part_slowest = 0, part_fastest = 0, parts = 0;
  // Host wall seconds inside the frame's call: waiting for its images and coefficients on the
  // device (a preload not yet done) before its clock starts, and putting the results back to
  // their grid points after it.
  double images_wait = 0, results_host = 0;
};
double last_gpu_frame_seconds(const dic::FrameRegistrar& r);
DicStages last_gpu_stage_seconds(const dic::FrameRegistrar& r);

// --- Registration -----------------------------------------------------------------------------

// The phase-correlation engine `device` asks for (images of `shape` px): cpu (FFTW on the host's
// threads); gpu (an error without a device); auto = the GPU when present, else the CPU. On the
// GPU, `devices` ("0", "0,1", "all": core/device_list.hpp) other than device 0 alone: one engine
// per listed GPU, each made on its device, sharing every call's frames
// (reg::make_split_phase_engine); a number this process does not see is an error naming it.
Result<std::unique_ptr<reg::PhaseEngine>> make_phase_engine(Shape shape, const reg::PhaseOptions& o,
                                                            int iterations,
                                                            const std::string& device,
                                                            const std::string& devices = "0");

// The 3-D phase-correlation engine `device` asks for (volumes of `shape` voxels), chosen as
// make_phase_engine chooses.
Result<std::unique_ptr<reg::VolumeEngine>> make_volume_engine(reg::VolumeShape shape, int upsample,
                                                              const std::string& device);

// The IC-GN fitter of transforms `device` asks for (frames of `shape` px, coarse level binned by
// `bin`), chosen as make_phase_engine chooses.
Result<std::unique_ptr<reg::LevelFitter>> make_level_fitter(Shape shape, int bin,
                                                            const std::string& device);

// What registration measures with: registry() for method zncc, make_phase_engine,
// make_volume_engine and make_level_fitter.
reg::Engines register_engines();

// The GPU phase engine with its frames already on the device (the registration speed
// benchmark): `frames` go up once, then `measured` frames (cycling through them) are measured
// against `reference` in blocks of `batch`, timed on the host from the first launch to every
// shift in host memory (one per measured frame), after a warm-up block.
struct PhaseTiming {
  double seconds = 0;
  int batch = 0;
  std::vector<reg::Shift> shifts;
};
Result<PhaseTiming> time_phase_on_gpu(MatrixView<const float> reference,
                                      StackView<const float> frames, Index measured,
                                      const reg::PhaseOptions& o, int iterations);

// The same for the GPU volume engine (the 3-D benchmark's like-for-like with an anchor whose
// volumes are on the device): `volumes` (each shape.size() voxels) go up once, then `measured`
// volumes (cycling through them) are measured against `reference` in the engine's blocks.
struct VolumeTiming {
  double seconds = 0;
  int batch = 0;
  std::vector<reg::Shift3> shifts;
};
Result<VolumeTiming> time_volumes_on_gpu(const float* reference,
                                         const std::vector<const float*>& volumes,
                                         reg::VolumeShape shape, Index measured, int upsample);

// --- Timing and the measured choice ---------------------------------------------------------

// One GPU variant on one problem, milliseconds from CUDA events: kernel = device-resident run
// (the events bracket the host's enqueueing too); device = the same run with the stream held
// by a spinning kernel until everything is enqueued (NVBench's blocking kernel), so only the
// device's own time counts (what the thesis timed around its kernels); negative when the hold
// timed out (the run synchronised with the host: not measurable that way); back_to_back =
// `repeats` runs launched without waiting, total / repeats; e2e = pinned host inputs -> device
// -> run -> pinned host output.
struct GpuTiming {
  double kernel_median_ms = 0, kernel_min_ms = 0, kernel_p90_ms = 0;
  double device_median_ms = -1, device_min_ms = -1;
  double back_to_back_ms = 0;
  double e2e_median_ms = 0;
};
// When `last_output` has data, the last device-resident run's result is copied there.
Result<GpuTiming> time_on_gpu(const Correlator& c, const CorrelationProblem& p, int warmup,
                              int repeats, StackView<float> last_output = {});

// Every GPU variant that can run `p` timed on p's own data, then every parameter combination of
// the fastest (the returned variant lives as long as the process). Winners are cached per
// device and problem key in memory and in a JSON file ($XCORR_TUNING_CACHE, else
// $HOME/.cache/xcorr/gpu-tuning.json) as "variant" or "variant:param=value,...".
Result<const Correlator*> tuned_gpu_variant(const Registry& r, const CorrelationProblem& p);

// "<device>|form|mode|norm|left shape|right shape|left count bucket|right count bucket", with
// "|peak" after it for peak output; counts are rounded up to powers of two.
std::string tuning_key(const CorrelationProblem& p);

// --- Profiles ---------------------------------------------------------------------------------

// Hardware counters of one kernel launch (CUPTI range profiler), when they can be read.
struct KernelCounters {
  std::string range;              // CUPTI's range name
  double achieved_occupancy = 0;  // sm__warps_active.avg.pct_of_peak_sustained_active / 100
  double duration_ms = 0;         // gpu__time_duration.sum (under the profiler)
  // Warp-level shared instructions and wavefronts; ideal = wavefronts - bank conflicts.
  profiling::SmemTraffic smem;
};

struct KernelRow {
  std::string kernel;
  int registers = 0, static_shared_bytes = 0, dynamic_shared_bytes = 0, local_bytes = 0;
  int threads_per_block = 0;
  double occupancy = 0, cuda_occupancy = 0;  // active warps / max warps
  std::string limiter;
  std::optional<profiling::SmemTraffic> smem_model;  // none: the kernel has no shared arrays
  std::vector<profiling::SmemArray> smem_arrays;
  std::optional<KernelCounters> counters;  // measured, matched to the launch by order
};

struct VariantProfile {
  std::string variant, device, params;
  std::string form, mode, norm, output = "surface";
  Index rows = 0, cols = 0, n = 0, m = 0;  // right matrices' size; left and right counts
  double median_ms = 0, min_ms = 0, p90_ms = 0, e2e_ms = 0, gflops = 0, bandwidth_gb_s = 0;
  std::vector<KernelRow> kernels;  // empty on the CPU and for cuFFT
  std::string counters_note;       // why counters are missing (empty when read)
};

struct ProfileRequest {
  Form form = Form::one_to_many;
  Mode mode = Mode::full;
  Normalization norm = Normalization::none;
  Output output = Output::surface;  // peak: valid mode only
  Index rows = 64, cols = 64;       // right matrices (valid mode: templates of half the size)
  Index template_size = 0;          // valid mode: template side (px) instead of half the size
  Index n = 1, m = 16;              // lefts (n_to_m, n_to_mn); rights (or rights per left: n_to_mn)
  int repeats = 10;
  bool counters = true;               // read hardware counters (CUPTI) for GPU variants
  std::vector<std::string> variants;  // empty: all that can run it
};

// Every variant that can run the request's problem: timings, resources, occupancy, modelled and
// (with CUPTI) measured shared-memory traffic. Progress after each variant; false cancels.
Result<std::vector<VariantProfile>> profile_problem(
    const ProfileRequest& r, const std::function<bool(long long, long long)>& progress = {});

std::string profile_to_json(const std::vector<VariantProfile>& rows);
Result<std::vector<VariantProfile>> profile_from_json(const std::string& text);
std::string profile_to_csv(const std::vector<VariantProfile>& rows);  // one row per kernel

}  // namespace xcorr::engine
