// engine::on_devices (core/engine/engine.hpp): a GPU variant's results shared among GPUs.
#include <algorithm>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/engine.hpp"
#include "core/engine/gpu_backend.hpp"
#include "core/peak_search.hpp"

namespace xcorr::engine {
namespace {

struct Lane {
  int device = 0;
  Registry registry;  // this device's GPU variants (their workspaces live on it)
  std::unique_ptr<Correlator> configured;
  const Correlator* variant = nullptr;
};

class DeviceSplit final : public Correlator {
 public:
  DeviceSplit(const Correlator& c, std::vector<std::unique_ptr<Lane>> lanes)
      : c_(c), lanes_(std::move(lanes)) {}
  ~DeviceSplit() override {  // each lane's device memory freed with its device current
    for (auto& lane : lanes_) {
      const int d = lane->device;
      gpu_backend()
          ->on_device(d,
                      [&lane] {
                        lane.reset();
                        return Status::ok();
                      })
          .wait();
    }
  }
  DeviceSplit(const DeviceSplit&) = delete;
  DeviceSplit& operator=(const DeviceSplit&) = delete;

  const VariantInfo& info() const override { return c_.info(); }
  ParamValues params() const override { return c_.params(); }
  Status can_implement(const CorrelationProblem& p) const override { return c_.can_implement(p); }
  double estimate_seconds(const CorrelationProblem& p) const override {
    return c_.estimate_seconds(p) / static_cast<double>(lanes_.size());
  }

  Status run(const CorrelationProblem& p, StackView<float> out) const override {
    const Index unit = result_unit(p), units = p.output_count() / unit;
    const auto n = static_cast<Index>(lanes_.size());
    std::vector<std::future<Status>> running;
    for (Index l = 0; l < n; ++l) {
      const Index first = units * l / n * unit, last = units * (l + 1) / n * unit;
      if (last == first) continue;
      const Lane& lane = *lanes_[static_cast<std::size_t>(l)];
      StackView<float> part = out;
      part.data = out.data + first * out.matrix_stride;
      part.count = last - first;
      running.push_back(gpu_backend()->on_device(lane.device, [&lane, &p, part, first, last] {
        return lane.variant->run(results_slice(p, first, last - first), part);
      }));
    }
    Status failed = Status::ok();
    for (auto& r : running) {  // every lane finishes before the output is used
      Status s = r.get();
      if (failed.is_ok() && !s.is_ok()) failed = std::move(s);
    }
    return failed;
  }

 private:
  const Correlator& c_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace

Result<std::unique_ptr<Correlator>> on_devices(const Correlator& c,
                                               const std::vector<int>& devices) {
  const GpuBackend* g = gpu_backend();
  if (g == nullptr)
    return Status{ErrorCode::unsupported, "this build has no GPU support (built without CUDA)"};
  if (!g->is_gpu_variant(c)) {
    return Status{ErrorCode::invalid_argument,
                  "--devices needs a GPU variant; " + c.info().name + " runs on the CPU"};
  }
  if (devices.empty()) return Status{ErrorCode::invalid_argument, "no devices listed"};
  std::vector<std::unique_ptr<Lane>> lanes;
  for (const int d : devices) {
    auto lane = std::make_unique<Lane>();
    lane->device = d;
    Lane* l = lane.get();
    XCORR_RETURN_IF_ERROR(g->on_device(l->device, [g, l, &c]() -> Status {
                             g->add_variants(l->registry);
                             const Correlator* base = l->registry.find(c.info().name);
                             if (base == nullptr) {
                               return Status{ErrorCode::unsupported,
                                             c.info().name + " is not available on GPU " +
                                                 std::to_string(l->device)};
                             }
                             l->variant = base;
                             if (c.params().empty() || c.params() == base->params())
                               return Status::ok();
                             auto copy = base->with_params(c.params());
                             if (!copy.is_ok()) return copy.status();
                             l->configured = std::move(copy).value();
                             l->variant = l->configured.get();
                             return Status::ok();
                           }).get());
    lanes.push_back(std::move(lane));
  }
  return std::unique_ptr<Correlator>(std::make_unique<DeviceSplit>(c, std::move(lanes)));
}

}  // namespace xcorr::engine
