// BMP through stb_image (its BMP reader alone: the other decoders of stb_image are not compiled
// in) and stb_image_write (core/io/codecs.hpp). stb's headers are Debian's libstb-dev; their
// implementation is compiled here, once.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_BMP
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include <climits>
#include <memory>

#include "core/io/codecs.hpp"

namespace xcorr::io {
namespace {

struct StbFree {
  void operator()(unsigned char* p) const { stbi_image_free(p); }
};

void append(void* to, void* data, int size) {
  static_cast<std::string*>(to)->append(static_cast<const char*>(data),
                                        static_cast<std::size_t>(size));
}

// Why a BMP that stb_image would decode as uncompressed pixels is shorter than its header says
// ("" when it is not, or when stb_image refuses the file itself: RLE, JPEG or PNG inside, an
// unknown header). stb_image reads missing bytes as 0, so a short file whose header claims
// millions of pixels would be decoded from nothing, slowly (the codecs fuzz target found a
// 93-byte file that took 45 s). As stb_image reads them: the OS/2 header (12 bytes) has 16-bit
// sizes and no compression field; the others 32-bit sizes (a negative height: top-down rows) and
// a signed compression, where only 1, 2 and 4 and above are refused.
std::string short_file(const std::string& b) {
  const auto u = [&](std::size_t at, int bytes) {
    std::uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
      v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
    return v;
  };
  const auto ends_in_header = [&] {
    return "the file ends inside its header (" + std::to_string(b.size()) + " bytes)";
  };
  if (b.size() < 26) return ends_in_header();
  std::uint64_t width = 0, height = 0, bits = 0;
  if (u(14, 4) == 12) {
    width = u(18, 2), height = u(20, 2), bits = u(24, 2);
  } else {
    if (b.size() < 54) return ends_in_header();
    const auto compression = static_cast<std::int32_t>(u(30, 4));
    if (compression == 1 || compression == 2 || compression >= 4) return "";
    width = static_cast<std::int32_t>(u(18, 4)) < 0 ? 0 : u(18, 4);
    const auto h = static_cast<std::int32_t>(u(22, 4));
    height =
        h < 0 ? std::uint64_t{0} - static_cast<std::int64_t>(h) : static_cast<std::uint64_t>(h);
    bits = u(28, 2);
  }
  const std::uint64_t need = std::uint64_t{u(10, 4)} + (width * bits + 31) / 32 * 4 * height;
  if (b.size() >= need) return "";
  return "corrupt or truncated (" + std::to_string(b.size()) + " bytes where its header needs " +
         std::to_string(need) + ")";
}

}  // namespace

Result<SampleImage> decode_bmp(const std::string& bytes, const std::string& name) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    return Status{ErrorCode::unsupported, "cannot decode '" + name + "': a BMP over 2 GiB"};
  if (const std::string why = short_file(bytes); !why.empty())
    return Status{ErrorCode::io_error, "cannot decode '" + name + "': " + why};
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  int width = 0, height = 0, samples = 0;
  if (stbi_info_from_memory(data, size, &width, &height, &samples) != 1)
    return Status{ErrorCode::io_error, "cannot decode '" + name + "': " + stbi_failure_reason()};
  if (static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) > kMaxCodecPixels)
    return Status{ErrorCode::io_error, "cannot decode '" + name + "': a page of " +
                                           std::to_string(width) + "x" + std::to_string(height) +
                                           " px, over this reader's 2^30 pixels"};
  const std::unique_ptr<unsigned char, StbFree> pixels(
      stbi_load_from_memory(data, size, &width, &height, &samples, 0));
  if (!pixels)
    return Status{ErrorCode::io_error, "cannot decode '" + name + "': " + stbi_failure_reason()};
  SampleImage image;
  image.rows = height;
  image.cols = width;
  image.samples = samples >= 3 ? 3 : 1;  // alpha dropped
  image.values.resize(static_cast<std::size_t>(image.rows * image.cols) *
                      static_cast<std::size_t>(image.samples));
  const auto stride = static_cast<std::size_t>(samples);
  const auto keep = static_cast<std::size_t>(image.samples);
  for (std::size_t p = 0; p < static_cast<std::size_t>(image.rows * image.cols); ++p)
    for (std::size_t c = 0; c < keep; ++c)
      image.values[p * keep + c] = pixels.get()[p * stride + c];
  return image;
}

Result<std::string> encode_bmp(const SampleImage& grey) {
  const std::vector<unsigned char> pixels(grey.values.begin(), grey.values.end());  // 8-bit
  std::string out;
  if (stbi_write_bmp_to_func(append, &out, static_cast<int>(grey.cols), static_cast<int>(grey.rows),
                             1, pixels.data()) == 0)
    return Status{ErrorCode::io_error, "cannot encode a BMP"};
  return out;
}

}  // namespace xcorr::io
