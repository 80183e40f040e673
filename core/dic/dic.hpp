// Subset-based 2-D DIC of an image stack: ROI -> point grid -> integer guess through the
// correlation engine -> IC-GN sub-pixel (first- or second-order, ZNSSD, quintic or cubic B-spline)
// -> strain. Frames are registered against the reference image (reference mode) or against the
// latest reference frame with the reference moved forward every `reference_update` frames
// (incremental mode, displacements accumulated). Points are independent, or propagated from seeds
// by reliability (each point starts from its best converged neighbour). Multithreaded on the CPU.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/dic/frame_registrar.hpp"
#include "core/dic/grid.hpp"
#include "core/dic/icgn.hpp"
#include "core/dic/options.hpp"
#include "core/dic/roi.hpp"
#include "core/registry.hpp"

namespace xcorr::dic {

struct PointResult {
  double x = 0, y = 0;                    // px, reference position
  double u = 0, v = 0;                    // px, total displacement
  double ux = 0, uy = 0, vx = 0, vy = 0;  // displacement gradients of the last registration
  double exx = 0, eyy = 0, exy = 0;       // strain (options.strain), dimensionless
  double zncc = 0;
  int iterations = 0;
  PointStatus status = PointStatus::outside_roi;
  // Noise-based standard uncertainty of u and v (px) of the frame's registration (incremental:
  // of its last step), from the ZNSSD residual and the subset's Hessian (math::noise_sigma);
  // NaN unless converged.
  double sigma_u = 0, sigma_v = 0;
};

struct FrameResult {
  Index frame = 0;                  // 1-based position in the deformed frames
  std::vector<PointResult> points;  // one per grid point, grid order
};

struct DicResult {
  Grid grid;
  std::vector<FrameResult> frames;
  std::string guess_variant;  // correlation variant of the integer guess
  std::string device;         // where the frames were registered: "cpu" or "gpu"
};

// Called after each frame; return false to cancel (the run then returns ErrorCode::cancelled).
using DicProgress = std::function<bool(Index frames_done, Index frames_total)>;

// DIC of frames already in memory, all or nothing (the first frame that fails ends the run):
// for benchmarks (`xcorr bench-dic` renders its pair in-process) and tests. The front ends
// (`xcorr dic`, `xcorr run`, the desktop window) run jobs through batch::run_job instead, which
// reads frames one at a time, keeps the frames that register when one fails, and commits.

// On the CPU (integer guess through `engine`).
Result<DicResult> run_dic(const Registry& engine, MatrixView<const float> reference,
                          StackView<const float> frames, const Roi& roi, const DicOptions& o,
                          const DicProgress& progress = {});

// With a given frame registrar (make_cpu_registrar, or gpu::make_gpu_registrar).
Result<DicResult> run_dic(FrameRegistrar& registrar, MatrixView<const float> reference,
                          StackView<const float> frames, const Roi& roi, const DicOptions& o,
                          const DicProgress& progress = {});

}  // namespace xcorr::dic
