// IC-GN on the device (gpu/dic_gpu.cu's stage 3): one warp per point; lanes split the subset's
// pixels; reference values and gradients in shared memory (read from the reference's PixelTable
// when the points are pixel centres, else computed), the Hessian (float64 sums, warp reductions)
// once, then per iteration one pass over the deformed subset from the frame's spline
// accumulating the moments the ZNSSD step needs, the 6x6 solve and the inverse-compositional
// update (math::*, the same code as the CPU path); the points' sigma after it, a thread per
// point (icgn_sigma_kernel), from the Hessian's factor each warp leaves. Second order: the
// 12-parameter version, written for agreement with the CPU rather than speed. Instantiations:
// icgn_kernel for the cubic (3) and quintic (5) B-spline, each with and without the table;
// icgn2_kernel for each B-spline.
#pragma once

#include <cuda_runtime.h>

#include "core/dic/icgn.hpp"
#include "core/dic/icgn_math.hpp"
#include "core/dic/options.hpp"
#include "core/status.hpp"
#include "gpu/dic_bspline.cuh"

namespace xcorr::gpu {

struct IcgnOut {
  double p[6];
  double zncc;
  double sigma_u, sigma_v;  // px (math::noise_sigma), at the final warp
  int iterations;
  int status;  // dic::PointStatus
};

// What a point's uncertainty needs from the first-order kernel (icgn_sigma_kernel, a thread per
// point, computes it after the iterations): the Hessian's Cholesky factor and the reference
// subset's spread df (grey values); df < 0 where no sigma is wanted (the point stopped early).
struct IcgnFactor {
  double chol[21];
  double df;
};

// The continued coefficients around the deformed frame's (bspline_coefficients' pad): IC-GN
// samples it only within math::kIterationReach (2 px) past its pixel centres (it checks the
// warped subset's corners first), whose quintic taps reach 3 coefficients further.
constexpr int kDeformedPad = 6;

struct IcgnArgs {
  const float* ref_c;  // B-spline coefficients (computed in float64, stored as float32)
  const float* def_c;  // the same, of the deformed frame, with kDeformedPad continued around
  // ref_c's PixelTable, or null: when given, every point is a pixel centre (cx, cy integral)
  // and its reference subset is read there; else it is computed from ref_c.
  const double* ref_value;
  const float* ref_gx;
  const float* ref_gy;
  int rows, cols;
  const double* cx;
  const double* cy;
  const double2* start;      // initial guess (u, v) per listed point, px
  const double* start_warp;  // or, when not null, 6 warp parameters per point (reliability waves)
  int count;
  int subset, max_iterations;
  double convergence, min_zncc, min_texture;
  dic::math::NoiseModel noise;  // of the reference (dic::noise_model, computed on the host)
  double band;  // px: math::border_band of the prefilter (subsets are clipped to it)
  IcgnOut* out;
  IcgnFactor* factor;  // count entries, device scratch of the first-order launch (the caller's)
};

// The arguments of one IC-GN launch: the options' part from `o` (subset, iterations,
// convergence, min_zncc, min_texture, the border band of its prefilter), the rest as given.
// Every launch builds its arguments here.
IcgnArgs icgn_args(const dic::DicOptions& o, const float* ref_c, const PixelTable* ref_table,
                   const float* def_c, int rows, int cols, const double* cx, const double* cy,
                   const double2* start, const double* start_warp, int count,
                   const dic::math::NoiseModel& noise, IcgnOut* out, IcgnFactor* factor);

// Enqueues IC-GN of args.count points on `stream` (first or second order and the B-spline of
// `o`), with as many warps per block as the device's shared memory holds; first order, then the
// points' sigma a thread per point.
Status launch_icgn(const IcgnArgs& args, const dic::DicOptions& o, cudaStream_t stream);

// A point's result in the host's form.
dic::IcgnResult to_result(const IcgnOut& g);

// Shared memory of one IC-GN warp (bytes) and the warps per block on the current device (0 when
// not even one fits).
long long icgn_warp_bytes(int subset, bool second_order);
int icgn_warps(int subset, bool second_order);

}  // namespace xcorr::gpu
