#include <cuda.h>

#include <mutex>

#include "gpu/counters.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/cupti_api.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/gpu_correlator.cuh"

namespace xcorr::gpu {
namespace {

constexpr std::size_t kMetrics = std::size(kCounterMetrics);
constexpr std::size_t kMaxRanges = 64;

// CUPTI, once read_counters has loaded it.
const CuptiApi& cupti() {
  return *cupti_api().value();
}

// A CUPTI failure as text (the caller puts it in CounterReadout::unavailable).
std::string cupti_text(CUptiResult r, const char* call) {
  const char* s = nullptr;
  cupti().cuptiGetResultString(r, &s);
  std::string msg = std::string(call) + ": " + (s != nullptr ? s : "unknown CUPTI error");
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    msg +=
        " (reading GPU counters needs permission: run as root or set the driver option "
        "NVreg_RestrictProfilingToAdminUsers=0)";
  }
  return msg;
}

#define CUPTI_OR_SAY(call)                                 \
  do {                                                     \
    const CUptiResult r_ = (call);                         \
    if (r_ != CUPTI_SUCCESS) return cupti_text(r_, #call); \
  } while (0)

// The current CUDA context, through the runtime's driver entry point (no link to libcuda, so
// binaries still start on machines without a driver).
CUcontext current_context() {
  using Fn = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q) !=
          cudaSuccess ||
      fn == nullptr)
    return nullptr;
  CUcontext ctx = nullptr;
  return reinterpret_cast<Fn>(fn)(&ctx) == CUDA_SUCCESS ? ctx : nullptr;
}

// One profiling session: the range profiler on the current context, one kernel-replayed range per
// launch of `work`. Returns an error text, or empty with `out` filled.
template <class Work>
std::string profile_ranges(const Work& work, std::vector<KernelCounters>& out) {
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUPTI_OR_SAY(cupti().cuptiProfilerInitialize(&init));
  CUcontext ctx = current_context();
  if (ctx == nullptr) return "no current CUDA context";
  int device = 0;
  cudaGetDevice(&device);
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<std::size_t>(device);
  CUPTI_OR_SAY(cupti().cuptiDeviceGetChipName(&chip));

  CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = ctx;
  CUPTI_OR_SAY(cupti().cuptiRangeProfilerEnable(&enable));
  CUpti_RangeProfiler_Object* object = enable.pRangeProfilerObject;
  struct Disable {
    CUpti_RangeProfiler_Object* o;
    ~Disable() {
      CUpti_RangeProfiler_Disable_Params d{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
      d.pRangeProfilerObject = o;
      cupti().cuptiRangeProfilerDisable(&d);
    }
  } disable{object};

  CUpti_Profiler_GetCounterAvailability_Params avail{
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.ctx = ctx;
  CUPTI_OR_SAY(cupti().cuptiProfilerGetCounterAvailability(&avail));
  std::vector<std::uint8_t> availability(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  CUPTI_OR_SAY(cupti().cuptiProfilerGetCounterAvailability(&avail));

  CUpti_Profiler_Host_Initialize_Params host{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip.pChipName;
  host.pCounterAvailabilityImage = availability.data();
  CUPTI_OR_SAY(cupti().cuptiProfilerHostInitialize(&host));
  struct HostDeinit {
    CUpti_Profiler_Host_Object* o;
    ~HostDeinit() {
      CUpti_Profiler_Host_Deinitialize_Params d{
          CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
      d.pHostObject = o;
      cupti().cuptiProfilerHostDeinitialize(&d);
    }
  } host_deinit{host.pHostObject};

  std::vector<const char*> names(std::begin(kCounterMetrics), std::end(kCounterMetrics));
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = host.pHostObject;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  CUPTI_OR_SAY(cupti().cuptiProfilerHostConfigAddMetrics(&add));
  CUpti_Profiler_Host_GetConfigImageSize_Params config_size{
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  config_size.pHostObject = host.pHostObject;
  CUPTI_OR_SAY(cupti().cuptiProfilerHostGetConfigImageSize(&config_size));
  std::vector<std::uint8_t> config(config_size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get_config{
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get_config.pHostObject = host.pHostObject;
  get_config.configImageSize = config.size();
  get_config.pConfigImage = config.data();
  CUPTI_OR_SAY(cupti().cuptiProfilerHostGetConfigImage(&get_config));

  CUpti_RangeProfiler_GetCounterDataSize_Params data_size{
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  data_size.pRangeProfilerObject = object;
  data_size.pMetricNames = names.data();
  data_size.numMetrics = names.size();
  data_size.maxNumOfRanges = kMaxRanges;
  data_size.maxNumRangeTreeNodes = kMaxRanges;
  CUPTI_OR_SAY(cupti().cuptiRangeProfilerGetCounterDataSize(&data_size));
  std::vector<std::uint8_t> data(data_size.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params data_init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  data_init.pRangeProfilerObject = object;
  data_init.counterDataSize = data.size();
  data_init.pCounterData = data.data();
  CUPTI_OR_SAY(cupti().cuptiRangeProfilerCounterDataImageInitialize(&data_init));

  CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = object;
  set.configSize = config.size();
  set.pConfig = config.data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_AutoRange;
  set.replayMode = CUPTI_KernelReplay;
  set.maxRangesPerPass = kMaxRanges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  CUPTI_OR_SAY(cupti().cuptiRangeProfilerSetConfig(&set));

  CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = object;
  CUPTI_OR_SAY(cupti().cuptiRangeProfilerStart(&start));
  const std::string work_error = work();
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = object;
  CUPTI_OR_SAY(cupti().cuptiRangeProfilerStop(&stop));
  if (!work_error.empty()) return work_error;
  CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = object;
  CUPTI_OR_SAY(cupti().cuptiRangeProfilerDecodeData(&decode));

  CUpti_RangeProfiler_GetCounterDataInfo_Params info{
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  CUPTI_OR_SAY(cupti().cuptiRangeProfilerGetCounterDataInfo(&info));
  for (std::size_t r = 0; r < info.numTotalRanges; ++r) {
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params range{
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    range.pCounterDataImage = data.data();
    range.counterDataImageSize = data.size();
    range.rangeIndex = r;
    range.rangeDelimiter = "/";
    CUPTI_OR_SAY(cupti().cuptiRangeProfilerCounterDataGetRangeInfo(&range));
    double v[kMetrics] = {};
    CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    eval.pHostObject = host.pHostObject;
    eval.pCounterDataImage = data.data();
    eval.counterDataImageSize = data.size();
    eval.rangeIndex = r;
    eval.ppMetricNames = names.data();
    eval.numMetrics = names.size();
    eval.pMetricValues = v;
    CUPTI_OR_SAY(cupti().cuptiProfilerHostEvaluateToGpuValues(&eval));
    KernelCounters k;
    k.range = range.rangeName != nullptr ? range.rangeName : std::to_string(r);
    k.achieved_occupancy = v[0] / 100.0;
    k.duration_ms = v[1] * 1e-6;  // ns
    k.smem.load_instructions = v[2];
    k.smem.load_wavefronts = v[3];
    k.smem.load_ideal = v[3] - v[4];
    k.smem.store_instructions = v[5];
    k.smem.store_wavefronts = v[6];
    k.smem.store_ideal = v[6] - v[7];
    out.push_back(k);
  }
  return {};
}

}  // namespace

CounterReadout read_counters(const Correlator& c, const CorrelationProblem& p) {
  CounterReadout out;
  const auto* g = dynamic_cast<const GpuCorrelator*>(&c);
  if (g == nullptr) {
    out.unavailable = "no counters: a CPU variant";
    return out;
  }
  if (g->launches(make_device_problem(p, nullptr, nullptr)).empty()) {
    out.unavailable =
        "no counters: its kernels are cuFFT's, launched inside a CUDA graph, which kernel replay "
        "does not profile per kernel";
    return out;
  }
  const Stack<float> l = to_stack(p.left), r = to_stack(p.right);
  const auto n_out = static_cast<std::size_t>(p.output_shape().area() * p.output_count());
  DeviceBuffer<float> dl, dr, dout;
  DeviceProblem staged = make_device_problem(p, nullptr, nullptr);
  auto stage = [&]() -> Status {  // inputs to the device, then one warm-up run (opt-ins, caches)
    XCORR_RETURN_IF_ERROR(dl.allocate(l.values().size()));
    XCORR_RETURN_IF_ERROR(dr.allocate(r.values().size()));
    XCORR_RETURN_IF_ERROR(dout.allocate(n_out));
    XCORR_CUDA_TRY(cudaMemcpy(dl.get(), l.values().data(), l.values().size() * sizeof(float),
                              cudaMemcpyHostToDevice));
    XCORR_CUDA_TRY(cudaMemcpy(dr.get(), r.values().data(), r.values().size() * sizeof(float),
                              cudaMemcpyHostToDevice));
    staged = make_device_problem(p, dl.get(), dr.get());
    XCORR_RETURN_IF_ERROR(g->run_device(staged, dout.get(), nullptr));
    XCORR_CUDA_TRY(cudaDeviceSynchronize());
    return Status::ok();
  };
  const Status s = stage();
  if (!s.is_ok()) {
    out.unavailable = "counters not read: " + s.message();
    return out;
  }
  if (auto api = cupti_api(); !api.is_ok()) {
    out.unavailable = "counters unavailable: " + api.status().message();
    return out;
  }
  static std::mutex one_session;  // CUPTI allows one range-profiler session per context
  const std::lock_guard<std::mutex> lock(one_session);
  const std::string error = profile_ranges(
      [&]() -> std::string {
        const Status run = g->run_device(staged, dout.get(), nullptr);
        if (!run.is_ok()) return run.message();
        const Status sync = cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        return sync.is_ok() ? std::string() : sync.message();
      },
      out.ranges);
  if (!error.empty()) {
    out.ranges.clear();
    out.unavailable = "counters unavailable: " + error;
  } else if (out.ranges.empty()) {
    out.unavailable = "counters unavailable: the profiler recorded no kernel ranges";
  }
  return out;
}

}  // namespace xcorr::gpu
