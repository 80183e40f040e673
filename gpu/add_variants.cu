#include "gpu/cufft_api.cuh"
#include "gpu/device.hpp"
#include "gpu/device_model.cuh"
#include "gpu/engine.hpp"
#include "gpu/variants.cuh"

namespace xcorr::gpu {

void add_gpu_variants(Registry& r) {
  if (!list_devices().is_ok() || !device_info(0).unusable.empty()) return;
  r.add(make_basic_correlator());
  if (cufft_api().is_ok()) r.add(make_fft_correlator());  // not where cuFFT is not installed
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
