// The registry every front end uses: CPU variants (and GPU variants once the GPU engine lands).
#pragma once

#include "core/registry.hpp"

namespace xcorr::app {

const Registry& engine_registry();

}  // namespace xcorr::app
