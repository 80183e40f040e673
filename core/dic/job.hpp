// A DIC job: images, ROI, options and output, as the CLI takes them and as a JSON job file
// (docs/dic.md has the schema). Parsing is strict: unknown keys, wrong types and bad values are
// refused before any work, with the key named.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/dic/options.hpp"
#include "core/dic/roi.hpp"
#include "core/tracking/tracking.hpp"

namespace xcorr::dic {

struct DicJob {
  std::string name;                 // shown in batch progress and summaries (optional)
  std::string reference;            // image file, multi-page TIFF or folder
  Index reference_page = 0;         // the page of `reference` (0-based) that is the reference image
  std::vector<std::string> frames;  // files or folders; empty: the reference's other pages
  Roi roi;
  DicOptions options;
  std::string out;         // CSV path
  bool per_frame = false;  // one CSV per frame (<stem>_frame0001.csv, ...)
  // Template rectangles "x,y,w,h" (px) of the desktop app's tracking mode, kept with the
  // project; `xcorr dic` does not use them.
  std::vector<TemplateRect> templates;  // tracking templates of the project (px)
  // The desktop app's ROI manager: named shapes kept with the project (`xcorr dic` uses `roi`).
  std::vector<NamedRoi> rois;
  // The desktop app's display settings (colour map and range per quantity: docs/gui.md), a JSON
  // object kept as text; empty: none. `xcorr dic` does not use them.
  std::string display;

  Status check() const;
};

// Relative paths in the file are resolved against the file's folder.
Result<DicJob> read_dic_job(const std::filesystem::path& path);
Result<DicJob> parse_dic_job(const std::string& json_text, const std::filesystem::path& base);
std::string to_json(const DicJob& job);  // what parse_dic_job reads back

}  // namespace xcorr::dic
