// Base of every GPU variant: run() stages host inputs to the device, calls run_device() and
// copies the result back; run_device() is what the benchmark times (device-resident).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "core/profiling/kernel_smem.hpp"

#include "core/correlator.hpp"
#include "gpu/device_problem.cuh"

namespace xcorr::gpu {

class GpuCorrelator : public Correlator {
 public:
  // Host views in, host view out (contiguous or strided).
  Status run(const CorrelationProblem& p, StackView<float> out) const final;

  // Inputs and `out` (out_count x out_rows x out_cols, contiguous) in device memory.
  // Writes every output element. Asynchronous on `stream`.
  virtual Status run_device(const DeviceProblem& p, float* out, cudaStream_t stream) const = 0;

  // The kernels run_device launches for `p`, in launch order (the profiler reads their resources
  // and occupancy, and matches them to hardware counters); empty when they are not our own (e.g.
  // cuFFT's). smem_model: the launch's shared-memory traffic from the kernel's own index
  // functions (core/profiling/kernel_smem.hpp); empty for kernels without shared arrays.
  struct Launch {
    const char* name;
    const void* kernel;  // the __global__ function
    int threads_per_block;
    int dynamic_shared_bytes;
    std::function<profiling::KernelSmemModel()> smem_model = {};
  };
  virtual std::vector<Launch> launches(const DeviceProblem&) const { return {}; }
};

// Whether GPU runs fill their device output with NaN first (tests: proves every element written).
bool poison_outputs();

}  // namespace xcorr::gpu
