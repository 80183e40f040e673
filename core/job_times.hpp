// Where a job's wall time went, as `xcorr run`, `xcorr register`, xcorr-mpi and the desktop
// app's batch dialog print it (one wording).
#pragma once

#include <chrono>
#include <string>

namespace xcorr {

// Seconds of wall time in one process, on the thread that ran the job. 0: not measured.
struct JobTimes {
  // The job's three phases: opening its images and making what measures them (setup), the
  // frames (read, measured, committed) and writing its results.
  double setup_s = 0, frames_s = 0, writing_s = 0;
  // Parts of frames_s spent waiting (registrations): for frames to be read and cleaned (what
  // reading ahead did not hide), in exchanges with the other processes of a shared job
  // (xcorr-mpi) and committing what was measured so far.
  double reading_wait_s = 0, exchanges_s = 0, commits_s = 0;

  double total_s() const { return setup_s + frames_s + writing_s; }
};

// "setup 0.10, frames 0.90, writing 0.20", then, for the waits of at least 0.005 s,
// "; the frames waited 0.50 s for reading, 0.10 s for the other processes, 0.02 s for commits".
std::string parts_text(const JobTimes& t);

// Adds the seconds from its making to its end to `to` (a JobTimes part).
class AddTime {
 public:
  explicit AddTime(double& to) : to_(to) {}
  AddTime(const AddTime&) = delete;
  AddTime& operator=(const AddTime&) = delete;
  ~AddTime() {
    to_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double& to_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace xcorr
