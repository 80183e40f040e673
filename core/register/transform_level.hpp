// What TransformFitter (transform_fit.hpp) shares with the engines that run its IC-GN: one image
// at one resolution (Level), the models' parameters and steepest-descent images (host and
// device code), one frame's fit, and the interface that fits the levels of many frames at once:
// the CPU's here (the host's threads, a frame each), the GPU's in gpu/transform_gpu.hpp (all the
// frames of a block at once on the device). Registration takes one from its caller
// (engine::register_engines()), so core/register/ needs no engine.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/hd.hpp"
#include "core/matrix.hpp"
#include "core/register/affine.hpp"
#include "core/status.hpp"

namespace xcorr::reg {

enum class Transform { translation, rigid, similarity, affine };

inline constexpr int kMaxIterations = 60;  // IC-GN's, per level
inline constexpr double kMinOverlap = 0.25;
inline constexpr double kFitMargin = 1.0;         // px of a level kept clear of the frame's border
inline constexpr double kCoarseTolerance = 2e-2;  // px of the coarse level: its fit's end
inline constexpr double kFullTolerance = 1e-3;    // px: the full level's

// One image at one resolution: `bin` x `bin` blocks of the full image averaged (bin 1: the image),
// its cubic B-spline coefficients, and (a reference's) gradients at the pixels (grey values/px).
struct Level {
  Index rows = 0, cols = 0;
  int bin = 1;
  std::vector<float> pixels, coefficients, gx, gy;
  // The full image's centre ((cols - 1) / 2, (rows - 1) / 2 px) in this level's pixels.
  double cx = 0, cy = 0;
  // A reference's: px of this level along the border where the smoothing of its gradients saw
  // the image's continuation, not its content: left out of the fit.
  Index band = 0;
};

// `image` binned by `bin`, with its coefficients (no gradients).
Level make_level(MatrixView<const float> image, int bin);

// The warp's parameters and steepest-descent images for each model, in a level's coordinates
// relative to the image centre (xi, eta px): N parameters, translation first. warp(): the
// parameters as an affine map (m as Affine::m).
template <Transform T>
struct Model;
template <>
struct Model<Transform::rigid> {
  static constexpr int N = 3;  // tx, ty, angle (rad)
  XCORR_HD static void sd(float gx, float gy, float xi, float eta, float* s) {
    s[0] = gx, s[1] = gy, s[2] = -eta * gx + xi * gy;
  }
  XCORR_HD static void warp(const double* p, double* m) {
    const double c = cos(p[2]), s = sin(p[2]);
    m[0] = c, m[1] = -s, m[2] = p[0], m[3] = s, m[4] = c, m[5] = p[1];
  }
};
template <>
struct Model<Transform::similarity> {
  static constexpr int N = 4;  // tx, ty, a, b: linear part [[1 + a, -b], [b, 1 + a]]
  XCORR_HD static void sd(float gx, float gy, float xi, float eta, float* s) {
    s[0] = gx, s[1] = gy, s[2] = xi * gx + eta * gy, s[3] = -eta * gx + xi * gy;
  }
  XCORR_HD static void warp(const double* p, double* m) {
    m[0] = 1 + p[2], m[1] = -p[3], m[2] = p[0], m[3] = p[3], m[4] = 1 + p[2], m[5] = p[1];
  }
};
template <>
struct Model<Transform::affine> {
  static constexpr int N = 6;  // tx, ty, then the linear part minus the identity, row by row
  XCORR_HD static void sd(float gx, float gy, float xi, float eta, float* s) {
    s[0] = gx, s[1] = gy, s[2] = xi * gx, s[3] = eta * gx, s[4] = xi * gy, s[5] = eta * gy;
  }
  XCORR_HD static void warp(const double* p, double* m) {
    m[0] = 1 + p[2], m[1] = p[3], m[2] = p[0], m[3] = p[4], m[4] = 1 + p[5], m[5] = p[1];
  }
};

// One frame's IC-GN on its last level.
struct LevelFit {
  Affine rel;  // full-resolution px, relative to the centres
  double zncc = 0, overlap = 0;
  int iterations = 0;  // over both levels
  bool converged = false, singular = false;
};

// A frame to fit: its image (full resolution), the level TransformFitter found its start on
// (bin > 1: the coarse level; bin 1: the image's own, which the CPU fitter fits on), and the
// start (full px, relative to the centres).
struct LevelInput {
  MatrixView<const float> image;
  const Level* coarse = nullptr;
  Affine start;
};

// A reference as the fitters need it: both levels with their gradients (coarse: bin > 1 only).
struct LevelReference {
  const Level* full = nullptr;
  const Level* coarse = nullptr;
};

// Fits frames of one shape on both levels: from each start IC-GN on the coarse level (bin > 1,
// to kCoarseTolerance; its result kept when it converged), then on the full one (to
// kFullTolerance); IC-GN as transform_fit.hpp describes.
class LevelFitter {
 public:
  virtual ~LevelFitter() = default;
  virtual std::string device() const = 0;  // "cpu" or "gpu"
  // The reference fit() without references uses (held by the caller while it is set).
  virtual Status set_reference(LevelReference reference) = 0;
  // The fit of each frame, against the set reference or (*references)[k].
  virtual Result<std::vector<LevelFit>> fit(Transform t, const std::vector<LevelInput>& frames,
                                            const std::vector<LevelReference>* references) = 0;
};

// Frames of `shape` px whose coarse level bins by `bin` (1: none); the device as a job's
// `device` option says ("cpu", "gpu", "auto").
using LevelFitterFactory = std::function<Result<std::unique_ptr<LevelFitter>>(
    Shape shape, int bin, const std::string& device)>;

Result<std::unique_ptr<LevelFitter>> make_cpu_level_fitter(Shape shape, int bin);
// The host's factory: make_cpu_level_fitter for "cpu" and "auto"; "gpu" is refused.
Result<std::unique_ptr<LevelFitter>> cpu_level_fitters(Shape shape, int bin,
                                                       const std::string& device);

}  // namespace xcorr::reg
