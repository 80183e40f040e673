#include "core/dic/dic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/dic/session.hpp"

namespace xcorr::dic {
Result<DicResult> run_dic(const Registry& engine, MatrixView<const float> reference,
                          StackView<const float> frames, const Roi& roi, const DicOptions& o,
                          const DicProgress& progress) {
  const auto cpu = make_cpu_registrar(engine);
  return run_dic(*cpu, reference, frames, roi, o, progress);
}

Result<DicResult> run_dic(FrameRegistrar& registrar, MatrixView<const float> reference,
                          StackView<const float> frames, const Roi& roi, const DicOptions& o,
                          const DicProgress& progress) {
  if (frames.count == 0) return Status{ErrorCode::invalid_argument, "no deformed frames given"};
  if (frames.shape() != reference.shape()) {
    return Status{ErrorCode::size_mismatch, "the frames are " + image_size(frames.shape()) +
                                                " but the reference is " +
                                                image_size(reference.shape())};
  }
  auto session = DicSession::create(registrar, reference, roi, o);
  if (!session.is_ok()) return session.status();
  DicSession& s = session.value();
  DicResult result;
  result.grid = s.grid();
  result.device = s.device();
  // A stack pipeline: frame f's results finish while frame f + 1 registers, and frame f + 1 is
  // handed to the registrar while the host checks frame f.
  std::optional<PendingFrame> pending;
  for (Index f = 0; f < frames.count; ++f) {
    const UpcomingFrame upcoming = [&frames, f]() -> Upcoming {
      if (f + 1 >= frames.count) return {};
      return {f + 2, frames[f + 1]};
    };
    auto started = s.start(frames[f], f + 1, {}, upcoming);
    if (!started.is_ok()) return started.status();
    if (pending) result.frames.push_back(pending->get());
    pending = std::move(started).value();
    result.guess_variant = s.state().guess_variant;
    if (progress && !progress(f + 1, frames.count))
      return Status{ErrorCode::cancelled, "DIC cancelled after frame " + std::to_string(f + 1)};
  }
  result.frames.push_back(pending->get());
  return result;
}

}  // namespace xcorr::dic
