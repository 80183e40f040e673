// JPEG through libjpeg(-turbo) (core/io/codecs.hpp): 8-bit grey or YCbCr/RGB files as grey or
// R, G, B; CMYK files are refused by name. libjpeg reports errors through error_exit, which
// longjmps here: the functions that call libjpeg keep only plain locals, and what outlives an
// error lives in a heap object made before setjmp.
// clang-format off
#include <cstdio>  // jpeglib.h needs FILE and size_t first
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <csetjmp>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/io/codecs.hpp"

namespace xcorr::io {
namespace {

// libjpeg's error manager, with where to jump and its message: error_exit gets the manager's
// address, which is this struct's (standard layout, the manager first).
struct JpegErrors {
  jpeg_error_mgr mgr{};
  std::jmp_buf jump{};
  char why[JMSG_LENGTH_MAX] = {};  // libjpeg's message when it failed
};
static_assert(std::is_standard_layout_v<JpegErrors>);

struct JpegState {
  JpegErrors errors;
  std::string refused;  // our own reason to stop
  SampleImage image;
  std::vector<unsigned char> bytes;  // the rows as libjpeg gives or takes them
  unsigned char* out = nullptr;      // encoding: libjpeg's buffer (malloc) and its size
  unsigned long out_size = 0;        // NOLINT(google-runtime-int): libjpeg's type
  ~JpegState() { std::free(out); }   // NOLINT(cppcoreguidelines-no-malloc): libjpeg's buffer
  JpegState() = default;
  JpegState(const JpegState&) = delete;
  JpegState& operator=(const JpegState&) = delete;
};

void on_error(j_common_ptr c) {
  auto* e = reinterpret_cast<JpegErrors*>(c->err);
  (*c->err->format_message)(c, e->why);
  std::longjmp(e->jump, 1);
}
// Warnings (level -1) that mean libjpeg made pixels up (data cut short or damaged) stop the
// decoding as errors do; other messages (benign warnings, traces) are not shown.
void on_message(j_common_ptr c, int level) {
  const int code = c->err->msg_code;
  if (level == -1 && (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER ||
                      code == JWRN_HUFF_BAD_CODE || code == JWRN_MUST_RESYNC)) {
    auto* e = reinterpret_cast<JpegErrors*>(c->err);
    (*c->err->format_message)(c, e->why);
    std::longjmp(e->jump, 1);
  }
}

std::string reason(const JpegState& s) {
  return s.refused.empty() ? std::string(s.errors.why) : s.refused;
}

bool decode(jpeg_decompress_struct& d, const std::string& bytes, bool luminance, JpegState& s) {
  if (setjmp(s.errors.jump)) return false;
  jpeg_mem_src(&d, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  jpeg_read_header(&d, TRUE);
  if (d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK) {
    s.refused = "a CMYK JPEG: this reader takes grey and RGB (YCbCr) JPEG files";
    return false;
  }
  if (std::uint64_t{d.image_width} * d.image_height > kMaxCodecPixels) {
    s.refused = "a page of " + std::to_string(d.image_width) + "x" +
                std::to_string(d.image_height) + " px, over this reader's 2^30 pixels";
    return false;
  }
  d.out_color_space = luminance || d.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&d);
  s.image.rows = d.output_height;
  s.image.cols = d.output_width;
  s.image.samples = d.output_components;
  const std::size_t row_bytes = std::size_t{d.output_width} * d.output_components;
  s.bytes.resize(row_bytes * d.output_height);
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = s.bytes.data() + row_bytes * d.output_scanline;
    jpeg_read_scanlines(&d, &row, 1);
  }
  jpeg_finish_decompress(&d);
  return true;
}

bool encode(jpeg_compress_struct& c, JpegState& s) {
  if (setjmp(s.errors.jump)) return false;
  jpeg_mem_dest(&c, &s.out, &s.out_size);
  c.image_width = static_cast<JDIMENSION>(s.image.cols);
  c.image_height = static_cast<JDIMENSION>(s.image.rows);
  c.input_components = 1;
  c.in_color_space = JCS_GRAYSCALE;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 95, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = s.bytes.data() + std::size_t{c.next_scanline} * c.image_width;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  return true;
}

}  // namespace

Result<SampleImage> decode_jpeg(const std::string& bytes, const std::string& name, bool luminance) {
  auto s = std::make_unique<JpegState>();
  jpeg_decompress_struct d{};
  d.err = jpeg_std_error(&s->errors.mgr);
  s->errors.mgr.error_exit = on_error;
  s->errors.mgr.emit_message = on_message;
  jpeg_create_decompress(&d);
  const bool ok = decode(d, bytes, luminance, *s);
  jpeg_destroy_decompress(&d);
  if (!ok) {
    return Status{
        s->refused.empty() ? ErrorCode::io_error : ErrorCode::unsupported,
        "cannot decode '" + name + "': " +
            (s->refused.empty() ? "corrupt or truncated (" + reason(*s) + ")" : s->refused)};
  }
  s->image.values.assign(s->bytes.begin(), s->bytes.end());
  return std::move(s->image);
}

Result<std::string> encode_jpeg(const SampleImage& grey) {
  auto s = std::make_unique<JpegState>();
  s->image.rows = grey.rows;
  s->image.cols = grey.cols;
  s->bytes.assign(grey.values.begin(), grey.values.end());  // 8-bit values
  jpeg_compress_struct c{};
  c.err = jpeg_std_error(&s->errors.mgr);
  s->errors.mgr.error_exit = on_error;
  s->errors.mgr.emit_message = on_message;
  jpeg_create_compress(&c);
  const bool ok = encode(c, *s);
  jpeg_destroy_compress(&c);
  if (!ok) return Status{ErrorCode::io_error, "cannot encode a JPEG: " + reason(*s)};
  return std::string(reinterpret_cast<const char*>(s->out), s->out_size);
}

}  // namespace xcorr::io
