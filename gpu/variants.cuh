// Factories of the GPU variants (registered by add_gpu_variants) and shared model pieces.
#pragma once

#include <memory>
#include <vector>

#include "core/correlator.hpp"

namespace xcorr::gpu {

std::unique_ptr<Correlator> make_basic_correlator();
std::unique_ptr<Correlator> make_fft_correlator();
std::unique_ptr<Correlator> make_fft_shared_correlator();
std::unique_ptr<Correlator> make_fft_fused_correlator();
std::unique_ptr<Correlator> make_small_direct_correlator();
std::unique_ptr<Correlator> make_tiled_correlator_4x1();
std::unique_ptr<Correlator> make_tiled_correlator_8x1();
std::unique_ptr<Correlator> make_warp_per_shift_correlator();
std::unique_ptr<Correlator> make_warp_per_shift_shared_correlator();
std::unique_ptr<Correlator> make_block_per_shift_correlator();
std::vector<std::unique_ptr<Correlator>> make_warp_shuffle_correlators();  // one per thesis name
std::unique_ptr<Correlator> make_zncc_tiled_correlator();

// Model prior of host <-> device copies for a run from host memory (~20 GB/s, 10 us).
double transfer_seconds(const CorrelationProblem& p);
// Model priors of the ZNCC epilogue (gpu/zncc_epilogue.cuh) and the peak reduction
// (gpu/peak_reduce.cuh) on p's surfaces.
double zncc_epilogue_seconds(const CorrelationProblem& p);
double peak_reduce_seconds(const CorrelationProblem& p);

}  // namespace xcorr::gpu
