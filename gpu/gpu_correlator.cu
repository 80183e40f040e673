#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "gpu/cuda_event.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/engine.hpp"
#include "gpu/gpu_correlator.cuh"
#include "gpu/host_staging.cuh"
#include "gpu/peak_reduce.cuh"
#include "gpu/variants.cuh"
#include "gpu/zncc_epilogue.cuh"

namespace xcorr::gpu {
namespace {

std::atomic<bool> g_poison{false};

// Holds the stream until the host sets flag[0] (or `timeout_ns` pass: then flag[1] = 1), so the
// work enqueued behind it starts only once it is all enqueued (device timing, time_on_gpu).
__global__ void hold_stream(volatile int* flag, long long timeout_ns) {
  long long t0 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (flag[0] == 0) {
    long long t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > timeout_ns) {
      flag[1] = 1;
      return;
    }
  }
}

std::atomic<std::size_t> g_memory_limit{0};

// Peak output through surfaces: at most this many bytes of surfaces at a time.
constexpr double kMaxSurfaceBytes = 512.0 * (1 << 20);

// Bytes a run of `p` keeps on the device: inputs, output and the workspaces (gpu_fft sizes its
// own chunks from free memory).
double device_bytes(const GpuCorrelator& g, const CorrelationProblem& p) {
  return 4.0 * static_cast<double>(p.left.rows * p.left.cols * p.left.count +
                                   p.right.rows * p.right.cols * p.right.count +
                                   p.output_shape().area() * p.output_count()) +
         g.workspace_bytes(make_device_problem(p, nullptr, nullptr));
}

// A byte count for messages: KiB below 1 MiB (small budgets are set by tests and users alike).
std::string mib(double bytes) {
  if (bytes < (1 << 20)) return std::to_string(static_cast<long long>(bytes / 1024 + 0.5)) + " KiB";
  return std::to_string(static_cast<long long>(bytes / (1 << 20) + 0.5)) + " MiB";
}

// One device run: staged upload, run_device, staged download.
Status run_whole(const GpuCorrelator& g, const CorrelationProblem& p, StackView<float> out) {
  cudaStream_t stream = nullptr;  // the default stream: one engine thread per GPU
  DeviceBuffer<float> dl, dr, dout;
  XCORR_RETURN_IF_ERROR(
      dl.allocate(static_cast<std::size_t>(p.left.rows * p.left.cols * p.left.count)));
  XCORR_RETURN_IF_ERROR(
      dr.allocate(static_cast<std::size_t>(p.right.rows * p.right.cols * p.right.count)));
  XCORR_RETURN_IF_ERROR(upload_staged(p.left, dl.get(), stream));
  XCORR_RETURN_IF_ERROR(upload_staged(p.right, dr.get(), stream));
  const DeviceProblem dp = make_device_problem(p, dl.get(), dr.get());
  const auto n_out = static_cast<std::size_t>(dp.out_elements());
  XCORR_RETURN_IF_ERROR(dout.allocate(n_out));
  if (poison_outputs())
    XCORR_CUDA_TRY(cudaMemsetAsync(dout.get(), 0xFF, n_out * sizeof(float), stream));
  XCORR_RETURN_IF_ERROR(g.run_device(dp, dout.get(), stream));
  return download_staged(dout.get(), out, stream);
}

StackView<const float> sub(StackView<const float> s, Index first, Index count) {
  s.data += first * s.matrix_stride;
  s.count = count;
  return s;
}
StackView<float> sub(StackView<float> s, Index first, Index count) {
  s.data += first * s.matrix_stride;
  s.count = count;
  return s;
}

double percentile(std::vector<float> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

struct GpuCorrelator::Workspace {
  ZnccEpilogue zncc;
  DeviceBuffer<float> surfaces;
  DeviceBuffer<unsigned long long> keys;
};

GpuCorrelator::GpuCorrelator() : ws_(std::make_unique<Workspace>()) {}
GpuCorrelator::~GpuCorrelator() = default;

int device_result_unit(const DeviceProblem& p) {
  if (p.request.form == Form::n_to_mn) return p.n_left;
  if (p.request.form == Form::n_to_m) return p.n_right;
  return 1;
}

DeviceProblem surface_problem(const DeviceProblem& p) {
  DeviceProblem s = p;
  s.request.output = Output::surface;
  if (p.request.mode == Mode::full) {
    s.out_rows = p.left_rows + p.right_rows - 1;
    s.out_cols = p.left_cols + p.right_cols - 1;
  } else {
    s.out_rows = p.right_rows - p.left_rows + 1;
    s.out_cols = p.right_cols - p.left_cols + 1;
  }
  return s;
}

DeviceProblem device_results_slice(const DeviceProblem& p, int first, int count) {
  DeviceProblem s = p;
  s.out_count = count;
  switch (p.request.form) {
    case Form::one_to_one:
      break;
    case Form::one_to_many:
    case Form::n_to_mn:
      s.right = p.right + static_cast<long long>(first) * p.right_rows * p.right_cols;
      s.n_right = count;
      break;
    case Form::n_to_m:
      s.left = p.left + static_cast<long long>(first / p.n_right) * p.left_rows * p.left_cols;
      s.n_left = count / p.n_right;
      break;
  }
  return s;
}

namespace {

// Results per slice of a peak request answered through surfaces.
int surface_slice(const DeviceProblem& s) {
  const double per_result = 4.0 * static_cast<double>(s.out_rows) * s.out_cols;
  const int unit = device_result_unit(s);
  const auto fit = static_cast<long long>(kMaxSurfaceBytes / (per_result * unit)) * unit;
  return static_cast<int>(std::clamp<long long>(fit, unit, s.out_count));
}

}  // namespace

double GpuCorrelator::estimate_seconds(const CorrelationProblem& p) const {
  const bool peak = p.request.output == Output::peak && !finds_peaks_itself();
  const bool zncc = p.request.norm == Normalization::zncc && !normalizes_itself();
  CorrelationProblem k = p;
  if (peak) k.request.output = Output::surface;
  if (zncc) k.request.norm = Normalization::none;
  return kernel_seconds(k) - transfer_seconds(k) + transfer_seconds(p) +
         (zncc ? zncc_epilogue_seconds(p) : 0.0) + (peak ? peak_reduce_seconds(p) : 0.0);
}

Status GpuCorrelator::run_surfaces(const DeviceProblem& surface, float* out, Workspace& ws,
                                   cudaStream_t stream) const {
  if (surface.request.norm != Normalization::zncc || normalizes_itself())
    return run_kernels(surface, out, stream);
  auto numerators = ws.zncc.prepare(surface, stream);
  if (!numerators.is_ok()) return numerators.status();
  XCORR_RETURN_IF_ERROR(run_kernels(numerators.value(), out, stream));
  return ws.zncc.normalize(surface, out, stream);
}

Status GpuCorrelator::run_device(const DeviceProblem& p, float* out, cudaStream_t stream) const {
  const bool peak = p.request.output == Output::peak && !finds_peaks_itself();
  const bool zncc = p.request.norm == Normalization::zncc && !normalizes_itself();
  if (!peak && !zncc) return run_kernels(p, out, stream);
  const std::lock_guard lock(mutex_);
  if (!peak) return run_surfaces(p, out, *ws_, stream);
  const DeviceProblem s = surface_problem(p);
  const int slice = surface_slice(s);
  const long long area = static_cast<long long>(s.out_rows) * s.out_cols;
  XCORR_RETURN_IF_ERROR(ws_->surfaces.allocate(static_cast<std::size_t>(slice * area)));
  for (int first = 0; first < s.out_count; first += slice) {
    const int count = std::min(slice, s.out_count - first);
    if (poison_outputs())
      XCORR_CUDA_TRY(cudaMemsetAsync(ws_->surfaces.get(), 0xFF, count * area * 4, stream));
    XCORR_RETURN_IF_ERROR(
        run_surfaces(device_results_slice(s, first, count), ws_->surfaces.get(), *ws_, stream));
    XCORR_RETURN_IF_ERROR(
        reduce_peaks(ws_->surfaces.get(), count, s.out_rows, s.out_cols, p.request.subpixel,
                     out + static_cast<long long>(first) * kPeakFields, ws_->keys, stream));
  }
  return Status::ok();
}

std::vector<GpuCorrelator::Launch> GpuCorrelator::launches(const DeviceProblem& p) const {
  const bool peak = p.request.output == Output::peak && !finds_peaks_itself();
  const bool zncc = p.request.norm == Normalization::zncc && !normalizes_itself();
  if (!peak && !zncc) return kernel_launches(p);
  const DeviceProblem s = peak ? surface_problem(p) : p;
  const int slice = peak ? surface_slice(s) : s.out_count;
  std::vector<Launch> all;
  for (int first = 0; first < s.out_count; first += slice) {
    DeviceProblem part = device_results_slice(s, first, std::min(slice, s.out_count - first));
    if (zncc) part.request.norm = Normalization::none;  // what the variant's kernels run
    std::vector<Launch> own = kernel_launches(part);
    if (own.empty()) return {};
    if (zncc) own = ZnccEpilogue::launches(own);
    all.insert(all.end(), own.begin(), own.end());
    if (peak) {
      const auto reduce = peak_reduce_launches();
      all.insert(all.end(), reduce.begin(), reduce.end());
    }
  }
  return all;
}

double GpuCorrelator::workspace_bytes(const DeviceProblem& p) const {
  const bool peak = p.request.output == Output::peak && !finds_peaks_itself();
  const bool zncc = p.request.norm == Normalization::zncc && !normalizes_itself();
  DeviceProblem s = peak ? surface_problem(p) : p;
  double bytes = 0;
  if (peak) {
    s.out_count = surface_slice(s);
    bytes += 4.0 * static_cast<double>(s.out_rows) * s.out_cols * s.out_count + 8.0 * s.out_count;
  }
  if (zncc) bytes += ZnccEpilogue::workspace_bytes(s);
  return bytes + kernel_workspace_bytes(s);
}

bool poison_outputs() {
  return g_poison.load();
}
void set_poison_outputs(bool on) {
  g_poison.store(on);
}

DeviceProblem make_device_problem(const CorrelationProblem& p, const float* left,
                                  const float* right) {
  DeviceProblem d;
  d.request = p.request;
  d.left = left;
  d.right = right;
  d.left_rows = static_cast<int>(p.left.rows);
  d.left_cols = static_cast<int>(p.left.cols);
  d.n_left = static_cast<int>(p.left.count);
  d.right_rows = static_cast<int>(p.right.rows);
  d.right_cols = static_cast<int>(p.right.cols);
  d.n_right = static_cast<int>(p.right.count);
  d.out_rows = static_cast<int>(p.output_shape().rows);
  d.out_cols = static_cast<int>(p.output_shape().cols);
  d.out_count = static_cast<int>(p.output_count());
  return d;
}

void set_device_memory_limit(std::size_t bytes) {
  g_memory_limit.store(bytes);
}

Status GpuCorrelator::run(const CorrelationProblem& p, StackView<float> out) const {
  std::size_t free_bytes = 0, total_bytes = 0;
  XCORR_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  double budget = 0.9 * static_cast<double>(free_bytes);
  if (const std::size_t limit = g_memory_limit.load(); limit > 0)
    budget = std::min(budget, static_cast<double>(limit));
  if (device_bytes(*this, p) <= budget) return run_whole(*this, p, out);

  // Too large for the device at once: run slices of the outputs, each a problem of its own.
  // one_to_many: slices of rights; n_to_mn: slices of pairs (a multiple of the lefts, so pair k
  // of a slice keeps left k mod n); n_to_m: slices of lefts against all rights.
  const Form form = p.request.form;
  // Workspaces grow with the outputs: counted per unit.
  const double matrix_out = 4.0 * static_cast<double>(p.output_shape().area()) +
                            workspace_bytes(make_device_problem(p, nullptr, nullptr)) /
                                static_cast<double>(p.output_count());
  const double left_bytes = 4.0 * static_cast<double>(p.left.rows * p.left.cols);
  const double right_bytes = 4.0 * static_cast<double>(p.right.rows * p.right.cols);
  double fixed = 0, per_unit = 0;
  Index units = 0, step = 1;  // outputs of a slice = k * step * outputs_per_unit
  if (form == Form::one_to_many) {
    fixed = left_bytes;
    per_unit = right_bytes + matrix_out;
    units = p.right.count;
  } else if (form == Form::n_to_mn) {
    fixed = left_bytes * static_cast<double>(p.left.count);
    per_unit = right_bytes + matrix_out;
    units = p.right.count;
    step = p.left.count;
  } else if (form == Form::n_to_m) {
    fixed = right_bytes * static_cast<double>(p.right.count);
    per_unit = left_bytes + matrix_out * static_cast<double>(p.right.count);
    units = p.left.count;
  }
  const auto fit = static_cast<Index>(per_unit > 0 ? (budget - fixed) / per_unit : 0);
  const Index slice = fit / step * step;
  if (units == 0 || slice < 1) {
    return {ErrorCode::out_of_memory,
            "too little GPU memory: " + info().name + " needs " + mib(device_bytes(*this, p)) +
                " for inputs and result and cannot split " + to_string(form) + " below " +
                mib(fixed + per_unit * static_cast<double>(step)) + "; " + mib(budget) +
                " available"};
  }
  for (Index first = 0; first < units; first += slice) {
    const Index n = std::min(slice, units - first);
    CorrelationProblem part = p;
    Index out_first = first, out_count = n;
    if (form == Form::n_to_m) {
      part.left = sub(p.left, first, n);
      out_first = first * p.right.count;
      out_count = n * p.right.count;
    } else {
      part.right = sub(p.right, first, n);
    }
    XCORR_RETURN_IF_ERROR(run_whole(*this, part, sub(out, out_first, out_count)));
  }
  return Status::ok();
}

Result<std::vector<KernelProfile>> kernel_profiles(const Correlator& c,
                                                   const CorrelationProblem& p) {
  const auto* g = dynamic_cast<const GpuCorrelator*>(&c);
  if (g == nullptr)
    return Status{ErrorCode::invalid_argument, c.info().name + " is not a GPU variant"};
  std::vector<KernelProfile> out;
  for (const GpuCorrelator::Launch& l : g->launches(make_device_problem(p, nullptr, nullptr))) {
    cudaFuncAttributes a{};
    XCORR_CUDA_TRY(cudaFuncGetAttributes(&a, l.kernel));
    KernelProfile k;
    k.kernel = l.name;
    k.threads_per_block = l.threads_per_block;
    k.registers = a.numRegs;
    k.static_shared_bytes = static_cast<int>(a.sharedSizeBytes);
    k.dynamic_shared_bytes = l.dynamic_shared_bytes;
    k.local_bytes = static_cast<int>(a.localSizeBytes);
    XCORR_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &k.cuda_blocks_per_sm, l.kernel, l.threads_per_block,
        static_cast<std::size_t>(l.dynamic_shared_bytes)));
    if (l.smem_model) k.smem = l.smem_model();
    out.push_back(k);
  }
  return out;
}

bool is_gpu_variant(const Correlator& c) {
  return dynamic_cast<const GpuCorrelator*>(&c) != nullptr;
}

Result<GpuTiming> time_on_gpu(const Correlator& c, const CorrelationProblem& p, int warmup,
                              int repeats, StackView<float> last_output) {
  const auto* g = dynamic_cast<const GpuCorrelator*>(&c);
  if (g == nullptr)
    return Status{ErrorCode::invalid_argument, c.info().name + " is not a GPU variant"};
  XCORR_RETURN_IF_ERROR(p.validate());
  XCORR_RETURN_IF_ERROR(c.can_implement(p));
  repeats = std::max(repeats, 1);
  cudaStream_t stream = nullptr;
  // Pinned host copies of inputs and output for the end-to-end timing.
  const Stack<float> l = to_stack(p.left), r = to_stack(p.right);
  const auto nl = l.values().size(), nr = r.values().size();
  const auto n_out = static_cast<std::size_t>(p.output_shape().area() * p.output_count());
  float *hl = nullptr, *hr = nullptr, *hout = nullptr;
  XCORR_CUDA_TRY(cudaMallocHost(&hl, nl * sizeof(float)));
  XCORR_CUDA_TRY(cudaMallocHost(&hr, nr * sizeof(float)));
  XCORR_CUDA_TRY(cudaMallocHost(&hout, n_out * sizeof(float)));
  struct PinnedFree {
    float* p[3];
    ~PinnedFree() {
      for (float* q : p) cudaFreeHost(q);
    }
  } pinned{{hl, hr, hout}};
  std::copy(l.values().begin(), l.values().end(), hl);
  std::copy(r.values().begin(), r.values().end(), hr);

  DeviceBuffer<float> dl, dr, dout;
  XCORR_RETURN_IF_ERROR(dl.allocate(nl));
  XCORR_RETURN_IF_ERROR(dr.allocate(nr));
  XCORR_RETURN_IF_ERROR(dout.allocate(n_out));
  XCORR_CUDA_TRY(cudaMemcpy(dl.get(), hl, nl * sizeof(float), cudaMemcpyHostToDevice));
  XCORR_CUDA_TRY(cudaMemcpy(dr.get(), hr, nr * sizeof(float), cudaMemcpyHostToDevice));
  if (last_output.data != nullptr)
    XCORR_CUDA_TRY(cudaMemset(dout.get(), 0xFF, n_out * sizeof(float)));  // NaN
  const DeviceProblem dp = make_device_problem(p, dl.get(), dr.get());

  CudaEvent a, b;
  std::vector<float> kernel, e2e;
  for (int i = 0; i < warmup + repeats; ++i) {
    XCORR_CUDA_TRY(cudaEventRecord(a.get(), stream));
    XCORR_RETURN_IF_ERROR(g->run_device(dp, dout.get(), stream));
    XCORR_CUDA_TRY(cudaEventRecord(b.get(), stream));
    XCORR_CUDA_TRY(cudaEventSynchronize(b.get()));
    float ms = 0;
    XCORR_CUDA_TRY(cudaEventElapsedTime(&ms, a.get(), b.get()));
    if (i >= warmup) kernel.push_back(ms);
  }
  if (last_output.data != nullptr) {
    XCORR_CUDA_TRY(cudaMemcpy(hout, dout.get(), n_out * sizeof(float), cudaMemcpyDeviceToHost));
    for (Index t = 0; t < last_output.count; ++t) {
      for (Index r = 0; r < last_output.rows; ++r) {
        const float* src = hout + (t * last_output.rows + r) * last_output.cols;
        std::copy(src, src + last_output.cols, last_output[t].row(r));
      }
    }
  }
  // Device time: the stream waits behind hold_stream until the events and the run are
  // enqueued, so the host's enqueueing is not inside the events.
  std::vector<float> device;
  {
    int* flag = nullptr;  // pinned, mapped: flag[0] 0 = hold, 1 = go; flag[1] 1 = timed out
    XCORR_CUDA_TRY(cudaHostAlloc(&flag, 2 * sizeof(int), cudaHostAllocMapped));
    struct FlagFree {
      int* p;
      ~FlagFree() { cudaFreeHost(p); }
    } flag_free{flag};
    int* dflag = nullptr;
    XCORR_CUDA_TRY(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dflag), flag, 0));
    bool held = true;
    for (int i = 0; i < warmup + repeats && held; ++i) {
      std::atomic_ref<int>(flag[0]).store(0);
      std::atomic_ref<int>(flag[1]).store(0);
      hold_stream<<<1, 1, 0, stream>>>(dflag, 100'000'000LL);  // 100 ms at most
      XCORR_LAUNCH_TRY("hold_stream");
      XCORR_CUDA_TRY(cudaEventRecord(a.get(), stream));
      XCORR_RETURN_IF_ERROR(g->run_device(dp, dout.get(), stream));
      XCORR_CUDA_TRY(cudaEventRecord(b.get(), stream));
      std::atomic_ref<int>(flag[0]).store(1);
      XCORR_CUDA_TRY(cudaEventSynchronize(b.get()));
      held = std::atomic_ref<int>(flag[1]).load() == 0;
      float ms = 0;
      XCORR_CUDA_TRY(cudaEventElapsedTime(&ms, a.get(), b.get()));
      if (i >= warmup && held) device.push_back(ms);
    }
    if (!held) device.clear();
  }
  XCORR_CUDA_TRY(cudaEventRecord(a.get(), stream));
  for (int i = 0; i < repeats; ++i) XCORR_RETURN_IF_ERROR(g->run_device(dp, dout.get(), stream));
  XCORR_CUDA_TRY(cudaEventRecord(b.get(), stream));
  XCORR_CUDA_TRY(cudaEventSynchronize(b.get()));
  float total_ms = 0;
  XCORR_CUDA_TRY(cudaEventElapsedTime(&total_ms, a.get(), b.get()));
  for (int i = 0; i < warmup + repeats; ++i) {
    XCORR_CUDA_TRY(cudaEventRecord(a.get(), stream));
    XCORR_CUDA_TRY(
        cudaMemcpyAsync(dl.get(), hl, nl * sizeof(float), cudaMemcpyHostToDevice, stream));
    XCORR_CUDA_TRY(
        cudaMemcpyAsync(dr.get(), hr, nr * sizeof(float), cudaMemcpyHostToDevice, stream));
    XCORR_RETURN_IF_ERROR(g->run_device(dp, dout.get(), stream));
    XCORR_CUDA_TRY(
        cudaMemcpyAsync(hout, dout.get(), n_out * sizeof(float), cudaMemcpyDeviceToHost, stream));
    XCORR_CUDA_TRY(cudaEventRecord(b.get(), stream));
    XCORR_CUDA_TRY(cudaEventSynchronize(b.get()));
    float ms = 0;
    XCORR_CUDA_TRY(cudaEventElapsedTime(&ms, a.get(), b.get()));
    if (i >= warmup) e2e.push_back(ms);
  }
  GpuTiming t;
  t.kernel_median_ms = percentile(kernel, 0.5);
  t.kernel_min_ms = percentile(kernel, 0.0);
  t.kernel_p90_ms = percentile(kernel, 0.9);
  if (!device.empty()) {
    t.device_median_ms = percentile(device, 0.5);
    t.device_min_ms = percentile(device, 0.0);
  }
  t.back_to_back_ms = total_ms / static_cast<float>(repeats);
  t.e2e_median_ms = percentile(e2e, 0.5);
  return t;
}

}  // namespace xcorr::gpu
