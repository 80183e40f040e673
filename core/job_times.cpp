#include "core/job_times.hpp"

#include <cstdio>
#include <utility>
#include <vector>

namespace xcorr {

namespace {

std::string seconds(double s) {
  char t[32];
  std::snprintf(t, sizeof t, "%.2f", s);
  return t;
}

}  // namespace

std::string parts_text(const JobTimes& t) {
  std::string text = "setup " + seconds(t.setup_s) + ", frames " + seconds(t.frames_s) +
                     ", writing " + seconds(t.writing_s);
  const std::vector<std::pair<double, const char*>> waits{
      {t.reading_wait_s, " for reading"},
      {t.exchanges_s, " for the other processes"},
      {t.commits_s, " for commits"}};
  std::string waited;
  for (const auto& [s, what] : waits) {
    if (s < 0.005) continue;  // prints as 0.00
    waited += (waited.empty() ? "; the frames waited " : ", ") + seconds(s) + " s" + what;
  }
  return text + waited;
}

}  // namespace xcorr
