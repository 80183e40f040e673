// Synthetic speckle images with a known displacement, for tests and the bundled sample.
// The pattern is a sum of random Gaussian speckles, I(x, y) = sum_k a_k exp(-|p - c_k|^2 / r^2),
// rendered analytically, so a frame moved by (u, v) px is exact at any sub-pixel amount:
// frame(x, y) = reference(x - u, y - v). Intensity maps to [offset, offset + gain) through
// 1 - exp(-I) (smooth, no clipping), then optional Gaussian noise. Deterministic per seed.
#pragma once

#include <cstdint>

#include "core/matrix.hpp"

namespace xcorr::synth {

struct SpeckleOptions {
  Index rows = 256;             // px
  Index cols = 256;             // px
  double speckle_radius = 2.5;  // px (1/e radius of each speckle)
  double density = 0.6;         // speckles per radius^2 of area
  double offset = 2000;         // grey value of black
  double gain = 50000;          // grey value range
  double noise_sigma = 0;       // grey values, Gaussian, added after rendering
  std::uint32_t seed = 1;
};

// One frame of the pattern moved by (dy, dx) px (positive: content moves down/right).
Stack<float> render_speckle(const SpeckleOptions& o, double dy, double dx);

// `frames` frames; frame k is moved by (k * dy, k * dx) px.
Stack<float> render_translation_stack(const SpeckleOptions& o, Index frames, double dy, double dx);

}  // namespace xcorr::synth
