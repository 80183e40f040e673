// DIC settings: one struct with defaults (units in comments) and check(); the CLI, job files and
// the GUI bind to it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.hpp"

namespace xcorr::dic {

enum class ShapeFunction { first_order, second_order };
enum class Propagation { independent, reliability_guided };
enum class StackMode { reference, incremental };
enum class StrainKind { green_lagrange, engineering };

struct DicOptions {
  int subset = 31;            // px, odd: square subsets of subset x subset pixels
  int step = 8;               // px between points of interest
  int search_radius = 10;     // px: integer search range of the initial guess, +-
  int max_iterations = 50;    // IC-GN iterations per point
  double convergence = 1e-3;  // stop when |dp| < this (px; gradient terms times half the subset)
  double min_zncc = 0.6;      // converged points below this ZNCC are reported as diverged
  double min_texture = 1.0;   // grey values: subsets with a smaller intensity std are low_texture
  ShapeFunction shape = ShapeFunction::first_order;
  Propagation propagation = Propagation::independent;
  StackMode stack_mode = StackMode::reference;
  int reference_update = 0;  // incremental mode: new reference every N frames (0: never)
  int strain_window = 5;     // points (odd): the plane fit for strain spans this many per side
  StrainKind strain = StrainKind::green_lagrange;
  std::string method = "auto";  // correlation variant of the initial guess (see `xcorr list`)
  std::string device = "auto";  // where frames are registered: auto (GPU when present and the
                                // propagation is independent), cpu or gpu

  Status check() const;
};

const char* to_string(ShapeFunction v);
const char* to_string(Propagation v);
const char* to_string(StackMode v);
const char* to_string(StrainKind v);
std::optional<ShapeFunction> parse_shape_function(std::string_view s);
std::optional<Propagation> parse_propagation(std::string_view s);
std::optional<StackMode> parse_stack_mode(std::string_view s);
std::optional<StrainKind> parse_strain_kind(std::string_view s);

}  // namespace xcorr::dic
