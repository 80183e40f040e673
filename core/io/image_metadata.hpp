// What an image file's metadata says about its physical scale (first page): OME-TIFF (OME-XML in
// the first ImageDescription, parsed with libxml2: Pixels' PhysicalSizeX/Y and their units,
// TimeIncrement or the planes' DeltaT), ImageJ TIFF (ImageDescription `unit=`, `finterval=`,
// `tunit=`; XResolution/YResolution as pixels per unit), and plain TIFF resolution tags
// (ResolutionUnit inch or cm; 72 pixels per inch, the display default of many writers, is not a
// scale). Other files, and TIFFs without these, give an empty scale. Metadata that cannot be read
// (malformed XML, a zero resolution) gives no scale rather than a wrong one.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/scale.hpp"
#include "core/status.hpp"

namespace xcorr::io {

// How a hyperstack's pages hold channels (C), z-planes (Z) and time points (T): page
// c, z, t is at the position the order gives (its first letter varies fastest). ImageJ
// hyperstacks are CZT; OME-TIFF follows DimensionOrder. A plain stack is 1 x 1 x pages.
struct HyperLayout {
  long channels = 1, slices = 1, frames = 0;  // frames 0: as many as there are pages
  std::string order = "CZT";
  bool plain() const { return channels == 1 && slices == 1; }
  long page(long c, long z, long t) const;
  long time_of_page(long page) const;  // the inverse's t
};

struct StackMetadata {
  ImageScale scale;
  HyperLayout layout;
  bool ome = false;     // the first page holds OME-XML
  std::string problem;  // layout metadata that cannot be right (named; the file is refused)
  std::vector<std::string> channel_names;  // OME-XML Channel Name attributes, in order (or none)
  double spacing_z = 0;  // z step in scale.unit (OME PhysicalSizeZ, ImageJ spacing); 0: unknown
  const char* source() const { return ome ? "OME-XML" : "ImageJ description"; }
};

// The file's scale and hyperstack layout (a plain layout and no scale for other files).
Result<StackMetadata> read_stack_metadata(const std::filesystem::path& file);
// Whether the file (a folder: its first image) holds this channel and z-plane (0, 0 always).
bool stack_has_plane(const std::filesystem::path& file, long channel, long z);
Result<ImageScale> read_image_scale(const std::filesystem::path& file);  // its scale

// The parsers behind it, from the description text (and the resolution tags, pixels per unit;
// 0 when absent).
StackMetadata metadata_from_ome_xml(std::string_view xml);
StackMetadata metadata_from_imagej(std::string_view description, double x_resolution,
                                   double y_resolution);
inline ImageScale scale_from_ome_xml(std::string_view xml) {
  return metadata_from_ome_xml(xml).scale;
}
inline ImageScale scale_from_imagej(std::string_view description, double x_resolution,
                                    double y_resolution) {
  return metadata_from_imagej(description, x_resolution, y_resolution).scale;
}
// ResolutionUnit: 1 none, 2 inch, 3 centimetre.
ImageScale scale_from_resolution(int resolution_unit, double x_resolution, double y_resolution);

}  // namespace xcorr::io
