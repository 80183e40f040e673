#include "core/dic/options.hpp"

#include <cmath>
#include <limits>

#include "core/device_list.hpp"
#include "core/io/scale.hpp"
#include "core/io/stack_fields.hpp"

namespace xcorr::dic {

namespace {

constexpr int kNoLimit = std::numeric_limits<int>::max();
constexpr double kUnbounded = std::numeric_limits<double>::infinity();

}  // namespace

const std::vector<OptionField<DicOptions>>& dic_option_table() {
  using O = DicOptions;
  static const std::vector<OptionField<O>> table = io::with_stack_fields<O>(
      {
          as_summary(integer_field<O>("subset", "Subset", "px",
                                      "Square subsets of subset x subset pixels (odd)", &O::subset,
                                      5, kNoLimit, true)),
          as_summary(integer_field<O>("step", "Step", "px", "Distance between points of the grid",
                                      &O::step, 1, kNoLimit)),
          integer_field<O>("search_radius", "Search radius", "px",
                           "Integer search range of the initial guess, +- around the prediction",
                           &O::search_radius, 0, kNoLimit),
          as_summary(enum_field<O>("shape", "Shape function",
                                   "First- or second-order subset shape function", &O::shape)),
          enum_field<O>("interpolation", "Interpolation",
                        "B-spline of the sub-pixel interpolation: quintic (least bias) or cubic "
                        "(faster)",
                        &O::interpolation),
          real_field<O>("prefilter", "Prefilter", "px",
                        "Sigma of the Gaussian that smooths both images before interpolation "
                        "(0: none)",
                        &O::prefilter, 0, 2),
          integer_field<O>("max_iterations", "Max iterations", "", "IC-GN iterations per point",
                           &O::max_iterations, 1, kNoLimit),
          real_field<O>("convergence", "Convergence", "px",
                        "Stop when |dp| < this (gradient terms times half the subset)",
                        &O::convergence, 0, kUnbounded, true),
          real_field<O>("min_zncc", "Min ZNCC", "",
                        "Converged points below this ZNCC count as diverged", &O::min_zncc, -1, 1),
          real_field<O>("max_deviation", "Max deviation", "px",
                        "Independent points further than this from their neighbours' median are "
                        "registered again from it, else marked inconsistent (0: off)",
                        &O::max_deviation, 0, kUnbounded),
          real_field<O>("min_texture", "Min texture", "grey values",
                        "Subsets whose intensity standard deviation is smaller are low_texture",
                        &O::min_texture, 0, kUnbounded),
          as_summary(enum_field<O>("propagation", "Propagation",
                                   "independent points, or reliability-guided from the best seeds",
                                   &O::propagation)),
          as_summary(enum_field<O>("stack_mode", "Stack mode",
                                   "reference: frame k against the reference; incremental: "
                                   "against the last reference frame, accumulated",
                                   &O::stack_mode)),
          integer_field<O>("reference_update", "Reference update", "frames",
                           "incremental: move the reference every N frames (0 or 1: every frame)",
                           &O::reference_update, 0, kNoLimit),
          enum_field<O>("frame_guess", "Frame guess",
                        "Where each frame's search starts: previous (where the frame before "
                        "converged: follows large motion) or reference (no displacement: in "
                        "reference mode every frame on its own; motion within the search radius)",
                        &O::frame_guess),
          integer_field<O>("strain_window", "Strain window", "points",
                           "Plane-fit window for strain, points per side (odd)", &O::strain_window,
                           3, kNoLimit, true),
          enum_field<O>("strain", "Strain", "Strain measure", &O::strain),
          enum_field<O>("roi_only", "ROI rows only",
                        "on: results files hold the points inside the ROI; off: every point of the "
                        "grid around it too (marked outside_roi)",
                        &O::roi_only),
          text_field<O>(
              "method",
              "Guess variant",
              "Correlation variant of the integer guess: auto (on the GPU: gpu_guess_strips, "
              "the DIC's own search), gpu_guess_strips or a name from `xcorr list`",
              &O::method, {"auto"}, false),
          enum_field<O>("accuracy", "Guess accuracy",
                        "fast: the fastest guess variant; exact: only direct ones, each ZNCC its "
                        "own sum (docs/formats.md, Accuracy)",
                        &O::accuracy),
          as_summary(text_field<O>("device", "Device", "auto (the GPU when present), cpu or gpu",
                                   &O::device, {"auto", "cpu", "gpu"}, true)),
          as_placement(text_field<O>(
              "devices", "GPUs",
              "GPUs that register each frame, sharing its points: device numbers from `xcorr "
              "list` (0 or 0,1) or all; results are the same bit for bit",
              &O::devices, {"0", "all"}, false)),
      },
      "method");
  return table;
}

Status DicOptions::check() const {
  XCORR_RETURN_IF_ERROR(check_fields(dic_option_table(), *this));
  XCORR_RETURN_IF_ERROR(parse_device_list(devices, -1).status());
  XCORR_RETURN_IF_ERROR(io::parse_channel_text(channel).status());
  // The scale's texts parse (the file's values are not needed for that).
  return io::apply_user_scale({}, pixel_size, frame_interval).status();
}

io::PlaneSelection DicOptions::plane() const {
  auto p = io::parse_channel_text(channel, z);
  return p.is_ok() ? p.value() : io::PlaneSelection{};
}

const char* to_string(ShapeFunction v) {
  return label(v);
}
const char* to_string(Propagation v) {
  return label(v);
}
const char* to_string(StackMode v) {
  return label(v);
}
const char* to_string(FrameGuess v) {
  return label(v);
}
const char* to_string(StrainKind v) {
  return label(v);
}

}  // namespace xcorr::dic
