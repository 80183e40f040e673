// The DIC integer guess by strips (core/dic/guess_strips.hpp): a block per strip of guesses that
// share one row of the reference. It stages the strip's reference band and the frame's region
// under all its windows (both less the image's mean), sums the products of band and frame down
// each column once per displacement (a thread per column and displacement column, kStripRows
// displacement rows in registers: two shared loads per kStripRows FMAs), and each point then
// adds its subset's S column sums. The frame's sums and sums of squares under each subset come
// from column sums and their S-column window sums; the template's sums and the window's variance
// (the flat rule) are per point in float64. Each value is computed from the point's own pixels
// in a fixed order, so a point's result does not depend on which strip it falls in (a frame
// split among GPUs gives the same guesses). ZNCC: core/zncc_rule.hpp's formula, flat rules and
// clamp, its final ratio taken in float32 (rsqrtf); the maximum per point with
// the smaller row-major index winning ties (gpu/peak_key.cuh), as the engine's peak search.
// Float32 products and sums (the engine's gpu_zncc_tiled does the same): on near-equal maxima
// the chosen displacement may differ from a float64 search's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/dic/guess_strips.hpp"
#include "core/status.hpp"
#include "gpu/device_buffer.cuh"

namespace xcorr::gpu {

using dic::kStripGuessMethod;  // its name as a guess method

// An image's mean pixel value, float64 on the device, the same on every device and call (a fixed
// grid and summation order).
class ImageMean {
 public:
  Status compute(const float* image, std::size_t pixels, cudaStream_t stream);
  const double* get() const { return value_.get(); }

 private:
  DeviceBuffer<double> partial_, value_;
};

// Shared memory per strip block on the current device (bytes): a third of an SM's (three blocks
// at a time), at least what one point needs, at most the block's opt-in limit; 0 when one point
// does not fit (the search is then not available).
std::size_t strip_budget(int subset, int window);

struct StripSearch {
  const float* ref = nullptr;  // reference and frame, rows x cols px, row pitch cols
  const float* def = nullptr;
  int rows = 0, cols = 0;
  const double* ref_mean = nullptr;  // their means (ImageMean), on the device
  const double* def_mean = nullptr;
  const dic::GuessWindow* guesses = nullptr;  // on the device
  const dic::GuessStrip* strips = nullptr;    // on the device, planned with `budget`
  int strip_count = 0;
  int subset = 0, window = 0;
  std::size_t budget = 0;     // shared bytes per block
  const int* dest = nullptr;  // per guess: its slot in start
  int2* start = nullptr;      // out: (u, v) of each guess's maximum, px
};

// Enqueues the search on `stream`.
Status strip_guess(const StripSearch& s, cudaStream_t stream);

}  // namespace xcorr::gpu
