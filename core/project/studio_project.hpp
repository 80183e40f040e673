// The desktop app's project, without widgets: what the window edits (stack, ROI, DIC options,
// tracking templates) and what its last runs produced (DIC results with the settings they ran
// with and the frames that failed; tracks), with the operations on them that need no Qt: the
// project as a job, saving it, finding a frame's results, and the CSV exports (their settings
// are assembled in one place). ui/main_window.cpp shows it and edits it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/batch/report.hpp"
#include "core/dic/dic.hpp"
#include "core/dic/job.hpp"
#include "core/dic/results_csv.hpp"
#include "core/io/scale.hpp"
#include "core/tracking/tracking.hpp"

namespace xcorr {

struct StudioProject {
  // Edited.
  std::string stack_path;          // the opened stack (file or folder); empty for a list of files
  std::vector<std::string> files;  // a list of files (the first is the reference); else empty
  Index reference_page = 0;        // of stack_path: the page that is the reference (frame 0)
  dic::Roi roi;
  dic::DicOptions options;
  std::vector<TemplateRect> templates;
  std::vector<dic::NamedRoi> rois;  // the ROI manager's shapes (kept when another stack opens)
  std::string display;  // the window's display settings (dic::DicJob::display), kept as they are
  // Named by the opened stack: frame 0 and the deformed frames 1..n.
  std::string reference_name;
  std::vector<std::string> frame_names;
  // The opened stack's scale from its metadata (the options' pixel_size and frame_interval
  // override it: scale()), and frame k's time after the reference in frame intervals
  // (frame_steps[k - 1]; io::frame_time_s).
  io::ImageScale file_scale;
  std::vector<double> frame_steps;

  // The last DIC run: its result, the options and ROI it ran with, the frames that failed.
  std::optional<dic::DicResult> results;
  dic::DicOptions ran_options;
  dic::Roi ran_roi;
  std::vector<batch::FrameFailure> failed;
  // The last tracking run.
  std::vector<Track> tracks;

  // file_scale with the options' overrides (the options are checked, so this always parses).
  io::ImageScale scale() const;
  double frame_time_s(Index frame) const { return io::frame_time_s(scale(), frame_steps, frame); }

  // The project as a DIC job without an output (the window's run; save() names one): a stack
  // path as the reference, or a list of files as the reference and its frames.
  dic::DicJob job() const;
  // The job file at `path` with out = <stem>.csv beside it, checked, and the results of the last
  // runs in <stem>.results (core/batch/results_file.hpp) when there are any, written together
  // atomically; refused when the project has no images.
  Status save(const std::filesystem::path& path) const;
  // After the project at `path` was opened (its stack adopted): the results saved with it, when
  // <stem>.results exists and names the same images; false when there was none to load.
  Result<bool> load_results(const std::filesystem::path& path);

  // A new stack (a path, or a list of files), its frame names, and no results, templates or
  // tracks of the previous one.
  void adopt_stack(std::string path, std::vector<std::string> file_list, std::string reference,
                   std::vector<std::string> frames, Index page = 0);

  // The results of deformed frame `frame` (1-based), or null: the reference, a failed frame,
  // no run.
  const dic::FrameResult* result_of(Index frame) const;

  // Exports of the last runs; each refuses, by what is missing, when there is nothing to write.
  Status export_csv(const std::string& path, bool per_frame) const;
  Status export_frame_csv(const std::string& path, Index frame) const;
  Status export_tracks_csv(const std::string& path) const;

 private:
  dic::CsvContext csv_context() const;
};

}  // namespace xcorr
