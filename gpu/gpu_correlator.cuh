// Base of every GPU variant: run() stages host inputs to the device, calls run_device() and
// copies the result back; run_device() is what the benchmark times (device-resident).
// A variant implements run_kernels() for the requests its kernels compute; the base completes
// the rest: zncc through the epilogue (gpu/zncc_epilogue.cuh) for variants whose kernels are
// unnormalised, peak output through surfaces in a workspace and the reduction
// (gpu/peak_reduce.cuh) for variants that do not fuse the search.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/correlator.hpp"
#include "core/profiling/kernel_smem.hpp"
#include "gpu/device_problem.cuh"

namespace xcorr::gpu {

class GpuCorrelator : public Correlator {
 public:
  GpuCorrelator();
  ~GpuCorrelator() override;

  // Host views in, host view out (contiguous or strided).
  Status run(const CorrelationProblem& p, StackView<float> out) const final;

  // kernel_seconds() of the request the variant's kernels run, plus the epilogue and the peak
  // reduction where the base adds them, with the transfers of `p` itself.
  double estimate_seconds(const CorrelationProblem& p) const final;

  // Inputs and `out` (out_count x out_rows x out_cols, contiguous) in device memory.
  // Writes every output element. Asynchronous on `stream`. Any request can_implement accepts.
  Status run_device(const DeviceProblem& p, float* out, cudaStream_t stream) const;

  // The kernels run_device launches for `p`, in launch order (the profiler reads their resources
  // and occupancy, and matches them to hardware counters); empty when the variant's own kernels
  // are not ours (e.g. cuFFT's). smem_model: the launch's shared-memory traffic from the kernel's
  // own index functions (core/profiling/kernel_smem.hpp); empty for kernels without shared arrays.
  struct Launch {
    const char* name;
    const void* kernel;  // the __global__ function
    int threads_per_block;
    int dynamic_shared_bytes;
    std::function<profiling::KernelSmemModel()> smem_model = {};
  };
  std::vector<Launch> launches(const DeviceProblem& p) const;

  // Device bytes a run needs beyond its inputs and outputs (workspaces), for slicing.
  double workspace_bytes(const DeviceProblem& p) const;

 protected:
  // Model prior of the variant's kernels on the request they run (as run_kernels), including
  // transfer_seconds() of that request.
  virtual double kernel_seconds(const CorrelationProblem& p) const = 0;
  // What the variant's own kernels compute beyond unnormalised surfaces.
  virtual bool normalizes_itself() const { return false; }   // zncc in its kernels
  virtual bool finds_peaks_itself() const { return false; }  // peak output in its kernels
  // The variant's kernels for `p`: a surface request (zncc only when normalizes_itself()), or a
  // peak request when finds_peaks_itself(). Writes every element of `out`.
  virtual Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const = 0;
  // Their launches for that request, in order (see launches()).
  virtual std::vector<Launch> kernel_launches(const DeviceProblem&) const { return {}; }
  // Workspace of the variant's own kernels (bytes).
  virtual double kernel_workspace_bytes(const DeviceProblem&) const { return 0; }

 private:
  struct Workspace;
  Status run_surfaces(const DeviceProblem& surface, float* out, Workspace& ws,
                      cudaStream_t stream) const;
  mutable std::mutex mutex_;  // guards ws_ while work is enqueued
  mutable std::unique_ptr<Workspace> ws_;
};

// Base of a GPU variant with parameters (VariantInfo::params): keeps the completed values and
// makes configured copies. Derived has a static variant_info() and a constructor from values.
template <class Derived>
class ParameterisedGpuCorrelator : public GpuCorrelator {
 public:
  explicit ParameterisedGpuCorrelator(const ParamValues& values)
      : values_(
            complete_params(Derived::variant_info().name, Derived::variant_info().params, values)
                .value()) {}
  const VariantInfo& info() const override { return Derived::variant_info(); }
  ParamValues params() const override { return values_; }
  Result<std::unique_ptr<Correlator>> with_params(const ParamValues& values) const override {
    auto all = complete_params(info().name, info().params, values);
    if (!all.is_ok()) return all.status();
    return std::unique_ptr<Correlator>(std::make_unique<Derived>(all.value()));
  }

 protected:
  int param(const char* name) const { return values_.at(name); }

 private:
  ParamValues values_;
};

// Whether GPU runs fill their device output with NaN first (tests: proves every element written).
bool poison_outputs();

// The surface request of `p` (output surface; out_rows x out_cols the surface's shape).
DeviceProblem surface_problem(const DeviceProblem& p);
// Results [first, first + count) of `p` (whole units, as core/peak_search.hpp's results_slice).
DeviceProblem device_results_slice(const DeviceProblem& p, int first, int count);
// The fewest results a slice can hold (n_left for n_to_mn, n_right for n_to_m, else 1).
int device_result_unit(const DeviceProblem& p);

}  // namespace xcorr::gpu
