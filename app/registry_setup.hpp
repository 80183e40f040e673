// The registry every front end uses: the CPU variants, and the GPU variants when a device is
// present.
#pragma once

#include "core/registry.hpp"

namespace xcorr::app {

const Registry& engine_registry();

}  // namespace xcorr::app
