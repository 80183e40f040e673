// A multi-page TIFF written one page at a time (libtiff): grey pages of 8 or 16 bits (values
// rounded and clamped) or 32-bit float, with an ImageDescription on the first page and the
// resolution tags of a known pixel size. BigTIFF when the pages will pass 3.5 GiB. Use inside
// io::write_atomically so that a failed or cancelled run leaves no partial file.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/io/image_io.hpp"
#include "core/io/image_metadata.hpp"
#include "core/io/scale.hpp"

namespace xcorr::io {

// An 8-bit RGB image (shape.rows x shape.cols x 3 values, row-major) as a one-page TIFF: a
// figure of the view. Not atomic by itself: write it inside write_atomically.
Status write_rgb_tiff(const std::filesystem::path& path, Shape shape,
                      const std::vector<std::uint8_t>& rgb);

// `s` as a multi-page TIFF of `type` without description or scale, written atomically
// (write_image_stack's TIFF in every build).
Status write_tiff_stack(const std::filesystem::path& path, StackView<const float> s,
                        PixelType type);

// The value a page of `type` stores for `v`: u8, u16 rounded to the nearest integer (ties to
// even) and clamped to the type's range, NaN (no data) as 0; f32 as it is.
inline float stored_value(PixelType type, float v) {
  if (type != PixelType::f32 && std::isnan(v)) return 0.0f;
  if (type == PixelType::u8) return std::clamp(std::nearbyint(v), 0.0f, 255.0f);
  if (type == PixelType::u16) return std::clamp(std::nearbyint(v), 0.0f, 65535.0f);
  return v;
}

class TiffWriter {
 public:
  // pages: how many will be written (chooses BigTIFF); description: "" for none.
  static Result<std::unique_ptr<TiffWriter>> create(const std::filesystem::path& path,
                                                    PixelType type, Shape shape, long pages,
                                                    const std::string& description,
                                                    const ImageScale& scale);
  ~TiffWriter();
  TiffWriter(const TiffWriter&) = delete;
  TiffWriter& operator=(const TiffWriter&) = delete;
  Status add_page(MatrixView<const float> page);
  // A page given a row at a time: row(r, out) fills out[0, cols) for r = 0 .. rows - 1 in order
  // (a large frame needs no page-sized buffer here).
  Status add_page_rows(const std::function<void(Index r, float* out)>& row);
  Status close();  // flushes; the status names a write error (e.g. a full disk)

 private:
  TiffWriter() = default;
  // A failed write: the system's reason (errno `error`, 0: none) and libtiff's message.
  Status write_error(int error, std::string message = "") const;
  void* tif_ = nullptr;
  std::filesystem::path path_;
  PixelType type_ = PixelType::u16;
  Shape shape_;
  std::string description_;
  ImageScale scale_;
  long written_ = 0;
};

// The description of a registered (or otherwise derived) stack of `frames` time points with the
// layout of `source`, in its flavour: OME-XML for OME-TIFF sources (DimensionOrder, SizeC/Z/T,
// channel names, PhysicalSizeZ), an ImageJ description otherwise (images, channels, slices,
// frames, hyperstack, spacing; for a plain time series only when a scale or an interval is
// known: "" when nothing is). The pages then follow the source's order with `frames` time points.
std::string derived_description(const StackMetadata& source, Shape shape, long frames,
                                PixelType type, const ImageScale& scale);

}  // namespace xcorr::io
