// DIC frames registered on several CUDA devices at once (gpu/dic_gpu.hpp,
// make_multi_gpu_registrar): a frame's active points are split into contiguous parts of the grid
// with equal numbers of points, one per device; each part is registered by that device's own
// GpuRegistrar (its own registry of GPU variants, buffers and streams, all made on that device)
// from a host thread that made the device current; the parts are merged in grid order.

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpu/device.hpp"
#include "gpu/dic_gpu.hpp"
#include "gpu/dic_timed.hpp"
#include "gpu/engine.hpp"

namespace xcorr::gpu {
namespace {

struct Lane {
  int device = 0;
  Registry registry;  // this device's GPU variants (their workspaces live on it)
  std::unique_ptr<dic::FrameRegistrar> registrar;
  std::vector<char> active;  // the frame's active points in this lane's part
  const dic::FrameRegistration* result = nullptr;
};

class MultiGpuRegistrar final : public TimedRegistrar {
 public:
  explicit MultiGpuRegistrar(std::vector<std::unique_ptr<Lane>> lanes) : lanes_(std::move(lanes)) {}
  ~MultiGpuRegistrar() override {  // each lane's device memory freed with its device current
    for (auto& lane : lanes_) {
      const int d = lane->device;
      on_device(d, [&lane]() -> Status {
        lane.reset();
        return Status::ok();
      }).wait();
    }
  }
  MultiGpuRegistrar(const MultiGpuRegistrar&) = delete;
  MultiGpuRegistrar& operator=(const MultiGpuRegistrar&) = delete;
  std::string device() const override { return "gpu"; }
  double last_seconds() const override { return last_seconds_; }
  engine::DicStages stages() const override { return stages_; }

  // Lane 0's, on its device.
  Result<std::string> guess_method(const dic::DicOptions& o, Index rows, Index cols,
                                   Index points) const override {
    Result<std::string> method = Status{ErrorCode::internal, "no guess method"};
    const Lane& first = *lanes_[0];
    XCORR_RETURN_IF_ERROR(on_device(first.device, [&]() -> Status {
                            method = first.registrar->guess_method(o, rows, cols, points);
                            return method.status();
                          }).get());
    return method;
  }
  bool has_waves() const override { return true; }
  Status waves(const dic::FrameInputs& in, const dic::DicOptions& o,
               std::vector<dic::IcgnResult>& points) override {
    Lane& first = *lanes_[0];
    return on_device(first.device,
                     [&]() -> Status { return first.registrar->waves(in, o, points); })
        .get();
  }

  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions& o) override {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<char>& active = *in.active;
    const std::size_t n = active.size();
    const auto points = static_cast<Index>(std::count(active.begin(), active.end(), char{1}));
    // Every device uses the first device's choice for the whole frame.
    auto method = guess_method(o, in.reference.rows, in.reference.cols, points);
    if (!method.is_ok()) return method.status();
    dic::DicOptions part = o;
    part.method = method.value();
    part.propagation = dic::Propagation::independent;  // the waves need the whole frame
    const std::vector<std::size_t> bounds = dic::split_points(active, lanes_.size());
    std::vector<std::future<Status>> running;
    for (std::size_t l = 0; l < lanes_.size(); ++l) {
      Lane& ln = *lanes_[l];
      ln.active.assign(n, 0);
      std::copy(active.begin() + static_cast<std::ptrdiff_t>(bounds[l]),
                active.begin() + static_cast<std::ptrdiff_t>(bounds[l + 1]),
                ln.active.begin() + static_cast<std::ptrdiff_t>(bounds[l]));
      running.push_back(on_device(ln.device, [&ln, &in, &part]() -> Status {
        dic::FrameInputs mine = in;
        mine.active = &ln.active;
        mine.progress = nullptr;  // reported here, on the caller's thread
        auto r = ln.registrar->register_frame(mine, part);
        if (!r.is_ok()) return r.status();
        ln.result = r.value();
        return Status::ok();
      }));
    }
    Status failed = Status::ok();
    for (auto& r : running) {  // every lane finishes before any result is read
      Status s = r.get();
      if (failed.is_ok() && !s.is_ok()) failed = std::move(s);
    }
    if (!failed.is_ok()) return failed;

    reg_.points.resize(n);
    reg_.variant.clear();
    for (std::size_t l = 0; l < lanes_.size(); ++l) {
      const std::vector<dic::IcgnResult>& got = lanes_[l]->result->points;
      std::copy(got.begin() + static_cast<std::ptrdiff_t>(bounds[l]),
                got.begin() + static_cast<std::ptrdiff_t>(bounds[l + 1]),
                reg_.points.begin() + static_cast<std::ptrdiff_t>(bounds[l]));
      if (reg_.variant.empty()) reg_.variant = lanes_[l]->result->variant;
    }
    const dic::PointProgress* progress =
        in.progress != nullptr && *in.progress ? in.progress : nullptr;
    if (progress != nullptr && !(*progress)(points, 2 * points))
      return Status{ErrorCode::cancelled, "cancelled inside a frame"};
    stages_ = last_gpu_stage_seconds(*lanes_[0]->registrar);
    stages_.propagation = 0;
    stages_.waves = 0;
    stages_.wave_points = 0;
    if (o.propagation == dic::Propagation::reliability_guided) {
      const auto w0 = std::chrono::steady_clock::now();
      XCORR_RETURN_IF_ERROR(waves(in, o, reg_.points));
      const engine::DicStages w = last_gpu_stage_seconds(*lanes_[0]->registrar);
      stages_.waves = w.waves;
      stages_.wave_points = w.wave_points;
      stages_.propagation =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    }
    last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (progress != nullptr && !(*progress)(2 * points, 2 * points))
      return Status{ErrorCode::cancelled, "cancelled inside a frame"};
    return &reg_;
  }

 private:
  std::vector<std::unique_ptr<Lane>> lanes_;
  dic::FrameRegistration reg_;
  double last_seconds_ = -1;
  engine::DicStages stages_;
};

}  // namespace

Result<std::unique_ptr<dic::FrameRegistrar>> make_multi_gpu_registrar(std::vector<int> devices) {
  if (devices.empty()) return Status{ErrorCode::invalid_argument, "no devices listed"};
  std::vector<std::unique_ptr<Lane>> lanes;
  for (const int d : devices) {  // on_device names a device that does not exist
    auto lane = std::make_unique<Lane>();
    lane->device = d;
    Lane* l = lane.get();
    XCORR_RETURN_IF_ERROR(on_device(d, [l]() -> Status {
                            add_gpu_variants(l->registry);
                            auto r = make_gpu_registrar(l->registry);
                            if (!r.is_ok()) return r.status();
                            l->registrar = std::move(r).value();
                            return Status::ok();
                          }).get());
    lanes.push_back(std::move(lane));
  }
  return std::unique_ptr<dic::FrameRegistrar>(
      std::make_unique<MultiGpuRegistrar>(std::move(lanes)));
}

}  // namespace xcorr::gpu
