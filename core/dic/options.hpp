// DIC settings: one struct with defaults (units in comments), declared once in
// dic_option_table() (core/options_table.hpp): the CLI flags, job and project files, the CSV
// settings header, the desktop app's form and check() all work from that table.
#pragma once

#include <string>
#include <vector>

#include "core/correlation.hpp"
#include "core/enum_labels.hpp"
#include "core/io/channel.hpp"
#include "core/options_table.hpp"
#include "core/status.hpp"

namespace xcorr::dic {

enum class ShapeFunction { first_order, second_order };
enum class Propagation { independent, reliability_guided };
enum class StackMode { reference, incremental };
// Where each frame's integer search starts: where the frame before converged (previous), or at
// the current reference's own position (reference: every frame stands alone in reference mode).
enum class FrameGuess { previous, reference };
enum class StrainKind { green_lagrange, engineering };
enum class OnOff { on, off };
enum class Interpolation { quintic, cubic };

}  // namespace xcorr::dic

namespace xcorr {
template <>
struct EnumLabels<dic::ShapeFunction> {
  static constexpr std::pair<dic::ShapeFunction, const char*> table[] = {
      {dic::ShapeFunction::first_order, "first"}, {dic::ShapeFunction::second_order, "second"}};
};
template <>
struct EnumLabels<dic::Propagation> {
  static constexpr std::pair<dic::Propagation, const char*> table[] = {
      {dic::Propagation::independent, "independent"},
      {dic::Propagation::reliability_guided, "reliability"}};
};
template <>
struct EnumLabels<dic::StackMode> {
  static constexpr std::pair<dic::StackMode, const char*> table[] = {
      {dic::StackMode::reference, "reference"}, {dic::StackMode::incremental, "incremental"}};
};
template <>
struct EnumLabels<dic::FrameGuess> {
  static constexpr std::pair<dic::FrameGuess, const char*> table[] = {
      {dic::FrameGuess::previous, "previous"}, {dic::FrameGuess::reference, "reference"}};
};
template <>
struct EnumLabels<dic::OnOff> {
  static constexpr std::pair<dic::OnOff, const char*> table[] = {{dic::OnOff::on, "on"},
                                                                 {dic::OnOff::off, "off"}};
};
template <>
struct EnumLabels<dic::Interpolation> {
  static constexpr std::pair<dic::Interpolation, const char*> table[] = {
      {dic::Interpolation::quintic, "quintic"}, {dic::Interpolation::cubic, "cubic"}};
};
template <>
struct EnumLabels<dic::StrainKind> {
  static constexpr std::pair<dic::StrainKind, const char*> table[] = {
      {dic::StrainKind::green_lagrange, "green_lagrange"},
      {dic::StrainKind::engineering, "engineering"}};
};
}  // namespace xcorr

namespace xcorr::dic {

struct DicOptions {
  int subset = 31;            // px, odd: square subsets of subset x subset pixels
  int step = 8;               // px between points of interest
  int search_radius = 10;     // px: integer search range of the initial guess, +-
  int max_iterations = 50;    // IC-GN iterations per point
  double convergence = 1e-3;  // stop when |dp| < this (px; gradient terms times half the subset)
  double min_zncc = 0.6;      // converged points below this ZNCC are reported as diverged
  double min_texture = 1.0;   // grey values: subsets with a smaller intensity std are low_texture
  // px: independent points further than this from their converged neighbours' median are
  // registered again from it, else marked inconsistent (core/dic/consistency.hpp); 0: off
  double max_deviation = 1.0;
  ShapeFunction shape = ShapeFunction::first_order;
  // B-spline of IC-GN's interpolation; and the sigma (px) of a Gaussian that smooths both
  // images before it (0: none). Together they remove the interpolation's sub-pixel bias
  // (docs/dic.md, "Sub-pixel bias").
  Interpolation interpolation = Interpolation::quintic;
  double prefilter = 0.6;
  Propagation propagation = Propagation::independent;
  StackMode stack_mode = StackMode::reference;
  int reference_update = 0;  // incremental mode: new reference every N frames (0 or 1: every
                             // frame)
  // previous: a point's search starts from its warp in the frame before (it follows large
  // motion a search radius per frame); reference: from no displacement from the current
  // reference, so that in reference mode each frame's result depends only on the reference and
  // that frame (frames out of order, a damaged frame that must not lead the next astray).
  FrameGuess frame_guess = FrameGuess::previous;
  int strain_window = 5;  // points (odd): the plane fit for strain spans this many per side
  StrainKind strain = StrainKind::green_lagrange;
  OnOff roi_only = OnOff::on;  // results files: only points inside the ROI (off: every point of
                               // the work window's grid, outside_roi ones included)
  // Colour images: luminance, red, green or blue; hyperstacks: the channel number (0-based;
  // core/io/channel.hpp). z: a hyperstack's z-plane (0-based). The frames are the time points.
  std::string channel = "luminance";
  int z = 0;
  // The stack's scale (core/io/scale.hpp): "" takes the file's metadata, "none" drops it, else
  // the user's value ("0.65um", "0.65x0.7um"; "2s", "500ms").
  std::string pixel_size;
  std::string frame_interval;
  std::string method = "auto";  // correlation variant of the initial guess (see `xcorr list`)
  Accuracy accuracy = Accuracy::fast;  // which variants the guess's auto may pick
  std::string device = "auto";         // where frames are registered: auto (the GPU when
                                       // present), cpu or gpu
  // The GPUs that register each frame (core/device_list.hpp: "0", "0,1", "all"); several share
  // every frame's points, with the same results bit for bit as one.
  std::string devices = "0";

  Status check() const;              // every field of dic_option_table() in its range or choices
  io::PlaneSelection plane() const;  // channel and z as read by the image readers (checked)
};

// The table of every DIC option, in the order forms and headers show them.
const std::vector<OptionField<DicOptions>>& dic_option_table();

const char* to_string(ShapeFunction v);
const char* to_string(Propagation v);
const char* to_string(StackMode v);
const char* to_string(FrameGuess v);
const char* to_string(StrainKind v);

}  // namespace xcorr::dic
