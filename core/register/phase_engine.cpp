#include "core/register/phase_engine.hpp"

#include "core/parallel.hpp"

namespace xcorr::reg {
namespace {

class CpuPhaseEngine final : public PhaseEngine {
 public:
  CpuPhaseEngine(std::unique_ptr<PhaseCorrelator> p, int iterations)
      : phase_(std::move(p)), iterations_(iterations) {}
  std::string device() const override { return "cpu"; }
  Status set_reference(MatrixView<const float> reference) override {
    return phase_->set_reference(reference);
  }
  Result<std::vector<Shift>> measure(
      const std::vector<MatrixView<const float>>& frames,
      const std::vector<MatrixView<const float>>* references) override {
    return parallel_results<Shift>(static_cast<Index>(frames.size()), [&](Index k) {
      const auto i = static_cast<std::size_t>(k);
      return iterate(frames[i], references != nullptr ? &(*references)[i] : nullptr);
    });
  }

 private:
  Result<Shift> iterate(MatrixView<const float> frame,
                        const MatrixView<const float>* reference) const {
    const auto once = [&](const Shift* near) {
      return reference != nullptr ? phase_->measure(*reference, frame, near)
                                  : phase_->measure(frame, near);
    };
    auto s = once(nullptr);
    if (!s.is_ok()) return s;
    Shift total = s.value();
    for (int k = 1; k < iterations_; ++k) {
      auto again = once(&total);
      if (!again.is_ok()) return again;
      total = again.value();
    }
    return total;
  }

  std::unique_ptr<PhaseCorrelator> phase_;
  int iterations_ = 1;
};

}  // namespace

Result<std::unique_ptr<PhaseEngine>> make_cpu_phase_engine(Shape shape, const PhaseOptions& o,
                                                           int iterations) {
  if (iterations < 1)
    return Status{ErrorCode::invalid_argument,
                  "iterations " + std::to_string(iterations) + ": must be >= 1"};
  auto p = PhaseCorrelator::create(shape, o);
  if (!p.is_ok()) return p.status();
  return std::unique_ptr<PhaseEngine>(
      std::make_unique<CpuPhaseEngine>(std::move(p).value(), iterations));
}

Result<std::unique_ptr<PhaseEngine>> cpu_phase_engines(Shape shape, const PhaseOptions& o,
                                                       int iterations, const std::string& device,
                                                       const std::string& /*devices*/) {
  if (device == "gpu") return Status{ErrorCode::unsupported, "device gpu: no GPU engine here"};
  return make_cpu_phase_engine(shape, o, iterations);
}

}  // namespace xcorr::reg
