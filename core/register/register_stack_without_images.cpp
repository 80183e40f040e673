// core/register/register_stack.hpp in a build without image support (no libtiff):
// registration reads and writes image stacks, so it says why it cannot run.
#include "core/register/register_stack.hpp"

namespace xcorr::reg {

Result<RegisterReport> register_stack(const RegisterJob&, const Engines&, const RegisterProgress&,
                                      const RegisterShare*) {
  return Status{ErrorCode::unsupported, "this build has no image support (built without libtiff)"};
}

Result<RegisterReport> register_memory(const MemoryStack&, const RegisterOptions&, const Engines&,
                                       Stack<float>*, const RegisterProgress&) {
  return Status{ErrorCode::unsupported, "this build has no image support (built without libtiff)"};
}

}  // namespace xcorr::reg
