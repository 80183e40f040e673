#include "core/register/volume_engine.hpp"

#include "core/parallel.hpp"

namespace xcorr::reg {
namespace {

class CpuVolumeEngine final : public VolumeEngine {
 public:
  explicit CpuVolumeEngine(std::unique_ptr<VolumeCorrelator> c) : correlator_(std::move(c)) {}
  std::string device() const override { return "cpu"; }
  Status set_reference(const float* reference) override {
    return correlator_->set_reference(reference);
  }
  Result<std::vector<Shift3>> measure(const std::vector<const float*>& volumes,
                                      const std::vector<const float*>* references) override {
    if (references != nullptr && references->size() != volumes.size())
      return Status{ErrorCode::invalid_argument, "one reference per volume is needed"};
    return parallel_results<Shift3>(static_cast<Index>(volumes.size()), [&](Index k) {
      const auto i = static_cast<std::size_t>(k);
      return references != nullptr ? correlator_->measure((*references)[i], volumes[i])
                                   : correlator_->measure(volumes[i]);
    });
  }

 private:
  std::unique_ptr<VolumeCorrelator> correlator_;
};

}  // namespace

Result<std::unique_ptr<VolumeEngine>> make_cpu_volume_engine(VolumeShape shape, int upsample) {
  auto c = VolumeCorrelator::create(shape, upsample);
  if (!c.is_ok()) return c.status();
  return std::unique_ptr<VolumeEngine>(std::make_unique<CpuVolumeEngine>(std::move(c).value()));
}

Result<std::unique_ptr<VolumeEngine>> cpu_volume_engines(VolumeShape shape, int upsample,
                                                         const std::string& device) {
  if (device == "gpu") return Status{ErrorCode::unsupported, "device gpu: no GPU engine here"};
  return make_cpu_volume_engine(shape, upsample);
}

}  // namespace xcorr::reg
