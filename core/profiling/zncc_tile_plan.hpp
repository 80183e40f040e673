// The host's choice of tile, rows per thread and shared-memory pitches for gpu_zncc_tiled
// (core/smem/zncc_tile_layout.hpp says what each field means). Plain C++ (no CUDA): the kernel,
// its bank-conflict model and the tests use the same plan.
#pragma once

#include "core/profiling/occupancy.hpp"
#include "core/smem/zncc_tile_layout.hpp"
#include "core/status.hpp"

namespace xcorr::profiling {

// Rows per thread the kernel is instantiated for.
inline constexpr int kZnccRowChoices[] = {4, 5, 6, 7, 8};

// Template h x w in a window H x W. rows_per_thread: one of kZnccRowChoices, or 0 = the one
// with the least padded multiply-adds weighted by the measured speed of its main loop and the
// latency its resident warps on an SM with limits `sm` leave unhidden (ties: the smaller;
// relative_cost in the .cpp, fitted to the H200). Fails (unsupported) when even the smallest
// tile needs more than max_smem_bytes of shared memory (the device's opt-in limit per block).
// `sm` defaults to sm_90's limits (tests); the engine passes the device's.
Result<smem::ZnccTilePlan> plan_zncc_tiles(int h, int w, int H, int W, int rows_per_thread,
                                           long long max_smem_bytes, const SmLimits& sm = {});

// Relative time (multiply-add equivalents) of a launch of `blocks` blocks of plan p on a GPU of
// `sms` SMs with limits `sm`: its padded multiply-adds weighted by the measured speed of the
// main loop per RY, the latency its resident warps leave unhidden and the share of the SMs it
// occupies (formula and fit in the .cpp).
double zncc_cost(const smem::ZnccTilePlan& p, double blocks, double sms, const SmLimits& sm = {});

// Blocks of the plan's kernel one SM with limits `sm` holds (profiling::theoretical_occupancy:
// threads, shared memory, the block limit; registers are left out: ~50 a thread, never the
// limit here).
int zncc_blocks_per_sm(const smem::ZnccTilePlan& p, const SmLimits& sm = {});

}  // namespace xcorr::profiling
