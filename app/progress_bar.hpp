// The terminal progress bar of long commands (`xcorr run`, `xcorr register`): frames done,
// rate and ETA on one line of stderr, redrawn at most 5 times a second.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "core/matrix.hpp"

namespace xcorr::app {

inline std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char b[32];
  std::snprintf(b, sizeof b, "%ld:%02ld", s / 60, s % 60);
  return b;
}

// "[job 1/3 name] frame 12.4/50 [######------] 3.2 frames/s ETA 0:12" on one refreshed line,
// redrawn at most 5 times a second (progress comes inside frames, by blocks of points).
class ProgressBar {
 public:
  ProgressBar(std::string label, bool quiet) : label_(std::move(label)), quiet_(quiet) {}
  // The first call sets the baseline (frames already done); the rate counts frames since.
  void update(double done, Index total) {
    if (quiet_) return;
    if (first_ < 0) {
      first_ = done;
      start_ = Clock::now();
    }
    const auto now = Clock::now();
    if (now - drawn_ < std::chrono::milliseconds(200) && done < static_cast<double>(total)) return;
    drawn_ = now;
    const double t = std::chrono::duration<double>(now - start_).count();
    const double rate = t > 0 ? (done - first_) / t : 0;
    const int width = 24,
              filled = total > 0 ? static_cast<int>(width * done / static_cast<double>(total)) : 0;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '-');
    const std::string eta =
        rate > 0 ? clock_text((static_cast<double>(total) - done) / rate) : std::string("?");
    char speed[32] = "? frames/s";  // no rate before the second frame of this run
    if (rate > 0) std::snprintf(speed, sizeof speed, "%.2f frames/s", rate);
    std::fprintf(stderr, "\r%s frame %.1f/%ld [%s] %s ETA %s   ", label_.c_str(), done,
                 static_cast<long>(total), bar.c_str(), speed, eta.c_str());
  }
  void finish() {  // ends the progress line, when one was drawn
    if (!quiet_ && first_ >= 0) std::fprintf(stderr, "\n");
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  bool quiet_;
  Clock::time_point start_ = Clock::now(), drawn_{};
  double first_ = -1;
};

}  // namespace xcorr::app
