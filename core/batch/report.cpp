#include "core/batch/report.hpp"

#include <cstdio>

namespace xcorr::batch {

std::vector<std::string> summary_lines(const std::string& label, const JobReport& r) {
  const std::string written =
      r.written.size() == 1 ? r.written[0] : std::to_string(r.written.size()) + " files";
  std::vector<std::string> lines{
      label + ": " + std::to_string(r.frames) + " frames (" + std::to_string(r.computed) +
      " computed, " + std::to_string(r.resumed) + " resumed, " + std::to_string(r.failed.size()) +
      " failed) on " + r.device + ", guess " + r.guess_variant + " -> " + written};
  if (r.times.total_s() > 0) {
    char t[32];
    std::snprintf(t, sizeof t, " in %.2f s (", r.times.total_s());
    lines[0] += t + parts_text(r.times) + ")";
  }
  for (const FrameFailure& f : r.failed) {
    lines.push_back("  FAILED frame " + std::to_string(f.frame) + " (" + f.source +
                    "): " + f.reason);
  }
  if (r.recomputed_from > 0) {
    lines.push_back("  RECOMPUTED frames from " + std::to_string(r.recomputed_from) +
                    " on: the commit of frame " + std::to_string(r.recomputed_from) +
                    " was damaged (checksum) or missing");
  }
  return lines;
}

}  // namespace xcorr::batch
