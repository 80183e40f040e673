// Synthetic speckle images with a known displacement, for tests and the bundled sample.
// The pattern is a sum of random Gaussian speckles, I(x, y) = sum_k a_k exp(-|p - c_k|^2 / r^2),
// rendered analytically, so a frame moved by (u, v) px is exact at any sub-pixel amount:
// frame(x, y) = reference(x - u, y - v). Intensity maps to [offset, offset + gain) through
// 1 - exp(-I) (smooth, no clipping), then optional Gaussian noise. Deterministic per seed.
#pragma once

#include <cstdint>
#include <functional>

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

// A smooth displacement field of the reference: at reference point (x, y) px, the displacement
// (u, v) px and its gradient (ux = du/dx, uy = du/dy, vx, vy).
struct FieldSample {
  double u = 0, v = 0, ux = 0, uy = 0, vx = 0, vy = 0;
};
using DisplacementField = std::function<FieldSample(double x, double y)>;

// The pattern deformed by `field`: each speckle moves with the field at its centre and is
// stretched by the local deformation gradient F = I + grad u (exact for translations and affine
// fields; for smooth fields exact up to the field's curvature over a speckle).
// `noise_stream` selects an independent noise realisation (e.g. the frame index).
Stack<float> render_speckle_field(const SpeckleOptions& o, const DisplacementField& field,
                                  std::uint64_t noise_stream = 0);

// Common fields: translation, affine about (x0, y0), and a sinusoid u = a sin(2 pi x / period).
DisplacementField translation_field(double u, double v);
DisplacementField affine_field(double u, double v, double ux, double uy, double vx, double vy,
                               double x0, double y0);
DisplacementField sinusoid_field(double amplitude, double period);

// A volume of the pattern in 3-D: `depth` planes of o.rows x o.cols voxels (plane z is matrix z)
// of speckles exp(-(x^2 + y^2) / r^2 - z^2 / radius_z^2) (o.speckle_radius = r; o.density
// speckles per r^2 radius_z of volume), moved by (dz, dy, dx) voxels, rendered analytically
// (each speckle cut at 3.5 radii), tone-mapped and noised as the 2-D frames. `noise_stream`
// selects the noise realisation.
Stack<float> render_speckle_volume(const SpeckleOptions& o, Index depth, double radius_z, double dz,
                                   double dy, double dx, std::uint64_t noise_stream = 0);

// `count` rows x cols matrices of uniform values in [0, 1) from a xorshift32 stream seeded by
// `seed`: cheap, deterministic inputs for benchmarks and profiles (not a speckle pattern).
Stack<float> uniform_noise(Index rows, Index cols, Index count, std::uint32_t seed);

// `frames` frames; frame k is moved by (k * dy, k * dx) px.
Stack<float> render_translation_stack(const SpeckleOptions& o, Index frames, double dy, double dx);

}  // namespace xcorr::synth
