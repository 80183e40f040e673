// What one batch job did: frames computed, resumed and failed, and the files written; and the
// summary text `xcorr run` prints and the desktop app's batch dialog shows (one wording).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/dic/session.hpp"
#include "core/job_times.hpp"
#include "core/matrix.hpp"

namespace xcorr::batch {

struct FrameFailure {
  Index frame = 0;  // 1-based
  std::string source, reason;
};

struct JobReport {
  std::size_t job = 0;  // its index in the batch (DIC jobs, then registrations)
  std::string name, out;
  Index frames = 0, computed = 0, resumed = 0;  // resumed: committed by an earlier run
  std::vector<FrameFailure> failed;
  std::vector<std::string> written;  // result files (core/dic/result_writers.hpp)
  Index recomputed_from = 0;  // > 0: that frame's commit was damaged or missing; it and later
                              // frames were recomputed
  std::string device, guess_variant;
  // Wall time of the job in this process: DIC jobs, opening its images, the registrar and the
  // reference (setup), the frames (read, registered, committed) and writing its results
  // (formatted, written and flushed); registrations, reg::RegisterReport's.
  JobTimes times;
  // DIC jobs: the session's phases summed over the frames computed here (`xcorr dic --timings`),
  // and the GPU registrar's own seconds over its calls (engine::SummedTimes; 0 on the CPU).
  dic::FrameTimes frame_phases;
  double registrar_device_s = 0;
};

// "<label>: 5 frames (3 computed, 2 resumed, 0 failed) on cpu, guess auto -> out.csv in 1.20 s
// (setup 0.10, frames 0.90, writing 0.20)" (and the frames' waits: parts_text), then one
// "  FAILED frame N (source): reason" line per failed frame, and "  RECOMPUTED ..." when a damaged
// or missing commit was found.
std::vector<std::string> summary_lines(const std::string& label, const JobReport& r);

}  // namespace xcorr::batch
