#include "gpu/dic_gpu.hpp"
#include "gpu/engine.hpp"

namespace xcorr::gpu {

Result<std::unique_ptr<dic::FrameRegistrar>> make_dic_registrar(const dic::DicOptions& o) {
  // An unknown guess method is the job's error, found before any frame (not a failure of each).
  if (o.method != "auto") {
    auto named = find_method(engine_registry(), o.method);
    if (!named.is_ok()) return named.status();
  }
  const bool cpu_only =
      o.device == "cpu" || (o.device == "auto" && (o.propagation != dic::Propagation::independent ||
                                                   o.shape != dic::ShapeFunction::first_order));
  if (!cpu_only) {
    auto g = make_gpu_registrar(engine_registry());
    if (g.is_ok() || o.device == "gpu") return g;
  }
  return dic::make_cpu_registrar(engine_registry());
}

}  // namespace xcorr::gpu
