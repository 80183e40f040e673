// ImageJ ROI files: one selection (.roi) or the ROI Manager's ZIP of them (.zip), read into named
// ROI shapes and written back so that ImageJ and Fiji open them. The format is ImageJ's
// (ij/io/RoiDecoder.java and RoiEncoder.java): a 64-byte big-endian header, the coordinates, and
// a second header holding the name in UTF-16.
//
// Coordinates: ImageJ puts pixel (i, j)'s top-left corner at (i, j), this project puts its centre
// there (core/dic/roi.hpp), so reading moves every coordinate by -0.5 px and writing by +0.5 px;
// but a rectangle here covers the centres in [x, x + width), so its x, y are its first pixel,
// which are ImageJ's left, top.
// A shape covers the same pixels here as in ImageJ, both ways (tests/core/imagej/
// imagej_roi_test.cpp compares with the masks ImageJ fills). For that, since ImageJ fills
// rectangles and ovals within whole pixels: a sub-pixel rectangle or oval is read as the one of
// whole pixels ImageJ fills; a rectangle is written as the whole pixels it covers here; an ellipse
// whose bounds are not on pixel edges is written as the outline of its pixels (a polygon).
//
// Read as regions: rectangles and ovals (also with sub-pixel bounds); polygons, freehand and
// traced selections, rotated rectangles and ellipses (their vertices); rounded rectangles (their
// corners as arcs of a polygon); composite selections (their outlines as one even-odd polygon,
// curves as 16 chords each). Not regions, refused by name: lines, segmented and freehand lines,
// angles, points, text, images, and spline-fitted polygons (ImageJ stores the spline's control
// points, not its outline).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/dic/roi.hpp"
#include "core/status.hpp"

namespace xcorr::imagej {

// What one ZIP entry may hold (ImageJ refuses ROI files over 5 MB), and how many entries.
inline constexpr std::size_t kMaxRoiBytes = std::size_t{16} << 20;
inline constexpr std::size_t kMaxZipEntries = 100000;

// One .roi file's bytes. `fallback_name` names the shape when the file holds no name (ImageJ
// then uses the file's name without ".roi").
Result<dic::NamedRoi> decode_roi(std::string_view bytes, const std::string& fallback_name);

// The bytes of a .roi file (version 228; polygons with sub-pixel vertices) that ImageJ fills as
// this project does. invalid_argument for a shape beyond what the format holds (ImageJ reads its
// 16-bit bounds as -5000..60535 px), one that covers no pixel, or a bad shape.
Result<std::string> encode_roi(const dic::NamedRoi& roi);

struct RoiFile {
  std::vector<dic::NamedRoi> rois;
  std::vector<std::string> skipped;  // ZIP entries that are not regions: "name: reason"
};

// A .roi or a ZIP of them, told apart by their first bytes; `file_name` names the file in
// messages and, without its extension, a lone .roi without a name. A ZIP's entries that are not
// regions are listed in `skipped`; a file without any region is refused, naming why.
Result<RoiFile> parse_roi_file(std::string_view bytes, const std::string& file_name);
Result<RoiFile> read_roi_file(const std::filesystem::path& path);

// The ROI Manager's format: a ZIP of one "<name>.roi" per shape (names made unique with "-2",
// "-3", ..., and '/' written as '_'), written atomically (core/io/atomic_write.hpp).
Status write_roi_zip(const std::filesystem::path& path, const std::vector<dic::NamedRoi>& rois);

}  // namespace xcorr::imagej
