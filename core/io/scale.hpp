// The physical scale of a stack: pixel size with its length unit and the time between frames,
// each with where it came from (the file's metadata or the user). Lengths are kept in the unit
// they were given in (normalised to an ASCII name: nm, um, mm, cm, m); times in seconds.
// Parsing of the user's text ("0.65um", "0.65x0.7 um", "120nm", "2s", "500ms", "1.5min") and
// the rule that user values override the file's live here; reading the file's metadata is
// core/io/image_metadata.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace xcorr::io {

struct ImageScale {
  double pixel_x = 0, pixel_y = 0;  // length units per pixel along x and y; 0: not known
  std::string unit;                 // "nm", "um", "mm", "cm" or "m"; empty: not known
  double frame_interval_s = 0;      // seconds between frames; 0: not known
  std::string length_source;        // e.g. "OME-XML", "ImageJ description", "user"
  std::string time_source;

  bool has_length() const { return pixel_x > 0 && pixel_y > 0 && !unit.empty(); }
  bool has_time() const { return frame_interval_s > 0; }
  // px -> unit along x and y.
  double to_unit_x(double px) const { return px * pixel_x; }
  double to_unit_y(double px) const { return px * pixel_y; }
};

// The ASCII name of a length unit: "um" for micron(s), micrometre, µm (micro sign or Greek mu)
// and ImageJ's "\u00B5m"; nm, mm, cm, m likewise; "" for anything else (pixel, inch, Å).
std::string length_unit(std::string_view text);
// Seconds per unit: s, sec, second(s), ms, us/µs, min, h/hour(s); 0 if unknown.
double seconds_per(std::string_view unit);

// A pixel size as the user writes it: "<size><unit>" or "<x>x<y><unit>" (spaces allowed),
// e.g. "0.65um", "0.65 x 0.7 um", "120nm".
Result<ImageScale> parse_pixel_size(std::string_view text);
// A duration: "<number><unit>", e.g. "2s", "500 ms", "1.5min"; returns seconds.
Result<double> parse_duration(std::string_view text);

// The scale used: `from_file`, with the user's values (text as above) in their place when given.
// "" keeps the file's value; "none" drops it (results in px and frames only).
Result<ImageScale> apply_user_scale(ImageScale from_file, const std::string& pixel_size,
                                    const std::string& frame_interval);

// Frame `frame`'s time after the reference (frame 0) in seconds: steps[frame - 1] frame
// intervals (a stack's page order; negative for pages before a reference chosen later), or
// `frame` intervals when steps does not cover it. 0 when the interval is not known.
double frame_time_s(const ImageScale& s, const std::vector<double>& steps, long frame);

// "pixel 0.65 x 0.65 um (OME-XML); frame interval 2 s (user)"; "none" parts say "not known".
std::string describe(const ImageScale& s);

}  // namespace xcorr::io
