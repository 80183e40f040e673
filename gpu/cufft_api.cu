#include <string>

#include "gpu/cufft_api.cuh"
#include "gpu/nvidia_library.hpp"

namespace xcorr::gpu {

Result<const CufftApi*> cufft_api() {
  static const Result<CufftApi> api = []() -> Result<CufftApi> {
    const std::string soname = "libcufft.so." + std::to_string(CUFFT_VER_MAJOR);
    CufftApi a;
#define XCORR_CUFFT_LOAD(f) XCORR_RETURN_IF_ERROR(load_function(soname.c_str(), "cuFFT", #f, a.f));
    XCORR_CUFFT_FUNCTIONS(XCORR_CUFFT_LOAD)
#undef XCORR_CUFFT_LOAD
    return a;
  }();
  if (!api.is_ok()) return api.status();
  return &api.value();
}

}  // namespace xcorr::gpu
