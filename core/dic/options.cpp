#include "core/dic/options.hpp"

#include <cmath>

namespace xcorr::dic {

Status DicOptions::check() const {
  auto bad = [](const std::string& m) { return Status{ErrorCode::invalid_argument, m}; };
  if (subset < 5 || subset % 2 == 0)
    return bad("subset " + std::to_string(subset) + " px: must be odd and at least 5");
  if (step < 1) return bad("step " + std::to_string(step) + " px: must be at least 1");
  if (search_radius < 0) return bad("search radius must be >= 0 px");
  if (max_iterations < 1) return bad("max iterations must be >= 1");
  if (!(convergence > 0) || !std::isfinite(convergence)) return bad("convergence must be > 0");
  if (!(min_zncc >= -1 && min_zncc <= 1)) return bad("min ZNCC must lie in [-1, 1]");
  if (!(min_texture >= 0) || !std::isfinite(min_texture)) return bad("min texture must be >= 0");
  if (reference_update < 0) return bad("reference update must be >= 0 frames");
  if (strain_window < 3 || strain_window % 2 == 0)
    return bad("strain window " + std::to_string(strain_window) + ": must be odd and at least 3");
  if (device != "auto" && device != "cpu" && device != "gpu")
    return bad("device '" + device + "': expected auto, cpu or gpu");
  return Status::ok();
}

const char* to_string(ShapeFunction v) {
  return v == ShapeFunction::first_order ? "first" : "second";
}
const char* to_string(Propagation v) {
  return v == Propagation::independent ? "independent" : "reliability";
}
const char* to_string(StackMode v) {
  return v == StackMode::reference ? "reference" : "incremental";
}
const char* to_string(StrainKind v) {
  return v == StrainKind::green_lagrange ? "green_lagrange" : "engineering";
}
std::optional<ShapeFunction> parse_shape_function(std::string_view s) {
  if (s == "first") return ShapeFunction::first_order;
  if (s == "second") return ShapeFunction::second_order;
  return std::nullopt;
}
std::optional<Propagation> parse_propagation(std::string_view s) {
  if (s == "independent") return Propagation::independent;
  if (s == "reliability") return Propagation::reliability_guided;
  return std::nullopt;
}
std::optional<StackMode> parse_stack_mode(std::string_view s) {
  if (s == "reference") return StackMode::reference;
  if (s == "incremental") return StackMode::incremental;
  return std::nullopt;
}
std::optional<StrainKind> parse_strain_kind(std::string_view s) {
  if (s == "green_lagrange") return StrainKind::green_lagrange;
  if (s == "engineering") return StrainKind::engineering;
  return std::nullopt;
}

}  // namespace xcorr::dic
