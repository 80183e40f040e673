#include "gpu/nvidia_library.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>

namespace xcorr::gpu {

Result<void*> nvidia_symbol(const char* soname, const char* what, const char* symbol) {
  static std::mutex mutex;
  static std::map<std::string, void*> handles;  // never closed: the process keeps them
  std::lock_guard lock(mutex);
  void*& handle = handles[soname];
  if (handle == nullptr) {
    // The loader's path first (LD_LIBRARY_PATH, ldconfig), then the toolkit built against.
    const std::string in_toolkit = std::string(XCORR_CUDA_LIBRARY_DIR) + "/" + soname;
    handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) handle = dlopen(in_toolkit.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      return Status{ErrorCode::unsupported,
                    std::string(what) + " is not installed (" + soname +
                        " is neither on the loader's path nor in " + XCORR_CUDA_LIBRARY_DIR +
                        "). It comes with the CUDA 13 toolkit; make its lib folder known to the "
                        "loader (ldconfig or LD_LIBRARY_PATH)"};
    }
  }
  dlerror();
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    return Status{ErrorCode::unsupported, std::string(what) + " (" + soname + ") lacks " + symbol +
                                              ": a different version than the one built against"};
  }
  return address;
}

}  // namespace xcorr::gpu
