// The desktop project's results file, <project stem>.results beside the project's job file: the
// last DIC run (grid, every frame's results bit for bit, the options and ROI it ran with, where
// it ran, the frames that failed) and the tracks, so a reopened project shows its maps and
// tracks without computing again. It names the images it was computed from; a project whose
// images changed since does not load it.
// Format: "XCRS1\n"; a JSON line (names, options and ROI as a job, variant, device, failures,
// tracks, grid size); the grid points (x, y: float64, valid: uint8 each); then per frame its
// length (uint64) and a commit (core/batch/commit.hpp: size and CRC-32 checked).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/batch/report.hpp"
#include "core/dic/dic.hpp"
#include "core/tracking/tracking.hpp"

namespace xcorr::batch {

struct SavedResults {
  std::string reference;            // the reference image's name (as in the CSV header)
  std::vector<std::string> frames;  // the deformed frames' names
  std::optional<dic::DicResult> dic;
  dic::DicOptions options;  // what the DIC run ran with
  dic::Roi roi;
  std::vector<FrameFailure> failed;
  std::vector<Track> tracks;
};

std::string encode_results_file(const SavedResults& r);
// `name` is the file's name for messages.
Result<SavedResults> decode_results_file(std::string_view bytes, const std::string& name);

}  // namespace xcorr::batch
