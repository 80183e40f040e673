// Hardware counters of one GPU variant's kernels, read through CUPTI's range profiler (auto
// range, kernel replay: one range per kernel launch, in launch order). CUDA-free header.
// When counters cannot be read (no GPU, no permission, CUPTI absent, kernels that run
// inside a CUDA graph), `unavailable` says why and no numbers are given: never invented.
#pragma once

#include <string>
#include <vector>

#include "core/correlator.hpp"
#include "core/engine/engine.hpp"
#include "core/engine/gpu_backend.hpp"
#include "core/profiling/kernel_smem.hpp"

namespace xcorr::gpu {

using engine::CounterReadout;  // core/engine/gpu_backend.hpp
using engine::KernelCounters;  // core/engine/engine.hpp

// The metrics read, in this order (names as Nsight Compute and CUPTI spell them).
inline constexpr const char* kCounterMetrics[] = {
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "gpu__time_duration.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
};

// Runs `c` once on `p` (device-resident, after one warm-up run) under the range profiler.
CounterReadout read_counters(const Correlator& c, const CorrelationProblem& p);

}  // namespace xcorr::gpu
