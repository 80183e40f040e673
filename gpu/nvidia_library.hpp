// NVIDIA libraries that are not on every machine (cuFFT, CUPTI) are opened at run time, when
// first needed, instead of being linked: the programs start, and run on the CPU, where the CUDA
// toolkit is not installed, and a GPU path that needs a missing library says which one and how
// to get it. (The CUDA runtime is linked statically; the driver is reached through it.)
#pragma once

#include <cstring>

#include "core/status.hpp"

namespace xcorr::gpu {

// The address of `symbol` in the library `soname` (opened once, dlopen RTLD_NOW | RTLD_LOCAL).
// `what` names the library in messages ("cuFFT").
Result<void*> nvidia_symbol(const char* soname, const char* what, const char* symbol);

// Fills the function pointer `fn` with `symbol` of `soname`.
template <class Fn>
Status load_function(const char* soname, const char* what, const char* symbol, Fn& fn) {
  auto p = nvidia_symbol(soname, what, symbol);
  if (!p.is_ok()) return p.status();
  void* address = p.value();
  static_assert(sizeof(Fn) == sizeof(void*));
  std::memcpy(&fn, &address, sizeof fn);  // object pointer to function pointer (POSIX dlsym)
  return Status::ok();
}

}  // namespace xcorr::gpu
