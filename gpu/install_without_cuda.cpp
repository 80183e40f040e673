// engine::install_gpu() in a build without CUDA: there is no GPU backend, so the engine stays
// CPU-only and its GPU calls say "built without CUDA".
#include "core/engine/engine.hpp"

namespace xcorr::engine {

void install_gpu() {}

}  // namespace xcorr::engine
