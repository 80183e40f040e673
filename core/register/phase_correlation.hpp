// Fourier-domain cross-correlation with DFT sub-pixel refinement (Guizar-Sicairos, Thurman and
// Fienup, Opt. Lett. 33, 156 (2008); what scikit-image's phase_cross_correlation(upsample_factor=U)
// computes): the cross-power spectrum R = F_ref conj(F_frame) (divided by its modulus when
// whitened: phase correlation proper) is inverse transformed for the integer peak, then the
// cross-correlation's exact DFT
//   c(s) = sum_k R_k exp(i 2 pi k . s / N)    (k signed frequencies, s in px)
// is maximised around it. Instead of evaluating a (1.5 U)^2 grid as the paper's matrix-multiply
// DFT does, a 3 x 3 pattern of c(s) is evaluated around the best point, moved to the best
// neighbour or halved, down to a step of 1 / U px (a few passes of 3 column sums over the half
// spectrum); a parabola through the last 3 x 3 gives the final fraction.
// Before the transform both images lose their mean and, with `window`, are multiplied by a
// Tukey window (a quarter of each side tapered): frames of a drifting stack are not periodic, and
// their borders would otherwise pull the peak towards no shift. With window off and whiten on
// this is scikit-image's default, number for number (docs/registration.md has the measurements
// that chose the defaults). FFTW float32 (the build without FFTW refuses).
//
// Convention (the DIC one): a feature at (x, y) in the reference is at (x + dx, y + dy) in the
// frame. scikit-image returns the opposite sign (the shift that registers the frame).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr::reg {

struct Shift {
  double dx = 0, dy = 0;  // px
  // The peak of c(s), normalised to 1 for identical images (whitened: by N; else by the two
  // windowed images' energies, a correlation coefficient).
  double peak = 0;
};

struct PhaseOptions {
  int upsample = 100;   // sub-pixel resolution 1 / upsample px (>= 1; 1: integer shifts)
  bool window = true;   // Tukey window (alpha 0.5: a quarter of each side) before the transform
  bool whiten = false;  // divide the cross-power spectrum by its modulus (phase correlation)
};

// FFTW's plans made so far in this process (its wisdom, as text), and plans to use for the sizes
// they cover. Large regions are planned by measuring (FFTW_MEASURE), which picks algorithms by
// their timings: two processes, or two runs, may then round differently. A registration that
// must give the same bytes across processes or runs hands its first process's plans to the
// others (register_stack: to the ranks of a shared job, and to a resumed run through the
// .partial folder). use_fftw_plans: false when the text is not FFTW wisdom of this build.
std::string fftw_plans();
// FFTW's planner is not thread-safe (execution is): every plan is made and destroyed under this.
std::mutex& fftw_planner_mutex();
bool use_fftw_plans(const std::string& plans);

class PhaseCorrelator {
 public:
  // Images of `shape` px.
  static Result<std::unique_ptr<PhaseCorrelator>> create(Shape shape, PhaseOptions o);
  ~PhaseCorrelator();
  PhaseCorrelator(const PhaseCorrelator&) = delete;
  PhaseCorrelator& operator=(const PhaseCorrelator&) = delete;

  Status set_reference(MatrixView<const float> reference);
  // The frame's shift from the reference. Thread-safe (each call has buffers of its own).
  // near: a shift known to within a fraction of a pixel (an earlier iteration's): the frame's
  // window moves with its content by that much (so the windows no longer pull the peak towards
  // no shift), and the search starts there at a step of 1/16 px, without the integer search.
  Result<Shift> measure(MatrixView<const float> frame, const Shift* near = nullptr) const;
  // The same against another reference (`previous` registration: each frame against the one
  // before), with this correlator's plans and window. Thread-safe.
  Result<Shift> measure(MatrixView<const float> reference, MatrixView<const float> frame,
                        const Shift* near = nullptr) const;

 private:
  PhaseCorrelator() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xcorr::reg
