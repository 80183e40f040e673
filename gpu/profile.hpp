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
#include "core/engine/engine.hpp"
#include "core/profiling/kernel_smem.hpp"
#include "gpu/counters.hpp"

namespace xcorr::gpu {

// Declared in the engine facade (core/engine/engine.hpp), defined in profile.cpp.
using engine::KernelRow;
using engine::profile_from_json;
using engine::profile_problem;
using engine::profile_to_csv;
using engine::profile_to_json;
using engine::ProfileRequest;
using engine::VariantProfile;

}  // namespace xcorr::gpu
