#include "core/dic/partitioned_registrar.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

namespace xcorr::dic {

PartitionedRegistrar::PartitionedRegistrar(std::unique_ptr<PartTransport> transport)
    : transport_(std::move(transport)) {}

std::string PartitionedRegistrar::device() const {
  return transport_->lead().device();
}

Result<std::string> PartitionedRegistrar::guess_method(const DicOptions& o, Index rows, Index cols,
                                                       Index points) const {
  return transport_->lead().guess_method(o, rows, cols, points);
}

bool PartitionedRegistrar::has_waves() const {
  return transport_->lead().has_waves();
}

Status PartitionedRegistrar::waves(const FrameInputs& in, const DicOptions& o,
                                   std::vector<IcgnResult>& points) {
  return transport_->lead().waves(in, o, points);
}

Result<const FrameRegistration*> PartitionedRegistrar::register_frame(const FrameInputs& in,
                                                                      const DicOptions& o) {
  const std::vector<char>& active = *in.active;
  const auto points = static_cast<Index>(std::count(active.begin(), active.end(), char{1}));
  // Every worker uses the lead's choice for the whole frame.
  auto method = guess_method(o, in.reference.rows, in.reference.cols, points);
  if (!method.is_ok()) return method.status();
  DicOptions part = o;
  part.method = method.value();
  part.propagation = Propagation::independent;  // the waves need the whole frame
  const std::vector<std::size_t> bounds = split_points(active, transport_->workers());

  // Progress: the parts are the first half of the frame's units, the waves the second.
  const PointProgress* progress = in.progress != nullptr && *in.progress ? in.progress : nullptr;
  PointProgress lead_part;
  FrameInputs parts_in = in;
  parts_in.progress = nullptr;
  if (progress != nullptr) {
    lead_part = [progress, points](Index done, Index total) {
      return (*progress)(total > 0 ? done * points / total : 0, 2 * points);
    };
    parts_in.progress = &lead_part;
  }
  reg_.points.resize(active.size());  // every entry is a part's (memory reused frame to frame)
  reg_.variant.clear();
  XCORR_RETURN_IF_ERROR(
      transport_->register_parts(parts_in, part, bounds, reg_.points, reg_.variant));
  if (progress != nullptr && !(*progress)(points, 2 * points))
    return Status{ErrorCode::cancelled, "cancelled inside a frame"};
  waves_seconds_ = 0;
  if (o.propagation == Propagation::reliability_guided) {
    const auto w0 = std::chrono::steady_clock::now();
    XCORR_RETURN_IF_ERROR(waves(in, o, reg_.points));
    waves_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  }
  if (progress != nullptr && !(*progress)(2 * points, 2 * points))
    return Status{ErrorCode::cancelled, "cancelled inside a frame"};
  return &reg_;
}

}  // namespace xcorr::dic
