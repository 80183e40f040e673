// Phase engines split among lanes on the host (reg::make_split_phase_engine with CPU engines
// whose calls are chunked as a GPU engine's are), so that the split and registration's blocks of
// a several-GPU run are tested where there is no GPU.
#pragma once

#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <vector>

#include "core/register/phase_engine.hpp"
#include "core/register/split_phase_engine.hpp"

namespace xcorr::testing {

// Views of single-image stacks, as a PhaseEngine takes them.
inline std::vector<MatrixView<const float>> frame_views(const std::vector<Stack<float>>& s) {
  std::vector<MatrixView<const float>> v;
  for (const Stack<float>& m : s) v.push_back(m[0]);
  return v;
}

// Whether two shifts are the same bits (not only equal: -0 and 0, or two NaNs, differ).
inline bool same_shift_bits(const reg::Shift& a, const reg::Shift& b) {
  return std::memcmp(&a.dx, &b.dx, sizeof a.dx) == 0 &&
         std::memcmp(&a.dy, &b.dy, sizeof a.dy) == 0 &&
         std::memcmp(&a.peak, &b.peak, sizeof a.peak) == 0;
}

// The CPU engine, saying it measures `chunk` frames per call (as the GPU engine's batch), and
// recording how many frames each call brought.
class ChunkedCpuEngine final : public reg::PhaseEngine {
 public:
  ChunkedCpuEngine(std::unique_ptr<reg::PhaseEngine> e, Index chunk)
      : e_(std::move(e)), chunk_(chunk) {}
  std::string device() const override { return e_->device(); }
  Index frames_per_call() const override { return chunk_; }
  Status set_reference(MatrixView<const float> reference) override {
    return e_->set_reference(reference);
  }
  Result<std::vector<reg::Shift>> measure(
      const std::vector<MatrixView<const float>>& frames,
      const std::vector<MatrixView<const float>>* references) override {
    {
      std::lock_guard lock(mutex_);
      calls_.push_back(static_cast<Index>(frames.size()));
    }
    if (fail_) return Status{ErrorCode::internal, "this lane fails"};
    return e_->measure(frames, references);
  }
  std::vector<Index> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  void fail() { fail_ = true; }

 private:
  std::unique_ptr<reg::PhaseEngine> e_;
  Index chunk_;
  bool fail_ = false;
  mutable std::mutex mutex_;
  std::vector<Index> calls_;
};

// `lanes` chunked CPU engines (kept in `made` when given), split; each lane's work on a thread of
// its own, as GPU lanes run.
inline Result<std::unique_ptr<reg::PhaseEngine>> split_cpu_engine(
    int lanes, Index chunk, Shape shape, const reg::PhaseOptions& o, int iterations,
    std::vector<ChunkedCpuEngine*>* made = nullptr) {
  std::vector<std::unique_ptr<reg::PhaseEngine>> engines;
  for (int l = 0; l < lanes; ++l) {
    auto e = reg::make_cpu_phase_engine(shape, o, iterations);
    if (!e.is_ok()) return e.status();
    auto chunked = std::make_unique<ChunkedCpuEngine>(std::move(e).value(), chunk);
    if (made != nullptr) made->push_back(chunked.get());
    engines.push_back(std::move(chunked));
  }
  return reg::make_split_phase_engine(std::move(engines),
                                      [](std::size_t, std::function<Status()> work) {
                                        return std::async(std::launch::async, std::move(work));
                                      });
}

}  // namespace xcorr::testing
