#include <algorithm>
#include <atomic>
#include <vector>

#include "gpu/device_buffer.cuh"
#include "gpu/engine.hpp"
#include "gpu/gpu_correlator.cuh"

namespace xcorr::gpu {
namespace {

std::atomic<bool> g_poison{false};

bool contiguous(const StackView<const float>& s) {
  return s.row_stride == s.cols && s.matrix_stride == s.rows * s.cols;
}

// Copies a host stack to the device (packing it first when strided).
Status upload(StackView<const float> s, DeviceBuffer<float>& d, cudaStream_t stream) {
  const auto n = static_cast<std::size_t>(s.rows * s.cols * s.count);
  XCORR_RETURN_IF_ERROR(d.allocate(n));
  if (contiguous(s)) {
    XCORR_CUDA_TRY(
        cudaMemcpyAsync(d.get(), s.data, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    return Status::ok();
  }
  const Stack<float> packed = to_stack(s);
  XCORR_CUDA_TRY(
      cudaMemcpyAsync(d.get(), packed.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  return cuda_status(cudaStreamSynchronize(stream), "upload");  // `packed` dies here
}

double percentile(std::vector<float> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

class Event {
 public:
  Event() { cudaEventCreate(&e_); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
};

}  // namespace

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

Status GpuCorrelator::run(const CorrelationProblem& p, StackView<float> out) const {
  cudaStream_t stream = nullptr;  // the default stream: one engine thread per GPU
  DeviceBuffer<float> dl, dr, dout;
  XCORR_RETURN_IF_ERROR(upload(p.left, dl, stream));
  XCORR_RETURN_IF_ERROR(upload(p.right, dr, stream));
  const DeviceProblem dp = make_device_problem(p, dl.get(), dr.get());
  const auto n_out = static_cast<std::size_t>(dp.out_elements());
  XCORR_RETURN_IF_ERROR(dout.allocate(n_out));
  if (poison_outputs())
    XCORR_CUDA_TRY(cudaMemsetAsync(dout.get(), 0xFF, n_out * sizeof(float), stream));
  XCORR_RETURN_IF_ERROR(run_device(dp, dout.get(), stream));
  if (out.row_stride == out.cols && out.matrix_stride == out.rows * out.cols) {
    XCORR_CUDA_TRY(cudaMemcpyAsync(out.data, dout.get(), n_out * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream));
    return cuda_status(cudaStreamSynchronize(stream), "download of the result");
  }
  Stack<float> packed(out.rows, out.cols, out.count);
  XCORR_CUDA_TRY(cudaMemcpyAsync(packed.data(), dout.get(), n_out * sizeof(float),
                                 cudaMemcpyDeviceToHost, stream));
  XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
  for (Index t = 0; t < out.count; ++t) {
    for (Index r = 0; r < out.rows; ++r)
      std::copy(packed[t].row(r), packed[t].row(r) + out.cols, out[t].row(r));
  }
  return Status::ok();
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

  Event a, b;
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
  t.back_to_back_ms = total_ms / static_cast<float>(repeats);
  t.e2e_median_ms = percentile(e2e, 0.5);
  return t;
}

}  // namespace xcorr::gpu
