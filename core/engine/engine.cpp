// The engine facade's registry, devices, DIC device choice and timing (core/engine/engine.hpp):
// policy here, the CUDA work through the installed backend (core/engine/gpu_backend.hpp).
#include "core/engine/engine.hpp"

#include <atomic>
#include <optional>
#include <stdexcept>

#include "core/cpu/add_variants.hpp"
#include "core/device_list.hpp"
#include "core/dic/guess_strips.hpp"
#include "core/engine/gpu_backend.hpp"
#include "core/register/split_phase_engine.hpp"

namespace xcorr::engine {
namespace {

std::optional<GpuBackend>& backend_slot() {
  static std::optional<GpuBackend> b;
  return b;
}

std::function<void(const std::string&)>& notice_slot() {
  static std::function<void(const std::string&)> notice;
  return notice;
}

std::atomic<bool>& registry_built() {
  static std::atomic<bool> built{false};
  return built;
}

Status no_backend() {
  return Status{ErrorCode::unsupported, "this build has no GPU support (built without CUDA)"};
}

}  // namespace

void set_gpu_backend(const GpuBackend& b) {
  if (registry_built())
    throw std::logic_error("engine::install_gpu() must come before the first engine::registry()");
  backend_slot() = b;
}

const GpuBackend* gpu_backend() {
  return backend_slot() ? &*backend_slot() : nullptr;
}

const Registry& registry() {
  static const Registry r = [] {
    registry_built() = true;
    Registry reg;
    add_cpu_variants(reg);
    if (const Status usable = gpu_usable(); usable.is_ok()) {
      gpu_backend()->add_variants(reg);
    } else {
      reg.set_gpu_absent(usable.message());
      if (const std::string line = gpu_not_used(); !line.empty() && notice_slot())
        notice_slot()(line);
    }
    return reg;
  }();
  return r;
}

bool built_with_cuda() {
  return gpu_backend() != nullptr;
}

Result<std::vector<DeviceInfo>> devices() {
  if (const GpuBackend* g = gpu_backend()) return g->devices();
  return no_backend();
}

void set_gpu_notice(std::function<void(const std::string&)> notice) {
  notice_slot() = std::move(notice);
}

Status gpu_usable() {
  const auto all = devices();
  if (!all.is_ok()) return all.status();
  if (all.value().empty()) return {ErrorCode::unsupported, "no CUDA-capable device is present"};
  const std::string& why = all.value().front().unusable;
  return why.empty() ? Status::ok() : Status{ErrorCode::unsupported, why};
}

std::string gpu_not_used() {
  if (gpu_backend() == nullptr) return {};
  const auto all = devices();
  if (!all.is_ok()) {
    // gpu/device_cuda.cu names the driver only when one is installed but too old.
    const std::string m = all.status().message();
    return m.find("NVIDIA driver is older") != std::string::npos ? m : std::string();
  }
  return all.value().empty() ? std::string() : all.value().front().unusable;
}

bool is_gpu_variant(const Correlator& c) {
  const GpuBackend* g = gpu_backend();
  return g != nullptr && g->is_gpu_variant(c);
}

Result<std::unique_ptr<dic::FrameRegistrar>> make_dic_registrar(const dic::DicOptions& o) {
  // An unknown guess method is the job's error, found before any frame (not a failure of each).
  // The strip search is the GPU path's own (gpu/dic_guess_strips.cuh), not an engine variant.
  const bool strips = o.method == dic::kStripGuessMethod;
  if (o.method != "auto" && !strips) {
    auto named = find_method(registry(), o.method);
    if (!named.is_ok()) return named.status();
  }
  const bool cpu_only = o.device == "cpu";
  if (strips && cpu_only) {
    return Status{ErrorCode::invalid_argument,
                  "--method " + o.method + " runs on the GPU, not with --device cpu"};
  }
  if (!cpu_only) {
    const GpuBackend* g = gpu_backend();
    if (const Status usable = gpu_usable(); !usable.is_ok()) {
      if (strips) {
        return Status{ErrorCode::unsupported,
                      "method '" + o.method + "' needs a GPU: " + usable.message()};
      }
      if (o.device == "gpu") return usable;
      return dic::make_cpu_registrar(registry());
    }
    // Device 0 alone (the default): the registry every front end shares; otherwise one registry
    // per listed device, the list checked against the devices this process sees.
    Result<std::unique_ptr<dic::FrameRegistrar>> gpu = no_backend();
    if (o.devices == "0") {
      gpu = g->make_dic_registrar(registry());
    } else {
      const auto visible = devices();
      if (!visible.is_ok()) {
        if (o.device == "gpu") return visible.status();
        return dic::make_cpu_registrar(registry());
      }
      auto list = parse_device_list(o.devices, static_cast<int>(visible.value().size()));
      if (!list.is_ok()) return list.status();
      gpu = list.value() == std::vector<int>{0} ? g->make_dic_registrar(registry())
                                                : g->make_multi_dic_registrar(list.value());
    }
    if (gpu.is_ok() || o.device == "gpu" || strips) return gpu;
  }
  return dic::make_cpu_registrar(registry());
}

double last_gpu_frame_seconds(const dic::FrameRegistrar& r) {
  const GpuBackend* g = gpu_backend();
  return g != nullptr ? g->last_frame_seconds(r) : -1.0;
}

DicStages last_gpu_stage_seconds(const dic::FrameRegistrar& r) {
  const GpuBackend* g = gpu_backend();
  return g != nullptr ? g->last_stage_seconds(r) : DicStages{};
}

namespace {

// One GPU phase engine per listed device, each made (and later used and freed) on a host thread
// with its device current.
Result<std::unique_ptr<reg::PhaseEngine>> split_phase_engine(const std::vector<int>& list,
                                                             Shape shape,
                                                             const reg::PhaseOptions& o,
                                                             int iterations) {
  const GpuBackend* g = gpu_backend();
  std::vector<std::unique_ptr<reg::PhaseEngine>> lanes(list.size());
  const reg::LaneRunner run = [g, list](std::size_t lane, std::function<Status()> work) {
    return g->on_device(list[lane], std::move(work));
  };
  Status made = Status::ok();
  std::size_t l = 0;
  for (; l < list.size() && made.is_ok(); ++l) {
    made = run(l, [&]() -> Status {
             auto e = g->make_phase_engine(shape, o, iterations);
             if (!e.is_ok()) return e.status();
             lanes[l] = std::move(e).value();
             return Status::ok();
           }).get();
  }
  auto split = reg::make_split_phase_engine(std::move(lanes), run);
  if (made.is_ok()) return split;
  // The lanes made so far are freed on their devices with `split`.
  return Status{made.code(), "GPU " + std::to_string(list[l - 1]) + ": " + made.message()};
}

// The GPU phase engine on the GPUs `devices` lists (device 0 alone: the engine itself).
Result<std::unique_ptr<reg::PhaseEngine>> gpu_phase_engine(Shape shape, const reg::PhaseOptions& o,
                                                           int iterations,
                                                           const std::string& devices) {
  const GpuBackend* g = gpu_backend();
  if (devices == "0") return g->make_phase_engine(shape, o, iterations);
  const auto visible = engine::devices();
  if (!visible.is_ok()) return visible.status();
  auto list = parse_device_list(devices, static_cast<int>(visible.value().size()));
  if (!list.is_ok()) return list.status();
  if (list.value() == std::vector<int>{0}) return g->make_phase_engine(shape, o, iterations);
  return split_phase_engine(list.value(), shape, o, iterations);
}

}  // namespace

Result<std::unique_ptr<reg::PhaseEngine>> make_phase_engine(Shape shape, const reg::PhaseOptions& o,
                                                            int iterations,
                                                            const std::string& device,
                                                            const std::string& devices) {
  XCORR_RETURN_IF_ERROR(parse_device_list(devices, -1).status());  // the text first
  if (device != "cpu") {
    const Status usable = gpu_usable();
    auto gpu = usable.is_ok() ? gpu_phase_engine(shape, o, iterations, devices)
                              : Result<std::unique_ptr<reg::PhaseEngine>>(usable);
    if (gpu.is_ok() || device == "gpu") return gpu;
  }
  return reg::make_cpu_phase_engine(shape, o, iterations);
}

Result<std::unique_ptr<reg::VolumeEngine>> make_volume_engine(reg::VolumeShape shape, int upsample,
                                                              const std::string& device) {
  if (device != "cpu") {
    const GpuBackend* g = gpu_backend();
    const Status usable = gpu_usable();
    auto gpu = usable.is_ok() ? g->make_volume_engine(shape, upsample)
                              : Result<std::unique_ptr<reg::VolumeEngine>>(usable);
    if (gpu.is_ok() || device == "gpu") return gpu;
  }
  return reg::make_cpu_volume_engine(shape, upsample);
}

Result<std::unique_ptr<reg::LevelFitter>> make_level_fitter(Shape shape, int bin,
                                                            const std::string& device) {
  if (device != "cpu") {
    const GpuBackend* g = gpu_backend();
    const Status usable = gpu_usable();
    auto gpu = usable.is_ok() ? g->make_level_fitter(shape, bin)
                              : Result<std::unique_ptr<reg::LevelFitter>>(usable);
    if (gpu.is_ok() || device == "gpu") return gpu;
  }
  return reg::make_cpu_level_fitter(shape, bin);
}

reg::Engines register_engines() {
  return {&registry(), make_phase_engine, make_volume_engine, make_level_fitter};
}

Result<PhaseTiming> time_phase_on_gpu(MatrixView<const float> reference,
                                      StackView<const float> frames, Index measured,
                                      const reg::PhaseOptions& o, int iterations) {
  XCORR_RETURN_IF_ERROR(gpu_usable());
  return gpu_backend()->time_phase(reference, frames, measured, o, iterations);
}

Result<VolumeTiming> time_volumes_on_gpu(const float* reference,
                                         const std::vector<const float*>& volumes,
                                         reg::VolumeShape shape, Index measured, int upsample) {
  XCORR_RETURN_IF_ERROR(gpu_usable());
  return gpu_backend()->time_volumes(reference, volumes, shape, measured, upsample);
}

Result<GpuTiming> time_on_gpu(const Correlator& c, const CorrelationProblem& p, int warmup,
                              int repeats, StackView<float> last_output) {
  XCORR_RETURN_IF_ERROR(gpu_usable());
  return gpu_backend()->time(c, p, warmup, repeats, last_output);
}

}  // namespace xcorr::engine
