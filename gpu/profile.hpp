// Profiles of one correlation problem across every variant that can run it (CUDA-free header;
// used by `xcorr profile` and the desktop app's profiling panel): timings (kernel-only with CUDA
// events on the GPU, wall time on the CPU), GFLOP/s, bandwidth, and per GPU kernel its resources,
// occupancy (ours and CUDA's), modelled shared-memory traffic and bank conflicts (with the gcd
// degree and conflict-free padding of each shared array) and, when CUPTI can read them, the
// measured counters. JSON: the rows `xcorr profile --out x.json` writes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/correlation.hpp"
#include "core/profiling/kernel_smem.hpp"
#include "gpu/counters.hpp"

namespace xcorr::gpu {

struct KernelRow {
  std::string kernel;
  int registers = 0, static_shared_bytes = 0, dynamic_shared_bytes = 0, local_bytes = 0;
  int threads_per_block = 0;
  double occupancy = 0, cuda_occupancy = 0;  // active warps / max warps
  std::string limiter;
  std::optional<profiling::SmemTraffic> smem_model;  // none: the kernel has no shared arrays
  std::vector<profiling::SmemArray> smem_arrays;
  std::optional<KernelCounters> counters;  // measured, matched to the launch by order
};

struct VariantProfile {
  std::string variant, device, params;
  std::string form, mode, norm, output = "surface";
  Index rows = 0, cols = 0, n = 0, m = 0;  // right matrices' size; left and right counts
  double median_ms = 0, min_ms = 0, p90_ms = 0, e2e_ms = 0, gflops = 0, bandwidth_gb_s = 0;
  std::vector<KernelRow> kernels;  // empty on the CPU and for cuFFT
  std::string counters_note;       // why counters are missing (empty when read)
};

struct ProfileRequest {
  Form form = Form::one_to_many;
  Mode mode = Mode::full;
  Normalization norm = Normalization::none;
  Output output = Output::surface;  // peak: valid mode only
  Index rows = 64, cols = 64;       // right matrices (valid mode: templates of half the size)
  Index template_size = 0;          // valid mode: template side (px) instead of half the size
  Index n = 1, m = 16;              // lefts (n_to_m, n_to_mn); rights (or rights per left: n_to_mn)
  int repeats = 10;
  bool counters = true;               // read hardware counters (CUPTI) for GPU variants
  std::vector<std::string> variants;  // empty: all that can run it
};

// Progress: after each variant; false cancels (ErrorCode::cancelled).
Result<std::vector<VariantProfile>> profile_problem(
    const ProfileRequest& r, const std::function<bool(long long, long long)>& progress = {});

std::string profile_to_json(const std::vector<VariantProfile>& rows);
Result<std::vector<VariantProfile>> profile_from_json(const std::string& text);
std::string profile_to_csv(const std::vector<VariantProfile>& rows);  // one row per kernel

}  // namespace xcorr::gpu
