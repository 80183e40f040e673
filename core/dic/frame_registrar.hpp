// One frame's registration, behind an interface so that run_dic (core) can use the CPU
// implementation here or the CUDA one in gpu/ (gpu/dic_gpu.hpp) without depending on it:
// integer guess for every active point, then IC-GN, per point an IcgnResult.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dic/grid.hpp"
#include "core/dic/icgn.hpp"
#include "core/registry.hpp"

namespace xcorr::dic {

// Progress inside a frame: `done` of `total` work units (each active point counts one unit for
// its integer guess and one for IC-GN), called on the registering thread after every block of
// points (blocks are sized to a fraction of a second); returning false stops the frame, and the
// registrar returns ErrorCode::cancelled.
using PointProgress = std::function<bool(Index done, Index total)>;

struct FrameInputs {
  MatrixView<const float> reference;  // the current reference frame
  MatrixView<const float> deformed;
  bool reference_changed = true;  // a different reference than in the previous call
  const Grid* grid = nullptr;
  // Per grid point: position in the current reference (px), whether to compute it, and the
  // predicted warp relative to the reference (centre of the integer search).
  const std::vector<double>* cx = nullptr;
  const std::vector<double>* cy = nullptr;
  const std::vector<char>* active = nullptr;
  const std::vector<Warp>* predicted = nullptr;
  const PointProgress* progress = nullptr;  // optional
  // false: the same deformed image as in the previous call (the consistency check registers a
  // frame's suspects a second time), whose interpolation a registrar may keep.
  bool deformed_changed = true;
  // true: `deformed` holds the pixels last handed to preload() (deformed_changed stays true, for
  // registrars that keep nothing).
  bool deformed_preloaded = false;
};

struct FrameRegistration {
  std::vector<IcgnResult> points;  // one per grid point (inactive ones: default)
  std::string variant;             // correlation variant of the integer guess
};

class FrameRegistrar {
 public:
  virtual ~FrameRegistrar() = default;
  virtual std::string device() const = 0;  // "cpu" or "gpu"
  // The registration stays owned by the registrar, valid until its next call: its memory is
  // reused frame after frame (a fresh vector for a 2048^2 grid at step 4 costs milliseconds of
  // page faults per frame, a quarter of the GPU's whole frame).
  virtual Result<const FrameRegistration*> register_frame(const FrameInputs& in,
                                                          const DicOptions& o) = 0;
  // The deformed image of the next call but those that repeat the current frame
  // (deformed_changed false), handed early: a stack pipeline has the next frame before its host
  // work on this one. A registrar may start on it here and return at once (the GPU's uploads it
  // and computes its interpolation coefficients on its stream while the host works); the call
  // that registers it has in.deformed_preloaded set, and results are those without a preload,
  // bit for bit. `deformed` may change or be freed once this returns. Nothing is reported here:
  // a preload that failed is dropped, and the call that registers the frame starts over (and
  // meets the error itself).
  virtual void preload(MatrixView<const float> deformed, const DicOptions& o) {
    (void)deformed, (void)o;
  }
  // Whether a session may register the next frame on a thread of its own while the host checks
  // this one (DicSession: "the next frame registered ahead"): registrars whose work runs on a
  // device, so that the host's threads stay free, and whose frames take milliseconds (such a call
  // reports no progress). Not the CPU's (it uses every host thread; a frame takes seconds) nor an
  // MPI group's (its messages stay on the caller's thread).
  virtual bool may_run_ahead() const { return false; }

  // Sharing one frame's points among registrars (other GPUs, other MPI ranks) with the results
  // of one registrar bit for bit: each registers a part with o.method set to guess_method() of
  // the whole frame and independent propagation, then one of them runs the reliability-guided
  // waves over the merged frame.
  //
  // The integer-guess method this registrar uses for a whole frame of `points` active points
  // whose images are rows x cols px: o.method with `auto` resolved ("name" or
  // "name:param=value,...", as --method takes it).
  virtual Result<std::string> guess_method(const DicOptions& o, Index rows, Index cols,
                                           Index points) const = 0;
  // Reliability-guided propagation over `points`, a whole frame's independent results, with the
  // images of the frame this registrar registered (part of) last. ErrorCode::unsupported where
  // the registrar's reliability-guided work is not an independent pass followed by such waves
  // (the CPU's, which grows from seeds one point at a time): such frames cannot be shared.
  virtual bool has_waves() const { return false; }
  virtual Status waves(const FrameInputs& in, const DicOptions& o,
                       std::vector<IcgnResult>& points) {
    (void)in, (void)o, (void)points;
    return Status{ErrorCode::unsupported,
                  device() + " reliability-guided propagation grows from seeds point by point"};
  }
};

// A registrar that hands every call to `inner`: the base of decorators, which override the
// calls they add to (timings, counts).
class ForwardingRegistrar : public FrameRegistrar {
 public:
  explicit ForwardingRegistrar(FrameRegistrar& inner) : inner_(inner) {}
  std::string device() const override { return inner_.device(); }
  Result<const FrameRegistration*> register_frame(const FrameInputs& in,
                                                  const DicOptions& o) override {
    return inner_.register_frame(in, o);
  }
  void preload(MatrixView<const float> deformed, const DicOptions& o) override {
    inner_.preload(deformed, o);
  }
  bool may_run_ahead() const override { return inner_.may_run_ahead(); }
  Result<std::string> guess_method(const DicOptions& o, Index rows, Index cols,
                                   Index points) const override {
    return inner_.guess_method(o, rows, cols, points);
  }
  bool has_waves() const override { return inner_.has_waves(); }
  Status waves(const FrameInputs& in, const DicOptions& o,
               std::vector<IcgnResult>& points) override {
    return inner_.waves(in, o, points);
  }

 protected:
  FrameRegistrar& inner() const { return inner_; }

 private:
  FrameRegistrar& inner_;
};

// Parts of a frame: part k of `parts` registers grid points [bounds[k], bounds[k + 1]), which
// hold active points points * k / parts to points * (k + 1) / parts (bounds has parts + 1
// entries, bounds[0] = 0, bounds[parts] = active.size()).
std::vector<std::size_t> split_points(const std::vector<char>& active, std::size_t parts);

// Multithreaded CPU registration: integer guess through `engine` (its `auto` may pick a GPU
// variant), IC-GN in double, independent or reliability-guided.
std::unique_ptr<FrameRegistrar> make_cpu_registrar(const Registry& engine);

}  // namespace xcorr::dic
