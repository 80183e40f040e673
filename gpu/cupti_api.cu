#include <string>

#include "gpu/cupti_api.cuh"
#include "gpu/nvidia_library.hpp"

namespace xcorr::gpu {

Result<const CuptiApi*> cupti_api() {
  static const Result<CuptiApi> api = []() -> Result<CuptiApi> {
    const std::string soname = "libcupti.so." + std::to_string(CUPTI_API_VERSION / 10000);
    CuptiApi a;
#define XCORR_CUPTI_LOAD(f) XCORR_RETURN_IF_ERROR(load_function(soname.c_str(), "CUPTI", #f, a.f));
    XCORR_CUPTI_FUNCTIONS(XCORR_CUPTI_LOAD)
#undef XCORR_CUPTI_LOAD
    return a;
  }();
  if (!api.is_ok()) return api.status();
  return &api.value();
}

}  // namespace xcorr::gpu
