// PNG through libpng (core/io/codecs.hpp): palettes and grey of 1-4 bits expanded to 8 bits,
// transparency and alpha dropped, 16-bit samples in host order; no gamma or colour-space
// conversion (the stored values). libpng reports errors by longjmp: the functions that call it
// keep only plain locals, and what outlives an error lives in a heap object made before setjmp.
#include <png.h>

#include <bit>
#include <csetjmp>
#include <cstring>
#include <memory>

#include "core/io/codecs.hpp"

namespace xcorr::io {
namespace {

static_assert(std::endian::native == std::endian::little,
              "16-bit samples are swapped to host order");

struct PngState {
  const std::string* in = nullptr;  // decoding: the file's bytes, and where libpng is in them
  std::size_t at = 0;
  std::string out;      // encoding: the file's bytes so far
  std::string why;      // libpng's message when it failed
  std::string refused;  // our own reason to stop
  SampleImage image;
  std::vector<unsigned char> bytes;  // the rows as libpng gives or takes them
  std::vector<png_bytep> rows;
};

void on_error(png_structp png, png_const_charp message) {
  static_cast<PngState*>(png_get_error_ptr(png))->why = message;
  png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}  // warnings (bad CRC of ancillary chunks) unsaid

void read_bytes(png_structp png, png_bytep to, png_size_t n) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  if (n > s->in->size() - s->at) png_error(png, "the file ends inside the image");
  std::memcpy(to, s->in->data() + s->at, n);
  s->at += n;
}
void write_bytes(png_structp png, png_bytep from, png_size_t n) {
  static_cast<PngState*>(png_get_io_ptr(png))->out.append(reinterpret_cast<const char*>(from), n);
}
void flush(png_structp) {}

void point_rows(PngState& s, std::size_t row_bytes) {
  s.rows.resize(static_cast<std::size_t>(s.image.rows));
  for (std::size_t y = 0; y < s.rows.size(); ++y) s.rows[y] = s.bytes.data() + y * row_bytes;
}

// false: libpng failed (s.why) or the image is refused (s.refused).
bool decode(png_structp png, png_infop info, PngState& s) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_read_fn(png, &s, read_bytes);
  png_read_info(png, info);
  const png_uint_32 width = png_get_image_width(png, info);
  const png_uint_32 height = png_get_image_height(png, info);
  if (std::uint64_t{width} * height > kMaxCodecPixels) {
    s.refused = "a page of " + std::to_string(width) + "x" + std::to_string(height) +
                " px, over this reader's 2^30 pixels";
    return false;
  }
  png_set_expand(png);  // palette to RGB, grey of 1-4 bits to 8, transparency to alpha
  png_set_strip_alpha(png);
  if (png_get_bit_depth(png, info) == 16) png_set_swap(png);
  png_set_interlace_handling(png);  // Adam7 files: png_read_image reads every pass
  png_read_update_info(png, info);
  s.image.rows = height;
  s.image.cols = width;
  s.image.samples = png_get_channels(png, info);
  s.image.bits = png_get_bit_depth(png, info);
  const std::size_t row_bytes = png_get_rowbytes(png, info);
  s.bytes.resize(row_bytes * height);
  point_rows(s, row_bytes);
  png_read_image(png, s.rows.data());
  png_read_end(png, nullptr);
  return true;
}

bool encode(png_structp png, png_infop info, PngState& s) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, &s, write_bytes, flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(s.image.cols),
               static_cast<png_uint_32>(s.image.rows), s.image.bits, PNG_COLOR_TYPE_GRAY,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (s.image.bits == 16) png_set_swap(png);
  png_write_image(png, s.rows.data());
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

Result<SampleImage> decode_png(const std::string& bytes, const std::string& name) {
  auto s = std::make_unique<PngState>();
  s->in = &bytes;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s.get(), on_error, on_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return Status{ErrorCode::out_of_memory, "cannot decode '" + name + "': out of memory"};
  }
  const bool ok = decode(png, info, *s);
  png_destroy_read_struct(&png, &info, nullptr);
  if (!ok) {
    return Status{ErrorCode::io_error,
                  "cannot decode '" + name + "': " +
                      (s->refused.empty() ? "corrupt or truncated (" + s->why + ")" : s->refused)};
  }
  const bool wide = s->image.bits == 16;
  s->image.values.resize(static_cast<std::size_t>(s->image.rows * s->image.cols) *
                         static_cast<std::size_t>(s->image.samples));
  for (std::size_t i = 0; i < s->image.values.size(); ++i) {
    if (wide)
      std::memcpy(&s->image.values[i], s->bytes.data() + 2 * i, 2);
    else
      s->image.values[i] = s->bytes[i];
  }
  return std::move(s->image);
}

Result<std::string> encode_png(const SampleImage& grey) {
  auto s = std::make_unique<PngState>();
  s->image.rows = grey.rows;
  s->image.cols = grey.cols;
  s->image.bits = grey.bits;
  const std::size_t bytes_per = grey.bits == 16 ? 2 : 1;
  s->bytes.resize(grey.values.size() * bytes_per);
  for (std::size_t i = 0; i < grey.values.size(); ++i) {
    if (bytes_per == 2)
      std::memcpy(s->bytes.data() + 2 * i, &grey.values[i], 2);
    else
      s->bytes[i] = static_cast<unsigned char>(grey.values[i]);
  }
  point_rows(*s, static_cast<std::size_t>(grey.cols) * bytes_per);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, s.get(), on_error, on_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return Status{ErrorCode::out_of_memory, "cannot encode a PNG: out of memory"};
  }
  const bool ok = encode(png, info, *s);
  png_destroy_write_struct(&png, &info);
  if (!ok) return Status{ErrorCode::io_error, "cannot encode a PNG: " + s->why};
  return std::move(s->out);
}

}  // namespace xcorr::io
