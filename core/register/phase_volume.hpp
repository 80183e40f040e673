// Phase correlation of volumes (z-stacks of one time point): the 3-D form of
// phase_correlation.hpp's method. Both volumes lose their mean and are multiplied by a Tukey
// window along x, y and z; R = F_ref conj(F_frame) / sqrt(E_ref E_frame) (FFTW float 3-D
// transforms); the inverse's integer peak and a parabola through its neighbours start a
// 3 x 3 x 3 pattern search of the cross-correlation's exact DFT c(s) = sum_k R_k exp(i 2 pi k.s/N),
// moved or halved from 1/8 voxel down to 1/upsample (each pattern: 3 sums along x over the half
// spectrum, combined along y and z), and a parabola through the last pattern's centre lines gives
// the final fraction: Guizar-Sicairos, Thurman and Fienup (Opt. Lett. 33, 156, 2008) in 3-D.
// Voxels, not physical units: a feature at (x, y, z) in the reference is at (x + dx, y + dy,
// z + dz) in the frame (anisotropic voxels are the caller's scale, docs/registration.md).
#pragma once

#include <memory>

#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr::reg {

struct Shift3 {
  double dx = 0, dy = 0, dz = 0;  // voxels
  double peak = 0;                // c at the shift: a correlation coefficient (1: identical)
};

// A volume: depth planes of rows x cols, plane after plane, row-major (z slowest).
struct VolumeShape {
  Index depth = 0, rows = 0, cols = 0;
  Index size() const { return depth * rows * cols; }
};

class VolumeCorrelator {
 public:
  // Volumes of `shape` (each side >= 2); upsample >= 1 (sub-voxel resolution 1 / upsample).
  static Result<std::unique_ptr<VolumeCorrelator>> create(VolumeShape shape, int upsample = 100);
  ~VolumeCorrelator();
  VolumeCorrelator(const VolumeCorrelator&) = delete;
  VolumeCorrelator& operator=(const VolumeCorrelator&) = delete;

  Status set_reference(const float* reference);
  // The frame's shift from the set reference, or from `reference`. Thread-safe.
  Result<Shift3> measure(const float* frame) const;
  Result<Shift3> measure(const float* reference, const float* frame) const;

 private:
  VolumeCorrelator() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xcorr::reg
