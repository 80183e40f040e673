// Replays a variant's pipeline of launches as a CUDA graph when the same key comes again
// (benchmarks, frame loops): one graph launch instead of several launches from the host. The first
// run of a key runs directly; the second is captured on a private stream and replayed; later runs
// replay. Keys hold everything a graph bakes in (problem, input, output and work-buffer
// addresses: graph_key plus the variant's own buffers). Not thread-safe: the owner holds its lock.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "core/status.hpp"
#include "gpu/device_problem.cuh"

namespace xcorr::gpu {

using GraphKey = std::vector<std::uintptr_t>;

// The problem's fields and its input and output addresses; append the work buffers.
GraphKey graph_key(const DeviceProblem& p, const float* out);

class GraphReplay {
 public:
  GraphReplay() = default;
  GraphReplay(const GraphReplay&) = delete;
  GraphReplay& operator=(const GraphReplay&) = delete;
  ~GraphReplay();

  // enqueue(s) puts the pipeline on stream s; it may not allocate or synchronise (it is
  // captured). prepare_capture(s), if given, runs before a capture with the capture stream
  // (cuFFT plans are bound to it there).
  Status run(const GraphKey& key, cudaStream_t stream,
             const std::function<Status(cudaStream_t)>& enqueue,
             const std::function<Status(cudaStream_t)>& prepare_capture = {});

 private:
  static constexpr std::size_t kMaxGraphs = 16;
  void clear();

  cudaStream_t capture_ = nullptr;
  std::map<GraphKey, cudaGraphExec_t> graphs_;
  std::set<GraphKey> seen_;
};

}  // namespace xcorr::gpu
