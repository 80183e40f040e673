#include <cstdlib>
#include <string>

#include "gpu/cufft_api.cuh"
#include "gpu/device.hpp"
#include "gpu/device_model.cuh"
#include "gpu/engine.hpp"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

// Whether cuFFT can plan here. Only in doubt under CUDA_FORCE_PTX_JIT=1 (how this project runs
// its own kernels from PTX on one GPU, as another GPU would): the driver then ignores every
// machine code, cuFFT's too, and cuFFT carries PTX for only part of its kernels (seen on the
// H200: mixed-radix plans fail with CUFFT_INTERNAL_ERROR). On a real GPU cuFFT runs its own
// machine code for it. A mixed-radix 2-D plan each way, made and destroyed, decides.
bool cufft_plans_here() {
  const char* forced = std::getenv("CUDA_FORCE_PTX_JIT");
  if (forced == nullptr || std::string(forced) != "1") return true;
  const CufftApi& api = *cufft_api().value();
  for (const cufftType type : {CUFFT_R2C, CUFFT_C2R}) {
    cufftHandle h{};
    int n[2] = {75, 105};
    if (api.cufftPlanMany(&h, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1) != CUFFT_SUCCESS)
      return false;
    api.cufftDestroy(h);
  }
  return true;
}

}  // namespace

void add_gpu_variants(Registry& r) {
  if (!list_devices().is_ok() || !device_info(0).unusable.empty()) return;
  r.add(make_basic_correlator());
  // Not where cuFFT is not installed (or cannot plan: cufft_plans_here).
  if (cufft_api().is_ok() && cufft_plans_here()) r.add(make_fft_correlator());
  r.add(make_fft_shared_correlator());
  r.add(make_fft_fused_correlator());
  r.add(make_small_direct_correlator());
  r.add(make_tiled_correlator_4x1());
  r.add(make_tiled_correlator_8x1());
  r.add(make_warp_per_shift_correlator());
  r.add(make_warp_per_shift_shared_correlator());
  r.add(make_block_per_shift_correlator());
  for (auto& c : make_warp_shuffle_correlators()) r.add(std::move(c));
  r.add(make_zncc_tiled_correlator());
}

}  // namespace xcorr::gpu
