// libFuzzer target: the PNG (libpng), JPEG (libjpeg) and BMP (stb_image) readers behind
// read_image_stack (core/io/codecs.hpp), seeded with small files of each kind and layout (grey,
// 16-bit, RGB, RGBA, palette, interlaced, progressive). Besides crashes and sanitizer reports: a
// file that reads must give one finite page whose values fit its pixel type.
#include <cmath>

#include "core/io/image_io.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xcorr;
  const auto path = fuzz::input_file(data, size, ".img");
  for (const io::Channel c : {io::Channel::luminance, io::Channel::green}) {
    const auto r = io::read_image_stack(path, c);
    if (!r.is_ok()) continue;
    const float top = r.value().pixel_type == io::PixelType::u8 ? 255.0f : 65535.0f;
    if (r.value().frames.count() != 1 || r.value().pixel_type == io::PixelType::f32)
      __builtin_trap();
    for (const float v : r.value().frames.values())
      if (!(v >= 0.0f && v <= top) || v != std::floor(v)) __builtin_trap();
  }
  return 0;
}
