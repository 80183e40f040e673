// xcorr speckle: synthetic speckle stacks with a known translation or affine field (tests,
// sample data).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "core/io/image_io.hpp"
#include "core/synth/speckle.hpp"

namespace xcorr::app {
namespace {

struct SpeckleCommandOptions {
  std::string out;
  std::vector<Index> size{256, 256};  // rows, cols (px)
  Index frames = 1;
  std::vector<double> shift{0.0, 0.0};  // dy, dx per frame (px)
  std::vector<double> affine;           // ux, uy, vx, vy per frame, about the image centre
  std::vector<Index> crop;              // row, col, rows, cols (px), applied to every frame
  synth::SpeckleOptions speckle;
  int bits = 16;
};

Status run_speckle(SpeckleCommandOptions o) {
  o.speckle.rows = o.size[0];
  o.speckle.cols = o.size[1];
  if (o.speckle.rows < 1 || o.speckle.cols < 1 || o.frames < 1) {
    return {ErrorCode::invalid_argument, "--size and --frames must be positive"};
  }
  Stack<float> all;
  if (o.affine.empty()) {
    all = synth::render_translation_stack(o.speckle, o.frames, o.shift[0], o.shift[1]);
  } else {
    // Frame k: k times the per-frame translation and gradients, about the image centre.
    all = Stack<float>(o.speckle.rows, o.speckle.cols, o.frames);
    for (Index k = 0; k < o.frames; ++k) {
      const auto kd = static_cast<double>(k);
      const auto field = synth::affine_field(kd * o.shift[1], kd * o.shift[0], kd * o.affine[0],
                                             kd * o.affine[1], kd * o.affine[2], kd * o.affine[3],
                                             static_cast<double>(o.speckle.cols - 1) / 2,
                                             static_cast<double>(o.speckle.rows - 1) / 2);
      const Stack<float> f =
          synth::render_speckle_field(o.speckle, field, static_cast<std::uint64_t>(k));
      std::copy(f.values().begin(), f.values().end(), all[k].data);
    }
  }
  StackView<const float> view = all.view();
  if (!o.crop.empty()) {
    const Index r = o.crop[0], c = o.crop[1], h = o.crop[2], w = o.crop[3];
    if (r < 0 || c < 0 || h < 1 || w < 1 || r + h > view.rows || c + w > view.cols) {
      return {ErrorCode::invalid_argument, "--crop " + std::to_string(r) + "," + std::to_string(c) +
                                               "," + std::to_string(h) + "," + std::to_string(w) +
                                               " leaves the " + to_string(view.shape()) + " image"};
    }
    view.data += r * view.row_stride + c;
    view.rows = h;
    view.cols = w;
  }
  const io::PixelType type = o.bits == 8    ? io::PixelType::u8
                             : o.bits == 16 ? io::PixelType::u16
                                            : io::PixelType::f32;
  Stack<float> scaled = to_stack(view);
  if (o.bits == 8) {
    for (float& v : scaled.values()) v /= 257.0f;  // 16-bit range to 8-bit
  }
  XCORR_RETURN_IF_ERROR(io::write_image_stack(o.out, scaled.view(), type));
  std::printf("wrote %s: %ld frame(s) of %s, %d-bit, shift per frame (dy, dx) = (%g, %g) px",
              o.out.c_str(), static_cast<long>(scaled.count()), to_string(scaled.shape()).c_str(),
              o.bits, o.shift[0], o.shift[1]);
  if (!o.affine.empty())
    std::printf(", gradients per frame (ux, uy, vx, vy) = (%g, %g, %g, %g)", o.affine[0],
                o.affine[1], o.affine[2], o.affine[3]);
  std::printf("\n");
  return Status::ok();
}

}  // namespace

Command add_speckle_command(CLI::App& app) {
  auto o = std::make_shared<SpeckleCommandOptions>();
  CLI::App* c =
      app.add_subcommand("speckle", "Render a synthetic speckle stack with a known translation");
  c->add_option("--out", o->out, "Output image (.tif for several frames)")->required();
  c->add_option("--size", o->size, "rows,cols (px)")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  c->add_option("--frames", o->frames, "Number of frames")->capture_default_str();
  c->add_option("--shift", o->shift, "dy,dx per frame (px): frame k moves by k*(dy,dx)")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  c->add_option("--affine", o->affine,
                "ux,uy,vx,vy per frame: frame k is deformed by k times these gradients about the "
                "image centre (plus k times --shift)")
      ->delimiter(',')
      ->expected(4);
  c->add_option("--crop", o->crop, "row,col,rows,cols (px) cut from every frame")
      ->delimiter(',')
      ->expected(4);
  c->add_option("--radius", o->speckle.speckle_radius, "Speckle radius (px)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  c->add_option("--noise", o->speckle.noise_sigma,
                "Gaussian noise sigma (grey values of the 16-bit range)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  c->add_option("--seed", o->speckle.seed, "Random seed (same seed, same pattern)")
      ->capture_default_str();
  c->add_option("--bits", o->bits, "8, 16 or 32 (float)")
      ->check(CLI::IsMember({8, 16, 32}))
      ->capture_default_str();
  return {c, [o] { return run_speckle(*o); }};
}

}  // namespace xcorr::app
