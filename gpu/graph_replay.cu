#include "gpu/cuda_check.cuh"
#include "gpu/graph_replay.cuh"

namespace xcorr::gpu {

GraphKey graph_key(const DeviceProblem& p, const float* out) {
  auto a = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q); };
  auto v = [](auto x) { return static_cast<std::uintptr_t>(x); };
  return {a(p.left),         a(p.right),        a(out),          v(p.request.norm),
          v(p.request.form), v(p.request.mode), v(p.left_rows),  v(p.left_cols),
          v(p.n_left),       v(p.right_rows),   v(p.right_cols), v(p.n_right)};
}

GraphReplay::~GraphReplay() {
  clear();
  if (capture_ != nullptr) cudaStreamDestroy(capture_);
}

void GraphReplay::clear() {
  for (auto& [key, exec] : graphs_) cudaGraphExecDestroy(exec);
  graphs_.clear();
  seen_.clear();
}

Status GraphReplay::run(const GraphKey& key, cudaStream_t stream,
                        const std::function<Status(cudaStream_t)>& enqueue,
                        const std::function<Status(cudaStream_t)>& prepare_capture) {
  if (auto it = graphs_.find(key); it != graphs_.end()) {
    XCORR_CUDA_TRY(cudaGraphLaunch(it->second, stream));
    return Status::ok();
  }
  if (seen_.insert(key).second) return enqueue(stream);
  if (capture_ == nullptr)
    XCORR_CUDA_TRY(cudaStreamCreateWithFlags(&capture_, cudaStreamNonBlocking));
  if (prepare_capture) XCORR_RETURN_IF_ERROR(prepare_capture(capture_));
  XCORR_CUDA_TRY(cudaStreamBeginCapture(capture_, cudaStreamCaptureModeThreadLocal));
  const Status recorded = enqueue(capture_);
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(capture_, &graph);
  if (!recorded.is_ok() || ended != cudaSuccess) {
    if (graph != nullptr) cudaGraphDestroy(graph);
    return recorded.is_ok() ? cuda_status(ended, "cudaStreamEndCapture") : recorded;
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  XCORR_CUDA_TRY(made);
  if (graphs_.size() >= kMaxGraphs) clear();
  graphs_.emplace(key, exec);
  XCORR_CUDA_TRY(cudaGraphLaunch(exec, stream));
  return Status::ok();
}

}  // namespace xcorr::gpu
