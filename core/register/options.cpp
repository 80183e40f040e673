#include "core/register/options.hpp"

#include <cstdlib>
#include <limits>

#include "core/device_list.hpp"
#include "core/io/scale.hpp"
#include "core/io/stack_fields.hpp"
#include "core/tracking/tracking.hpp"

namespace xcorr::reg {
namespace {

// The stack fields' channel, plus "sum" (RegisterOptions::sums_channels).
std::vector<OptionField<RegisterOptions>> with_channel_sum(
    std::vector<OptionField<RegisterOptions>> table) {
  for (OptionField<RegisterOptions>& f : table)
    if (f.key == "channel") {
      f.doc += "; z-stacks registered as volumes (dims 3): sum, every channel added";
      f.choices.emplace_back("sum");
    }
  return table;
}

}  // namespace

const std::vector<OptionField<RegisterOptions>>& register_option_table() {
  using O = RegisterOptions;
  constexpr int kNoLimit = std::numeric_limits<int>::max();
  static const std::vector<OptionField<O>> table = with_channel_sum(io::with_stack_fields<O>(
      {
          enum_field<O>("reference", "Reference",
                        "first: against frame 0; previous: against the frame before, accumulated; "
                        "mean: against the mean of the frames registered to frame 0",
                        &O::reference),
          enum_field<O>("transform", "Transform",
                        "translation; rigid (rotation + translation), similarity (+ isotropic "
                        "scale) or affine: a Fourier-Mellin start refined by IC-GN (CPU or GPU)",
                        &O::transform),
          real_field<O>("max_rotation", "Max rotation", "deg",
                        "rigid and up: rotations searched each way; a frame rotated further fails",
                        &O::max_rotation, 0.1, 90),
          text_field<O>("smoothing", "Smoothing",
                        "rigid and up: Gaussian sigma (px) of the reference's gradients in the "
                        "fit, 0-10 (0: none; noise makes the fit creep without it), or auto: "
                        "where the reference's spectrum falls to its noise",
                        &O::smoothing, {"auto", "0.5", "1", "2", "3"}, false),
          text_field<O>("dims", "Dimensions",
                        "2: x, y drift of each time point's plane; 3: x, y, z drift of its volume "
                        "(3-D phase correlation); auto: 3 from 8 z-planes on",
                        &O::dims, {"auto", "2", "3"}, true),
          enum_field<O>(
              "method", "Method",
              "phase: phase correlation, DFT sub-pixel refinement; zncc: ZNCC peak search "
              "(GPU when present), quadratic sub-pixel fit",
              &O::method),
          integer_field<O>("upsample", "Upsample", "", "phase: sub-pixel resolution 1/upsample px",
                           &O::upsample, 1, 10000),
          enum_field<O>("window", "Window",
                        "phase: tukey (a quarter of each side tapered; frames are not periodic) or "
                        "none",
                        &O::window),
          enum_field<O>("whiten", "Whiten",
                        "phase: on divides the cross-power spectrum by its modulus (classic phase "
                        "correlation; with window none, scikit-image's default)",
                        &O::whiten),
          integer_field<O>(
              "iterations", "Iterations", "",
              "phase: measurements per frame, each on the frame moved back by the drift "
              "so far",
              &O::iterations, 1, 10),
          text_field<O>(
              "device", "Device",
              "phase and transforms: where frames and volumes are measured or fitted: auto "
              "(the GPU when present), cpu, gpu",
              &O::device, {"auto", "cpu", "gpu"}, true),
          as_placement(text_field<O>(
              "devices", "GPUs",
              "phase translations (2-D) on the GPU: the GPUs that share each block of frames: "
              "device numbers from `xcorr list` (0 or 0,1) or all; the drift is the same bit for "
              "bit",
              &O::devices, {"0", "all"}, false)),
          text_field<O>("region", "Region",
                        "rect:x,y,w,h px measured on (a feature that moves with the drift); empty: "
                        "the whole frame",
                        &O::region, {""}, false),
          integer_field<O>("max_shift", "Max shift", "px",
                           "zncc: searched each way (0: an eighth of the region's shorter side)",
                           &O::max_shift, 0, kNoLimit),
          enum_field<O>("z_projection", "Z projection",
                        "z-stacks: what is measured: plane (the z option's plane), max or mean "
                        "over the z-planes; every channel and z-plane moves with the drift",
                        &O::z_projection),
          with_choice_flags(
              enum_field<O>("border", "Border",
                            "pad: corrected frames keep their size, 0 where no data; crop: to the "
                            "area every frame covers",
                            &O::border),
              {"crop", "pad"}),
      },
      ""));
  return table;
}

Status RegisterOptions::check() const {
  XCORR_RETURN_IF_ERROR(check_fields(register_option_table(), *this));
  if (transform != Transform::translation && method != Method::phase)
    return Status{ErrorCode::invalid_argument,
                  "transform " + std::string(label(transform)) +
                      " is fitted on its own: method zncc measures translations only"};
  if (dims == "3" && transform != Transform::translation)
    return Status{ErrorCode::invalid_argument,
                  "dims 3 measures translations (x, y, z): transform " +
                      std::string(label(transform)) + " is 2-D only"};
  if (dims == "3" && reference == Reference::mean)
    return Status{ErrorCode::invalid_argument,
                  "dims 3 registers against the first or the previous volume: reference mean is "
                  "2-D only"};
  XCORR_RETURN_IF_ERROR(parse_device_list(devices, -1).status());
  if (devices != "0" &&
      (transform != Transform::translation || method != Method::phase || dims == "3"))
    return Status{ErrorCode::invalid_argument,
                  "devices " + devices +
                      ": only the phase method's 2-D translations share frames among GPUs; "
                      "transforms, zncc and volumes run on one (devices 0)"};
  if (smoothing != "auto") {
    char* end = nullptr;
    const double v = std::strtod(smoothing.c_str(), &end);
    if (smoothing.empty() || end != smoothing.c_str() + smoothing.size() || !(v >= 0 && v <= 10))
      return Status{ErrorCode::invalid_argument,
                    "smoothing '" + smoothing + "' is neither auto nor a sigma of 0-10 px"};
  }
  if (!sums_channels()) XCORR_RETURN_IF_ERROR(io::parse_channel_text(channel).status());
  if (!region.empty()) XCORR_RETURN_IF_ERROR(parse_region(region, 0, 0).status());
  return io::apply_user_scale({}, pixel_size, frame_interval).status();
}

bool registers_volumes(const RegisterOptions& o, long slices) {
  if (o.dims == "3") return true;
  if (o.dims == "2") return false;
  return slices >= kAutoVolumeSlices && o.transform == Transform::translation &&
         o.reference != Reference::mean;
}

std::optional<double> RegisterOptions::smoothing_px() const {
  if (smoothing == "auto") return std::nullopt;
  return std::strtod(smoothing.c_str(), nullptr);
}

io::PlaneSelection RegisterOptions::plane() const {
  auto p = io::parse_channel_text(sums_channels() ? "0" : channel, z);
  return p.is_ok() ? p.value() : io::PlaneSelection{};
}

Result<Rect> parse_region(const std::string& text, long cols, long rows) {
  if (text.empty()) return Rect{0, 0, cols, rows};
  // "rect:" and a template rectangle x,y,w,h (the Template tool's, core/tracking/tracking.hpp).
  const auto t = text.starts_with("rect:")
                     ? parse_template_rect(text.substr(5))
                     : Result<TemplateRect>(Status{ErrorCode::invalid_argument, ""});
  if (!t.is_ok())
    return Status{ErrorCode::invalid_argument, "region '" + text + "': expected rect:x,y,w,h (px)"};
  const Rect r{t.value().x, t.value().y, t.value().width, t.value().height};
  if (r.w < 8 || r.h < 8) {
    return Status{ErrorCode::invalid_argument, "region '" + text + "' is " + std::to_string(r.w) +
                                                   " x " + std::to_string(r.h) +
                                                   " px: it must be at least 8 x 8 px"};
  }
  if (cols > 0 && (r.x < 0 || r.y < 0 || r.x + r.w > cols || r.y + r.h > rows)) {
    return Status{ErrorCode::invalid_argument,
                  "region '" + text + "' must lie inside the " + std::to_string(cols) + " x " +
                      std::to_string(rows) + " px frame (width x height)"};
  }
  return r;
}

}  // namespace xcorr::reg
