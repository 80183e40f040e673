// One DIC run taken a frame at a time, with its state open for checkpoints: what run_dic loops
// over, and what a resumable batch run (core/dic/batch.hpp) commits after each frame and restores
// after a crash or Cancel. Restoring the state after frame k and registering frame k+1 gives
// exactly the result of an uninterrupted run.
#pragma once

#include <string>
#include <vector>

#include "core/dic/dic.hpp"

namespace xcorr::dic {

// Everything the next frame depends on (per grid point, in grid order).
struct DicState {
  std::vector<double> cx, cy;        // px, position in the current reference
  std::vector<double> ref_u, ref_v;  // px, total displacement of the current reference
  std::vector<char> active;          // still followed
  std::vector<Warp> predicted;       // last warp relative to the current reference
  Index ref_frame = 0;               // frame number of the current reference (0 = reference image)
  std::string guess_variant;
};

class DicSession {
 public:
  // Checks inputs and options, builds the grid. `registrar` must outlive the session.
  static Result<DicSession> create(FrameRegistrar& registrar, MatrixView<const float> reference,
                                   const Roi& roi, const DicOptions& o);

  const Grid& grid() const { return grid_; }
  const DicState& state() const { return state_; }
  std::string device() const { return registrar_->device(); }

  // Registers frame `number` (1-based position among the deformed frames; numbers may skip
  // frames that could not be read). The image is copied when it becomes the reference.
  Result<FrameResult> next(MatrixView<const float> image, Index number);

  // Continues from a state committed after some frame. In incremental mode with ref_frame > 0,
  // `reference_frame` is that frame's image (otherwise ignored).
  Status restore(DicState s, MatrixView<const float> reference_frame = {});

 private:
  DicSession() = default;
  FrameRegistrar* registrar_ = nullptr;
  DicOptions o_;
  Grid grid_;
  Stack<float> reference_;  // the current reference image (a copy; one matrix)
  bool reference_changed_ = true;
  DicState state_;
};

}  // namespace xcorr::dic
