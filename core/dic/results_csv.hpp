// DIC results as CSV (docs/dic.md): a header block of '#' lines (software version, images, units,
// every setting, the ROI), then one row per grid point and frame:
//   frame,x,y,u,v,exx,eyy,exy,zncc,iterations,status,sigma_u,sigma_v
// x, y, u, v in px; strains dimensionless; sigma_u, sigma_v the noise-based standard uncertainty
// of u and v (px); invalid points keep their row with NaN values and their status. When the
// pixel size is known, x_<unit>,y_<unit>,u_<unit>,v_<unit>,sigma_u_<unit>,sigma_v_<unit> follow;
// when
// the frame interval is known, time_s (the frame's time after the reference). The header's
// "# scale:" line states both and where they came from. One long file, or one file per frame.
// Written through a temporary file + rename.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/io/scale.hpp"

namespace xcorr::dic {

struct CsvContext {
  std::string reference;            // reference image name
  std::vector<std::string> frames;  // deformed frame names (frame k = frames[k - 1])
  DicOptions options;
  Roi roi;
  std::string guess_variant;
  std::string device;  // where the frames were registered ("cpu", "gpu")
  io::ImageScale scale;
  // Frame k's time after the reference, in frame intervals (frame_steps[k - 1]; negative for
  // pages before a reference chosen later in the stack); empty: k.
  std::vector<double> frame_steps;
};

// The '#' header lines (each ending in '\n').
std::string csv_header(const CsvContext& c);

// One file with every frame.
Status write_dic_csv(const std::filesystem::path& path, const DicResult& r, const CsvContext& c);

// One file per frame: <stem>_frame0001<ext>, ... next to `path`; returns the paths written.
Result<std::vector<std::filesystem::path>> write_dic_csv_per_frame(
    const std::filesystem::path& path, const DicResult& r, const CsvContext& c);

}  // namespace xcorr::dic
