// DIC frames registered on several CUDA devices at once (gpu/dic_gpu.hpp,
// make_multi_gpu_registrar): the partitioned registrar (core/dic/partitioned_registrar.hpp)
// with threads as its transport. Each device is a lane with its own GpuRegistrar (its own
// registry of GPU variants, buffers and streams, all made on that device); a lane's part runs on
// a host thread that made the device current (on_device); lane 0 is the lead.

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/dic/partitioned_registrar.hpp"
#include "core/parallel.hpp"
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
  double seconds = 0;  // host wall time of its last part (register_parts)
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Lane 0's registrar with every call on its device: the lead of the partitioned registrar.
class OnDevice final : public dic::FrameRegistrar {
 public:
  explicit OnDevice(Lane& lane) : lane_(lane) {}
  std::string device() const override { return "gpu"; }
  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions& o) override {
    Result<const dic::FrameRegistration*> r = Status{ErrorCode::internal, "not run"};
    XCORR_RETURN_IF_ERROR(on_device(lane_.device, [&]() -> Status {
                            r = lane_.registrar->register_frame(in, o);
                            return r.status();
                          }).get());
    return r;
  }
  Result<std::string> guess_method(const dic::DicOptions& o, Index rows, Index cols,
                                   Index points) const override {
    Result<std::string> method = Status{ErrorCode::internal, "no guess method"};
    XCORR_RETURN_IF_ERROR(on_device(lane_.device, [&]() -> Status {
                            method = lane_.registrar->guess_method(o, rows, cols, points);
                            return method.status();
                          }).get());
    return method;
  }
  bool has_waves() const override { return true; }
  Status waves(const dic::FrameInputs& in, const dic::DicOptions& o,
               std::vector<dic::IcgnResult>& points) override {
    return on_device(lane_.device,
                     [&]() -> Status { return lane_.registrar->waves(in, o, points); })
        .get();
  }

 private:
  Lane& lane_;
};

// The lanes as the partitioned registrar's transport: every lane's part at once, one host
// thread per device.
class DeviceThreads final : public dic::PartTransport {
 public:
  explicit DeviceThreads(std::vector<std::unique_ptr<Lane>> lanes)
      : lanes_(std::move(lanes)), lead_(*lanes_[0]) {}
  ~DeviceThreads() override {  // each lane's device memory freed with its device current
    for (auto& lane : lanes_) {
      const int d = lane->device;
      on_device(d, [&lane]() -> Status {
        lane.reset();
        return Status::ok();
      }).wait();
    }
  }
  DeviceThreads(const DeviceThreads&) = delete;
  DeviceThreads& operator=(const DeviceThreads&) = delete;

  dic::FrameRegistrar& lead() override { return lead_; }
  std::size_t workers() const override { return lanes_.size(); }
  // Lane 0's stages of the last frame's parts (before its waves).
  engine::DicStages parts_stages() const { return parts_stages_; }
  const dic::FrameRegistrar& lead_registrar() const { return *lanes_[0]->registrar; }

  Status register_parts(const dic::FrameInputs& in, const dic::DicOptions& part,
                        const std::vector<std::size_t>& bounds,
                        std::vector<dic::IcgnResult>& points, std::string& variant) override {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<char>& active = *in.active;
    const std::size_t n = active.size();
    std::vector<std::future<Status>> running;
    for (std::size_t l = 0; l < lanes_.size(); ++l) {
      Lane& ln = *lanes_[l];
      const auto first = static_cast<std::ptrdiff_t>(bounds[l]);
      const auto last = static_cast<std::ptrdiff_t>(bounds[l + 1]);
      ln.active.assign(n, 0);
      std::copy(active.begin() + first, active.begin() + last, ln.active.begin() + first);
      // Each lane copies its part's results into `points` on its own thread (the parts are
      // disjoint), as soon as its device is done.
      running.push_back(on_device(ln.device, [&ln, &in, &part, &points, first, last]() -> Status {
        const auto start = std::chrono::steady_clock::now();
        dic::FrameInputs mine = in;
        mine.active = &ln.active;
        mine.progress = nullptr;  // the partitioned registrar reports on the caller's thread
        auto r = ln.registrar->register_frame(mine, part);
        if (!r.is_ok()) return r.status();
        ln.result = r.value();
        const std::vector<dic::IcgnResult>& got = ln.result->points;
        parallel_for(last - first, 8192, [&](Index b, Index e) {  // ~10 MB: over threads
          std::copy(got.begin() + first + b, got.begin() + first + e, points.begin() + first + b);
        });
        ln.seconds = seconds_since(start);
        return Status::ok();
      }));
    }
    Status failed = Status::ok();
    for (auto& r : running) {  // every lane finishes before any result is read
      Status s = r.get();
      if (failed.is_ok() && !s.is_ok()) failed = std::move(s);
    }
    if (!failed.is_ok()) return failed;
    for (std::size_t l = 0; l < lanes_.size() && variant.empty(); ++l)
      variant = lanes_[l]->result->variant;
    parts_stages_ = last_gpu_stage_seconds(*lanes_[0]->registrar);
    parts_stages_.part_slowest = parts_stages_.part_fastest = lanes_[0]->seconds;
    for (const auto& lane : lanes_) {
      parts_stages_.part_slowest = std::max(parts_stages_.part_slowest, lane->seconds);
      parts_stages_.part_fastest = std::min(parts_stages_.part_fastest, lane->seconds);
    }
    parts_stages_.parts = seconds_since(t0);
    return Status::ok();
  }
  // Every lane keeps the whole frame (its part's subsets may reach anywhere): each one starts on
  // it on its own device, all at once.
  void preload(MatrixView<const float> deformed, const dic::DicOptions& o) override {
    std::vector<std::future<Status>> running;
    for (auto& lane : lanes_) {
      dic::FrameRegistrar& r = *lane->registrar;
      running.push_back(on_device(lane->device, [&r, deformed, &o]() -> Status {
        r.preload(deformed, o);
        return Status::ok();
      }));
    }
    for (auto& r : running) r.wait();
  }

 private:
  std::vector<std::unique_ptr<Lane>> lanes_;
  OnDevice lead_;
  engine::DicStages parts_stages_;
};

// The partitioned registrar over the device threads, with the timing GPU registrars report.
class MultiGpuRegistrar final : public TimedRegistrar {
 public:
  explicit MultiGpuRegistrar(std::vector<std::unique_ptr<Lane>> lanes) {
    auto threads = std::make_unique<DeviceThreads>(std::move(lanes));
    threads_ = threads.get();
    inner_ = std::make_unique<dic::PartitionedRegistrar>(std::move(threads));
  }
  std::string device() const override { return "gpu"; }
  double last_seconds() const override { return last_seconds_; }
  engine::DicStages stages() const override { return stages_; }
  Result<std::string> guess_method(const dic::DicOptions& o, Index rows, Index cols,
                                   Index points) const override {
    return inner_->guess_method(o, rows, cols, points);
  }
  bool has_waves() const override { return true; }
  Status waves(const dic::FrameInputs& in, const dic::DicOptions& o,
               std::vector<dic::IcgnResult>& points) override {
    return inner_->waves(in, o, points);
  }
  void preload(MatrixView<const float> deformed, const dic::DicOptions& o) override {
    inner_->preload(deformed, o);
  }
  bool may_run_ahead() const override { return true; }

  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions& o) override {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = inner_->register_frame(in, o);
    if (!r.is_ok()) return r;
    stages_ = threads_->parts_stages();
    stages_.propagation = 0;
    stages_.waves = 0;
    stages_.wave_points = 0;
    if (o.propagation == dic::Propagation::reliability_guided) {
      const engine::DicStages w = last_gpu_stage_seconds(threads_->lead_registrar());
      stages_.waves = w.waves;
      stages_.wave_points = w.wave_points;
      stages_.propagation = inner_->last_waves_seconds();
    }
    last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  DeviceThreads* threads_ = nullptr;  // owned by inner_
  std::unique_ptr<dic::PartitionedRegistrar> inner_;
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
