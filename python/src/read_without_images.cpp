// xcorr.read_stack in a build without image support (no libtiff: core/io reads no image
// files): it says so, as the CLI does.
#include "python/src/common.hpp"
#include "python/src/functions.hpp"

namespace xcorr::python {

py::dict read_stack(const std::string&, const std::string&) {
  raise(Status{ErrorCode::unsupported, "this build has no image support (built without libtiff)"});
}

}  // namespace xcorr::python
