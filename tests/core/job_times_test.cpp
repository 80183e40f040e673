// The wording of a job's times (core/job_times.hpp): the three phases always, the frames' waits
// only where they are at least 0.005 s.
#include "core/job_times.hpp"

#include <gtest/gtest.h>

namespace xcorr {
namespace {

TEST(JobTimes, ThePhasesAlwaysAndOnlyTheWaitsThatPrint) {
  JobTimes t;
  t.setup_s = 0.104, t.frames_s = 0.9, t.writing_s = 0.2;
  EXPECT_DOUBLE_EQ(t.total_s(), 1.204);
  EXPECT_EQ(parts_text(t), "setup 0.10, frames 0.90, writing 0.20");
  t.exchanges_s = 0.126;
  t.commits_s = 0.004;  // 0.00: left out
  EXPECT_EQ(parts_text(t),
            "setup 0.10, frames 0.90, writing 0.20; the frames waited 0.13 s for the other "
            "processes");
  t.reading_wait_s = 0.5;
  t.commits_s = 0.02;
  EXPECT_EQ(parts_text(t),
            "setup 0.10, frames 0.90, writing 0.20; the frames waited 0.50 s for reading, 0.13 s "
            "for the other processes, 0.02 s for commits");
}

}  // namespace
}  // namespace xcorr
