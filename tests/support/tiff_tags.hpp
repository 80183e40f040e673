// Metadata written into an existing TIFF's first page, as microscopy software leaves it: an
// ImageDescription and, for ImageJ descriptions, the resolution in pixels per unit (libtiff, in
// place; the rewritten directory moves to the end of the file). Tests that use it link TIFF.
#pragma once

#include <tiffio.h>

#include <string>

namespace xcorr::testing {

// true when written. pixels_per_unit 0: no resolution tags.
inline bool set_tiff_description(const std::string& path, const char* description,
                                 float pixels_per_unit = 0) {
  TIFF* tif = TIFFOpen(path.c_str(), "r+");
  if (tif == nullptr) return false;
  TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, description);
  if (pixels_per_unit > 0) {
    TIFFSetField(tif, TIFFTAG_XRESOLUTION, pixels_per_unit);
    TIFFSetField(tif, TIFFTAG_YRESOLUTION, pixels_per_unit);
    TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, RESUNIT_NONE);
  }
  const bool ok = TIFFRewriteDirectory(tif) == 1;
  TIFFClose(tif);
  return ok;
}

}  // namespace xcorr::testing
