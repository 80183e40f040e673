#include "core/project/studio_project.hpp"

#include <utility>

#include "core/batch/results_file.hpp"
#include "core/dic/result_writers.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/read_file.hpp"

namespace xcorr {

dic::DicJob StudioProject::job() const {
  dic::DicJob job;
  job.reference = stack_path;
  job.reference_page = reference_page;
  if (!files.empty()) {
    job.reference = files.front();
    job.frames.assign(files.begin() + 1, files.end());
  }
  job.roi = roi;
  job.options = options;
  job.templates = templates;
  job.rois = rois;
  job.display = display;
  return job;
}

Status StudioProject::save(const std::filesystem::path& path) const {
  if (stack_path.empty() && files.empty())
    return {ErrorCode::invalid_argument, "no images to save: open a stack or files first"};
  dic::DicJob j = job();
  j.out = (path.parent_path() / (path.stem().string() + ".csv")).string();
  XCORR_RETURN_IF_ERROR(j.check());
  const std::filesystem::path saved = path.parent_path() / (path.stem().string() + ".results");
  XCORR_RETURN_IF_ERROR(io::check_output_name(saved));
  std::vector<std::pair<std::filesystem::path, std::string>> texts = {{path, dic::to_json(j)}};
  if (results || !tracks.empty()) {
    batch::SavedResults r{reference_name, frame_names, results, ran_options,
                          ran_roi,        failed,      tracks};
    texts.emplace_back(saved, batch::encode_results_file(r));
  } else {
    std::error_code ec;
    std::filesystem::remove(saved, ec);  // results of an earlier save no longer belong to it
  }
  return io::write_texts_atomically(texts);
}

Result<bool> StudioProject::load_results(const std::filesystem::path& path) {
  const std::filesystem::path saved = path.parent_path() / (path.stem().string() + ".results");
  std::error_code ec;
  if (!std::filesystem::exists(saved, ec)) return false;
  auto bytes = io::read_file(saved);
  if (!bytes.is_ok()) return bytes.status();
  auto r = batch::decode_results_file(bytes.value(), saved.string());
  if (!r.is_ok()) return r.status();
  if (r.value().reference != reference_name || r.value().frames != frame_names) {
    return Status{ErrorCode::invalid_argument,
                  "'" + saved.string() +
                      "' holds results of other images (the stack changed since): compute again"};
  }
  results = std::move(r.value().dic);
  ran_options = r.value().options;
  ran_roi = r.value().roi;
  failed = std::move(r.value().failed);
  tracks = std::move(r.value().tracks);
  return true;
}

void StudioProject::adopt_stack(std::string path, std::vector<std::string> file_list,
                                std::string reference, std::vector<std::string> frames,
                                Index page) {
  stack_path = std::move(path);
  files = std::move(file_list);
  reference_page = page;
  file_scale = {};
  frame_steps.clear();
  reference_name = std::move(reference);
  frame_names = std::move(frames);
  roi = {};
  templates.clear();
  results.reset();
  failed.clear();
  tracks.clear();
}

const dic::FrameResult* StudioProject::result_of(Index frame) const {
  if (!results) return nullptr;
  for (const dic::FrameResult& fr : results->frames)
    if (fr.frame == frame) return &fr;
  return nullptr;
}

io::ImageScale StudioProject::scale() const {
  auto s = io::apply_user_scale(file_scale, options.pixel_size, options.frame_interval);
  return s.is_ok() ? s.value() : file_scale;
}

dic::CsvContext StudioProject::csv_context() const {
  auto s = io::apply_user_scale(file_scale, ran_options.pixel_size, ran_options.frame_interval);
  return {reference_name,
          frame_names,
          ran_options,
          ran_roi,
          results->guess_variant,
          results->device,
          s.is_ok() ? s.value() : file_scale,
          frame_steps};
}

Status StudioProject::export_csv(const std::string& path, bool per_frame) const {
  if (!results) return {ErrorCode::invalid_argument, "no DIC results to export: run DIC first"};
  auto written = dic::write_results(path, per_frame, *results, csv_context());
  return written.is_ok() ? Status::ok() : written.status();
}

Status StudioProject::export_frame_csv(const std::string& path, Index frame) const {
  if (!results) return {ErrorCode::invalid_argument, "no DIC results to export: run DIC first"};
  const dic::FrameResult* fr = result_of(frame);
  if (fr == nullptr)
    return {ErrorCode::invalid_argument,
            frame < 1 ? "show a deformed frame (1 or later) to export it"
                      : "frame " + std::to_string(frame) + " has no results (it failed)"};
  dic::DicResult one;
  one.grid = results->grid;
  one.guess_variant = results->guess_variant;
  one.device = results->device;
  one.frames.push_back(*fr);
  auto written = dic::write_results(path, false, one, csv_context());
  return written.is_ok() ? Status::ok() : written.status();
}

Status StudioProject::export_tracks_csv(const std::string& path) const {
  if (tracks.empty())
    return {ErrorCode::invalid_argument, "no tracks to export: run tracking first"};
  return write_tracks_csv(path, tracks, reference_name, scale(), frame_steps);
}

}  // namespace xcorr
