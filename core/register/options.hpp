// Stack registration (drift correction) settings: one struct with defaults, declared once in
// register_option_table() (core/options_table.hpp): the `xcorr register` flags, the `register`
// job of batch files, the drift CSV's settings line and the desktop app's dialog work from it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/enum_labels.hpp"
#include "core/io/channel.hpp"
#include "core/options_table.hpp"
#include "core/register/transform_fit.hpp"
#include "core/status.hpp"

namespace xcorr::reg {

enum class Reference { first, previous, mean };
enum class Method { phase, zncc };
enum class Border { pad, crop };
enum class Window { tukey, none };
enum class Whiten { off, on };
enum class ZProjection { plane, max, mean };

}  // namespace xcorr::reg

namespace xcorr {
template <>
struct EnumLabels<reg::Reference> {
  static constexpr std::pair<reg::Reference, const char*> table[] = {
      {reg::Reference::first, "first"},
      {reg::Reference::previous, "previous"},
      {reg::Reference::mean, "mean"}};
};
template <>
struct EnumLabels<reg::Method> {
  static constexpr std::pair<reg::Method, const char*> table[] = {{reg::Method::phase, "phase"},
                                                                  {reg::Method::zncc, "zncc"}};
};
template <>
struct EnumLabels<reg::Border> {
  static constexpr std::pair<reg::Border, const char*> table[] = {{reg::Border::pad, "pad"},
                                                                  {reg::Border::crop, "crop"}};
};
template <>
struct EnumLabels<reg::Window> {
  static constexpr std::pair<reg::Window, const char*> table[] = {{reg::Window::tukey, "tukey"},
                                                                  {reg::Window::none, "none"}};
};
template <>
struct EnumLabels<reg::ZProjection> {
  static constexpr std::pair<reg::ZProjection, const char*> table[] = {
      {reg::ZProjection::plane, "plane"},
      {reg::ZProjection::max, "max"},
      {reg::ZProjection::mean, "mean"}};
};
template <>
struct EnumLabels<reg::Whiten> {
  static constexpr std::pair<reg::Whiten, const char*> table[] = {{reg::Whiten::off, "off"},
                                                                  {reg::Whiten::on, "on"}};
};
}  // namespace xcorr

namespace xcorr::reg {

struct RegisterOptions {
  // first: every frame against frame 0; previous: against the frame before, shifts accumulated;
  // mean: against the mean of the frames registered to frame 0 (a second pass).
  Reference reference = Reference::first;
  // What a frame's motion is: translation (phase or zncc below), or rigid, similarity, affine
  // (transform_fit.hpp: Fourier-Mellin start, IC-GN over the whole region; on the CPU).
  Transform transform = Transform::translation;
  double max_rotation = 45;  // degrees each way (rigid and up): a larger rotation fails a frame
  // rigid and up: Gaussian sigma (px) of the reference's gradients, or "auto": chosen from each
  // reference's spectrum and noise (auto_smoothing.hpp).
  std::string smoothing = "auto";
  // 2: each time point's plane or z projection is registered in x, y; 3: its volume, in x, y
  // and z (register_volumes.hpp); auto: 3 for stacks of kAutoVolumeSlices z-planes or more.
  std::string dims = "auto";
  // phase: phase correlation with DFT sub-pixel refinement (GPU: cuFFT; CPU: FFTW); zncc: the
  // engine's ZNCC peak search (GPU when present) with a 2-D quadratic sub-pixel fit.
  Method method = Method::phase;
  int upsample = 100;  // phase: sub-pixel resolution 1 / upsample px
  // phase: a Tukey window before the transform, and whether the cross-power spectrum is
  // whitened (classic phase correlation; with window none it is scikit-image's default).
  Window window = Window::tukey;
  Whiten whiten = Whiten::off;
  // phase: measurements per frame; each after the first measures what is left once the frame is
  // moved back by the drift found so far (removes the window's pull towards no shift).
  int iterations = 2;
  // phase: where frames are measured: auto (the GPU when present), cpu, gpu. zncc goes where the
  // engine's dispatcher puts it.
  std::string device = "auto";
  // phase translations (2-D) on the GPU: the GPUs that share each block of frames
  // (core/device_list.hpp: "0", "0,1", "all"); the drift is the same bit for bit.
  std::string devices = "0";
  std::string region;  // "rect:x,y,w,h" px measured on; empty: the whole frame
  int max_shift = 0;   // zncc: px searched each way (0: an eighth of the region's shorter side)
  // z-stacks: measured on the z option's plane, or the max or mean over the z-planes.
  ZProjection z_projection = ZProjection::plane;
  Border border = Border::pad;        // corrected frames: pad with 0, or crop to the common area
  std::string channel = "luminance";  // as the DIC option (colour, or a hyperstack's channel)
  int z = 0;                          // a hyperstack's z-plane
  std::string pixel_size;             // as the DIC options: "" from the file, "none", "0.65um"
  std::string frame_interval;

  Status check() const;
  // The fit's smoothing: px, or none for "auto" (check() first).
  std::optional<double> smoothing_px() const;
  // The pages read: the channel's (channel 0 when every channel is summed).
  io::PlaneSelection plane() const;
  // channel "sum" (volumes, dims 3): every channel of a hyperstack added voxel by voxel is what
  // is measured (the corrected stack still moves each channel).
  bool sums_channels() const { return channel == "sum"; }
};

const std::vector<OptionField<RegisterOptions>>& register_option_table();

// dims auto registers volumes from this many z-planes on (fewer: 2-D, as before --dims).
inline constexpr long kAutoVolumeSlices = 8;
// Whether a stack of `slices` z-planes is registered as volumes under these options.
bool registers_volumes(const RegisterOptions& o, long slices);

// The region "rect:x,y,w,h" as x, y, w, h px; the whole frame when `text` is empty. The message
// names the region and the frame size when it does not fit.
struct Rect {
  long x = 0, y = 0, w = 0, h = 0;
};
// cols 0: the frame is not known yet (the syntax and the smallest size are checked).
Result<Rect> parse_region(const std::string& text, long cols, long rows);

}  // namespace xcorr::reg
