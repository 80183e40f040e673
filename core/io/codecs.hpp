// PNG (libpng), JPEG (libjpeg-turbo) and BMP (stb_image's BMP reader alone, stb_image_write) for
// core/io/image_io_codecs.cpp: one page each, decoded from a file's bytes as stored and encoded
// from one grey page. Internal to core/io.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/io/channel.hpp"
#include "core/io/image_decoders.hpp"
#include "core/status.hpp"

namespace xcorr::io {

// The most pixels a PNG, JPEG or BMP page may have (a decompression bomb is refused before its
// pixels are allocated); OpenCV's limit, which read these files before.
inline constexpr std::uint64_t kMaxCodecPixels = std::uint64_t{1} << 30;

// An image as its file stores it: rows x cols pixels of `samples` values (1: grey; 3: R, G, B,
// any alpha dropped) of `bits` (8 or 16) each, interleaved, row-major.
struct SampleImage {
  Index rows = 0, cols = 0;
  int samples = 1;
  int bits = 8;
  std::vector<std::uint16_t> values;
};

// One grey page of `image` (values exact, type u8 or u16 by its bits): a grey image as it is; of
// a colour image the chosen channel, or its luminance 0.299 R + 0.587 G + 0.114 B in OpenCV's
// fixed-point weights and rounding, as the versions that read colour images through OpenCV gave
// it: (9798 R + 19235 G + 3735 B + 16384) >> 15, equal to OpenCV 4.6's cvtColor on every 8-bit
// colour and on 10^6 random 16-bit ones.
DecodedPage grey_page(const SampleImage& image, Channel channel);

// A file's `bytes` decoded; `name` names it in errors ("cannot decode '<name>': <why>", io_error;
// unsupported for a layout the decoder refuses, such as CMYK JPEG).
Result<SampleImage> decode_png(const std::string& bytes, const std::string& name);
// luminance: a colour JPEG's stored luminance Y (libjpeg's grey output) as one grey sample.
Result<SampleImage> decode_jpeg(const std::string& bytes, const std::string& name, bool luminance);
Result<SampleImage> decode_bmp(const std::string& bytes, const std::string& name);

// One grey page (samples 1; bits 8, or 16 for PNG) as the bytes of a file of that format: PNG
// deflated, JPEG of quality 95 (OpenCV's default), BMP of 24-bit pixels.
Result<std::string> encode_png(const SampleImage& grey);
Result<std::string> encode_jpeg(const SampleImage& grey);
Result<std::string> encode_bmp(const SampleImage& grey);

}  // namespace xcorr::io
