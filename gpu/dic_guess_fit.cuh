// The sub-pixel start of IC-GN on the GPU (core/dic/guess_fit.hpp): a warp per guessed point sums
// its subset's products with the frame at the 3 x 3 displacements around its integer maximum
// (lanes over the subset's columns, float32 in a fixed order; float64 across lanes), then lane 0
// takes neighbour_zncc and refine_peak in float64. The same for every guess method and any split
// of a frame: a point's start depends only on its pixels and its integer maximum.
#pragma once

#include <cuda_runtime.h>

#include "core/dic/guess_strips.hpp"
#include "core/status.hpp"

namespace xcorr::gpu {

struct GuessFitArgs {
  const float* ref = nullptr;  // reference and frame, rows x cols px, row pitch cols
  const float* def = nullptr;
  int cols = 0;
  const dic::GuessWindow* guesses = nullptr;  // count of them, on the device
  int count = 0;
  int subset = 0, window = 0;  // px; subset odd, >= 3 (the DIC options' least is 5)
  const int* dest = nullptr;   // per guess: its slot in peak and start
  const int2* peak = nullptr;  // per slot: the integer maximum (u, v), px
  double2* start = nullptr;    // out, per slot: (u, v) refined, px
};

// Enqueues the fit of args.count guesses on `stream`.
Status fit_guesses(const GuessFitArgs& args, cudaStream_t stream);

}  // namespace xcorr::gpu
