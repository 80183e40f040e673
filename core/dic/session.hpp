// One DIC run taken a frame at a time, with its state open for checkpoints: what run_dic loops
// over, and what a resumable batch run (core/dic/batch.hpp) commits after each frame and restores
// after a crash or Cancel. Restoring the state after frame k and registering frame k+1 gives
// exactly the result of an uninterrupted run.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "core/dic/dic.hpp"

namespace xcorr::dic {

// The part of the images a session works on (px, in the reference image): the ROI's bounding box
// plus a margin for the subset, the search and the motion so far (the whole image without ROI).
struct Window {
  Index x = 0, y = 0, rows = 0, cols = 0;
  bool operator==(const Window&) const = default;
};

// Everything the next frame depends on (per point of the window's grid, in grid order).
struct DicState {
  std::vector<double> cx, cy;        // px, position in the current reference
  std::vector<double> ref_u, ref_v;  // px, total displacement of the current reference
  std::vector<char> active;          // still followed
  std::vector<Warp> predicted;       // last warp relative to the current reference
  Index ref_frame = 0;               // frame number of the current reference (0 = reference image)
  std::string guess_variant;
  Window window;  // the grid's window; cx, cy are relative to its corner
};

// Where the last frame's wall time in start() went (s), for benchmarks (bench-dic --frames): the
// frame's window copied and scanned for missing pixels, the registrar's call, its results
// copied, the consistency check (of which `recheck` is its second registrar call, on `suspects`
// points) and the missing-data marks, the per-point results, and the reference update with the
// window's growth. (The strain and the reported points finish on a thread of their own:
// PendingFrame.)
// The consistency check's parts: the search range (beyond_search), the ZNCC outliers, the
// isolated points, the neighbours' medians (find_suspects), the missing-data marks.
// `upcoming`: the next frame prepared and handed to the registrar (UpcomingFrame), between the
// registrar's call and the copy.
// `ahead`: 1 when the frame was registered ahead (DicSession, "the next frame registered
// ahead"); `registrar` is then the wait for it plus the call for `again` points, whose
// prediction the check of the frame before changed.
struct FrameTimes {
  double prepare = 0, registrar = 0, upcoming = 0, copy = 0, consistency = 0, recheck = 0,
         points = 0, update = 0;
  double range = 0, outliers = 0, isolated = 0, neighbours = 0, missing = 0;
  std::size_t suspects = 0, ahead = 0, again = 0;
  FrameTimes& operator+=(const FrameTimes& t);  // every part summed (suspects too)
};
// `sum` over `frames` frames, per frame (ms; suspects: per frame): "prepare 1.0, registrar call
// 38.1, the next frame handed over 1.3, copy 0.6, consistency 3.5 (search range 0.5, ...), points
// 1.4, update 0.5; 99 of 100 frames registered ahead, 0 points a frame registered again".
std::string per_frame_text(const FrameTimes& sum, Index frames);

// A frame whose registration is done (the session's state is ready for the next frame) and whose
// results, the strain and the reported points, are being finished on a host thread meanwhile.
class PendingFrame {
 public:
  // The frame's results (waits for them; once).
  FrameResult get() { return result_.get(); }

 private:
  friend class DicSession;
  std::future<FrameResult> result_;
};

// The frame after this one, where the caller has its pixels already (a stack pipeline reads
// ahead): `number` 0 = none; `pixels`: exactly what the next start() (the whole image) or
// start_window() (the window() as it is now) will be given, unchanged until then.
struct Upcoming {
  Index number = 0;
  MatrixView<const float> pixels;
};
// Asked once per frame, on a thread of its own while the frame registers (so it must not touch
// what the caller's PointProgress does): the upcoming frame's window is cut and its missing pixels
// filled meanwhile, and once the frame is registered the registrar is handed it
// (FrameRegistrar::preload), which starts on it (a GPU: upload, coefficients) while the host
// checks this frame. The next frame's results are the same with or without it, bit for bit; it
// is not used when the window grew meanwhile.
//
// The next frame registered ahead: where the registrar may run ahead
// (FrameRegistrar::may_run_ahead, a GPU's), the points are independent and the frame moves no
// reference, the upcoming frame is then registered on a thread of its own while the host checks
// this frame, from the predictions this frame's registration gives before its check (every
// converged point's warp). The check changes few of them (its suspects, outliers and missing
// data): when the upcoming frame starts, the points whose prediction changed are registered again
// from the checked one. A point's registration depends only on its own prediction and pixels
// (the registrar's contract for sharing a frame, with the whole frame's guess method), so the
// results are those of a frame registered after the check, bit for bit. Such a frame reports no
// progress while it registers ahead, and the session waits for it before it calls the registrar
// again (a suspect's second registration, a grown window, restore()).
using UpcomingFrame = std::function<Upcoming()>;

class DicSession {
 public:
  ~DicSession();  // waits for a frame registered ahead
  DicSession(DicSession&&) noexcept = default;
  DicSession& operator=(DicSession&&) noexcept = default;

  // Checks inputs and options, builds the grid. `registrar` must outlive the session.
  // With an ROI, the work (B-spline coefficients, the guess, IC-GN, the grid and its state) covers
  // only a window around it: the ROI's bounding box plus half a subset, twice the search radius
  // and 8 px, on the grid's lattice. The window grows before any point's next search could reach
  // past it (points that move far), so results equal a run on the whole image.
  // What create checks before it needs any pixel (a batch checks every job before the first
  // starts): the options, the ROI's points of interest, the size limits.
  static Status check(Shape image, const Roi& roi, const DicOptions& o);
  static Result<DicSession> create(FrameRegistrar& registrar, MatrixView<const float> reference,
                                   const Roi& roi, const DicOptions& o);

  // The same over images of `image` px that are read a window at a time: `source(frame, w)`
  // returns pixels w of the reference (frame 0) or of deformed frame `frame` (1-based), and the
  // frames come through next_window(). Memory then scales with the window, not the image.
  using RegionSource = std::function<Result<Stack<float>>(Index frame, const Window& w)>;
  static Result<DicSession> create(FrameRegistrar& registrar, Shape image, RegionSource source,
                                   const Roi& roi, const DicOptions& o);

  // The points results are reported for (image coordinates): the first window's grid. Points a
  // grown window adds lie outside the ROI and are not reported.
  const Grid& grid() const { return result_grid_; }
  const Window& window() const { return state_.window; }
  const DicState& state() const { return state_; }
  std::string device() const { return registrar_->device(); }
  const FrameTimes& last_times() const { return times_; }

  // Registers frame `number` (1-based position among the deformed frames; numbers may skip
  // frames that could not be read). The image is copied when it becomes the reference.
  // `progress` reports inside the frame and cancels it (frame_registrar.hpp).
  // Returns once the state for the next frame is ready; the frame's results finish on a host
  // thread while the caller goes on (a stack pipeline: get() them after starting the next
  // frame). The results are those of next(), bit for bit; at most two frames finish at once.
  // `upcoming`: the next frame, when the caller has it (see UpcomingFrame).
  Result<PendingFrame> start(MatrixView<const float> image, Index number,
                             const PointProgress& progress = {},
                             const UpcomingFrame& upcoming = {});
  // Sessions over a region source: frame `number`'s pixels of window() (read them just before).
  Result<PendingFrame> start_window(Stack<float> window_image, Index number,
                                    const PointProgress& progress = {},
                                    const UpcomingFrame& upcoming = {});
  // The same, waiting for the results.
  Result<FrameResult> next(MatrixView<const float> image, Index number,
                           const PointProgress& progress = {});
  Result<FrameResult> next_window(Stack<float> window_image, Index number,
                                  const PointProgress& progress = {});

  // Continues from a state committed after some frame. In incremental mode with ref_frame > 0,
  // `reference_frame` is that frame's image (otherwise, and over a region source, ignored).
  Status restore(DicState s, MatrixView<const float> reference_frame = {});

 private:
  DicSession() = default;
  // The next frame registered ahead (see UpcomingFrame), on a thread of its own that reads the
  // session's grid, state and windows (which it does not change until the thread is waited for)
  // and writes only here.
  struct Ahead {
    Index number = 0;             // the frame
    std::vector<Warp> predicted;  // the predictions it was registered from
    std::vector<IcgnResult> points;
    std::string method;  // the whole frame's guess method
    Status status;
    std::future<void> done;
  };
  // The slot first among the members: a session moved while a frame registers ahead waits for
  // it before any member the thread reads moves.
  struct AheadSlot {
    std::unique_ptr<Ahead> a;
    AheadSlot() = default;
    AheadSlot(AheadSlot&& o) noexcept {
      o.wait();
      a = std::move(o.a);
    }
    AheadSlot& operator=(AheadSlot&& o) noexcept {
      wait();
      o.wait();
      a = std::move(o.a);
      return *this;
    }
    AheadSlot(const AheadSlot&) = delete;
    AheadSlot& operator=(const AheadSlot&) = delete;
    ~AheadSlot() = default;
    void wait() {
      if (a && a->done.valid()) a->done.wait();
    }
  };
  AheadSlot ahead_;
  // Starts registering the upcoming frame `number` (preloaded: next_window_) ahead, from this
  // frame's registration `got` before its check, when the session may (see UpcomingFrame).
  void register_ahead(Index number, const std::vector<IcgnResult>& got, bool moves_reference);
  // The frame registered ahead, waited for; its results into registered_ with the points whose
  // prediction changed registered again. false: none for `number`, or it cannot be used (then the
  // caller registers the frame itself).
  Result<bool> take_ahead(Index number, bool preloaded, const PointProgress& progress);
  // The frame whose pixels the registrar was handed last (0: none or unknown): a call that
  // registers frame `number` again passes deformed_changed unless it is this one.
  Index registrar_frame_ = 0;
  // Moves the work to window `w` (containing the current one) and its grid (grid_of(w)): the
  // state (by point
  // position; new points are outside the ROI), the report map and the reference window.
  Status move_to(const Window& w, Grid grid);
  Grid grid_of(const Window& w) const;  // the ROI's grid over window w (window coordinates)
  // After a frame: a larger window when a point's next search could reach past this one.
  Status grow_if_needed();
  Status start(FrameRegistrar& registrar, Shape image, const Roi& roi, const DicOptions& o);
  // The settings, the window's margin and the first window's grid, with the checks that need no
  // pixels (subset against the image, points in the ROI, size limits).
  Result<Grid> plan(Shape image, const Roi& roi, const DicOptions& o);
  Status load_reference_window();  // the current reference's pixels of the window
  // The consistency check of independent points (core/dic/consistency.hpp) on a frame's
  // registration, in place.
  Status check_consistency(Index number, std::vector<IcgnResult>& points);
  // frame_window_ holds frame `number`'s pixels (`preloaded`: the upcoming frame's, missing
  // pixels filled and handed to the registrar).
  Result<PendingFrame> register_window(const MatrixView<const float>* image, Index number,
                                       const PointProgress& progress, bool preloaded,
                                       const UpcomingFrame& upcoming);
  // The upcoming frame's window cut and its missing pixels filled (next_window_, next_missing_,
  // next_pixels_, next_at_), when it can be: its number, else 0. Host memory only (it runs while
  // the registrar works); the caller preloads it and sets next_number_.
  Index stage_upcoming(const Upcoming& u);
  // Whether frame `number`, whose pixels are at `pixels`, is the prepared upcoming frame of the
  // current window: then frame_window_ and frame_missing_ are its (the preparation is used up
  // either way).
  bool take_upcoming(Index number, const float* pixels);

  FrameRegistrar* registrar_ = nullptr;
  DicOptions o_;
  Roi roi_;
  Shape image_;
  double margin_ = 0;                // px around the ROI's bounding box
  Grid grid_;                        // of the window, window coordinates
  Grid result_grid_;                 // of the first window, image coordinates
  std::vector<std::size_t> report_;  // per result point, its index in grid_
  RegionSource source_;              // when set, images come a window at a time
  Stack<float> reference_;           // without a source: the current reference image (a copy)
  Stack<float> reference_window_, frame_window_;  // contiguous copies of the window
  // Their missing (non-finite) pixels, 1 each (empty: none), which hold the window's finite mean
  // so that the B-spline prefilter stays finite; points whose subset or match touches one are
  // missing_data.
  std::vector<char> reference_missing_, frame_missing_;
  // Marks missing_data the active points whose reference subset or match touches a missing pixel.
  void mark_missing(std::vector<IcgnResult>& points) const;
  bool reference_changed_ = true;
  // The upcoming frame, prepared: its number (0: none), pixels' address, window and missing
  // pixels.
  Index next_number_ = 0;
  const float* next_pixels_ = nullptr;
  Window next_at_;
  Stack<float> next_window_;
  std::vector<char> next_missing_;
  DicState state_;
  // A frame's working vectors, reused frame after frame (fresh ones for a 2048^2 grid at step 4
  // cost tens of milliseconds of page faults per frame).
  std::vector<IcgnResult> registered_;
  // What a frame's finishing reads (per point of grid_, without the strain), in two slots used in
  // turn: frame k's slot is written again by frame k + 2, after its finishing is done. Heap
  // objects, so that a moved session leaves the running finishing's inputs in place.
  struct Finishing {
    std::vector<PointResult> points;
    std::vector<double> u, v;
    std::future<void> done;  // the finishing's thread (its destructor waits for it)
  };
  std::unique_ptr<Finishing> finishing_[2];
  Index frames_started_ = 0;
  // grid_ and report_ as the finishing reads them: new copies when the window grows.
  std::shared_ptr<const Grid> finish_grid_;
  std::shared_ptr<const std::vector<std::size_t>> finish_report_;
  FrameTimes times_;
};

}  // namespace xcorr::dic
