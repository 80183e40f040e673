// Ctrl-C in `xcorr run` inside a long frame (docs/gui.md): the real executable on a single pair
// with 51,076 points. Progress shows inside the frame (fractional frames on stderr); SIGINT ends
// the process at once (the handler removes the temporary files, then the signal ends it), with
// no commit of the unfinished frame and no temporary file left; a second run computes the frame.
// The test prints the time from SIGINT to the process's end (docs/gui.md records it).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/io/image_io.hpp"
#include "tests/support/sample_files.hpp"
#include "tests/support/temp_dir.hpp"

extern char** environ;

namespace xcorr {
namespace {

namespace fs = std::filesystem;

class Interrupt : public testing::TempDirTest {};

TEST_F(Interrupt, CtrlCInsideAFrameEndsTheRunAtOnceAndLeavesNoHalfFrame) {
  ASSERT_TRUE(testing::write_sample_pages(path("pair.tif"), 2).is_ok());
  {
    std::ofstream job(path("job.json"));
    job << R"({"reference": "pair.tif", "out": "out.csv", "roi": ["rect:20,20,216,216"],)"
        << R"( "step": 1, "device": "cpu"})";
  }
  const std::string err = path("stderr.txt");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::string exe = XCORR_EXE, job = path("job.json");
  char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>("run"),
                  const_cast<char*>(job.c_str()), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  // Wait for progress inside the frame: "frame 0.3/1" or later.
  bool inside = false;
  for (int i = 0; i < 6000 && !inside; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::string text = testing::read_bytes(err);
    for (const char* at : {"frame 0.3/1", "frame 0.4/1", "frame 0.5/1", "frame 0.6/1"})
      inside = inside || text.find(at) != std::string::npos;
  }
  ASSERT_TRUE(inside) << "progress inside the frame: " << testing::read_bytes(err);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("SIGINT inside the frame: the process ended %.3f s later\n", seconds);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_LT(seconds, 5.0);
  EXPECT_FALSE(fs::exists(path("out.csv")));
  EXPECT_FALSE(fs::exists(path("out.csv.partial/frame_000001.bin"))) << "no half frame";
  for (const auto& e : fs::recursive_directory_iterator(dir_))  // ".<stem>.partial-<pid>-<n>"
    EXPECT_EQ(e.path().filename().string().find(".partial-"), std::string::npos) << e.path();
  // Run again: the frame is computed, the CSV written.
  const std::string again = exe + " run --quiet " + job + " > /dev/null 2>&1";
  EXPECT_EQ(std::system(again.c_str()), 0);
  EXPECT_TRUE(fs::exists(path("out.csv")));
}

}  // namespace
}  // namespace xcorr
