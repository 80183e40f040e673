// What an image file's metadata says about its physical scale (first page): OME-TIFF (OME-XML in
// the first ImageDescription, parsed with libxml2: Pixels' PhysicalSizeX/Y and their units,
// TimeIncrement or the planes' DeltaT), ImageJ TIFF (ImageDescription `unit=`, `finterval=`,
// `tunit=`; XResolution/YResolution as pixels per unit), and plain TIFF resolution tags
// (ResolutionUnit inch or cm; 72 pixels per inch, the display default of many writers, is not a
// scale). Other files, and TIFFs without these, give an empty scale. Metadata that cannot be read
// (malformed XML, a zero resolution) gives no scale rather than a wrong one.
#pragma once

#include <filesystem>
#include <string_view>

#include "core/io/scale.hpp"
#include "core/status.hpp"

namespace xcorr::io {

Result<ImageScale> read_image_scale(const std::filesystem::path& file);

// The parsers behind it, from the description text (and the resolution tags, pixels per unit;
// 0 when absent).
ImageScale scale_from_ome_xml(std::string_view xml);
ImageScale scale_from_imagej(std::string_view description, double x_resolution,
                             double y_resolution);
// ResolutionUnit: 1 none, 2 inch, 3 centimetre.
ImageScale scale_from_resolution(int resolution_unit, double x_resolution, double y_resolution);

}  // namespace xcorr::io
