#include "core/register/split_phase_engine.hpp"

#include <utility>

namespace xcorr::reg {
namespace {

class SplitPhaseEngine final : public PhaseEngine {
 public:
  SplitPhaseEngine(std::vector<std::unique_ptr<PhaseEngine>> lanes, LaneRunner run)
      : lanes_(std::move(lanes)), run_(std::move(run)) {}
  ~SplitPhaseEngine() override {  // each lane freed where it lives (a GPU lane: its device)
    for (std::size_t l = 0; l < lanes_.size(); ++l)
      run_(l, [this, l]() -> Status {
        lanes_[l].reset();
        return Status::ok();
      }).wait();
  }
  SplitPhaseEngine(const SplitPhaseEngine&) = delete;
  SplitPhaseEngine& operator=(const SplitPhaseEngine&) = delete;

  std::string device() const override { return lanes_[0]->device(); }
  Index frames_per_call() const override { return chunk() * static_cast<Index>(lanes_.size()); }
  Status set_reference(MatrixView<const float> reference) override {
    return on_every_lane([&](std::size_t l) { return lanes_[l]->set_reference(reference); });
  }
  Result<std::vector<Shift>> measure(
      const std::vector<MatrixView<const float>>& frames,
      const std::vector<MatrixView<const float>>* references) override {
    if (references != nullptr && references->size() != frames.size())
      return Status{ErrorCode::invalid_argument, "one reference per frame is needed"};
    const std::size_t n = frames.size(), lanes = lanes_.size();
    const auto c = static_cast<std::size_t>(chunk());
    // Lane l's frames (and references) in order, and where each goes in the output.
    std::vector<std::vector<MatrixView<const float>>> f(lanes), r(lanes);
    std::vector<std::vector<std::size_t>> at(lanes);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t l = (i / c) % lanes;
      f[l].push_back(frames[i]);
      if (references != nullptr) r[l].push_back((*references)[i]);
      at[l].push_back(i);
    }
    std::vector<Result<std::vector<Shift>>> got(lanes, std::vector<Shift>{});
    XCORR_RETURN_IF_ERROR(on_every_lane([&](std::size_t l) -> Status {
      if (f[l].empty()) return Status::ok();
      got[l] = lanes_[l]->measure(f[l], references != nullptr ? &r[l] : nullptr);
      return got[l].status();
    }));
    std::vector<Shift> out(n);
    for (std::size_t l = 0; l < lanes; ++l) {
      if (got[l].value().size() != at[l].size())
        return Status{ErrorCode::internal, "a lane gave the wrong number of shifts"};
      for (std::size_t k = 0; k < at[l].size(); ++k) out[at[l][k]] = got[l].value()[k];
    }
    return out;
  }

 private:
  // Frames a lane measures at once (its engine's own calls); 32 when the engine has no preference.
  Index chunk() const {
    const Index c = lanes_[0]->frames_per_call();
    return c > 0 ? c : 32;
  }
  // work(l) for every lane at once, where each lane lives; the first error in lane order after
  // all have finished.
  Status on_every_lane(const std::function<Status(std::size_t)>& work) {
    std::vector<std::future<Status>> running;
    for (std::size_t l = 0; l < lanes_.size(); ++l)
      running.push_back(run_(l, [&work, l] { return work(l); }));
    Status first = Status::ok();
    for (auto& r : running) {
      Status s = r.get();
      if (first.is_ok() && !s.is_ok()) first = std::move(s);
    }
    return first;
  }

  std::vector<std::unique_ptr<PhaseEngine>> lanes_;
  LaneRunner run_;
};

}  // namespace

std::unique_ptr<PhaseEngine> make_split_phase_engine(
    std::vector<std::unique_ptr<PhaseEngine>> lanes, LaneRunner run) {
  return std::make_unique<SplitPhaseEngine>(std::move(lanes), std::move(run));
}

}  // namespace xcorr::reg
