#include "ui/movie.hpp"

#include <gif_lib.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/io/atomic_write.hpp"

namespace xcorr::ui {
namespace {

std::string gif_error(int code) {
  const char* text = GifErrorString(code);
  return text != nullptr ? text : "GIF error " + std::to_string(code);
}

// One frame with its own colour map and the delay before the next.
Status put_frame(GifFileType* gif, const QImage& frame, int delay_cs) {
  const QImage rgb = frame.convertToFormat(QImage::Format_RGB888);
  const auto w = static_cast<unsigned>(rgb.width()), h = static_cast<unsigned>(rgb.height());
  std::vector<GifByteType> r(std::size_t{w} * h), g(r.size()), b(r.size()), index(r.size());
  for (unsigned y = 0; y < h; ++y) {
    const uchar* line = rgb.constScanLine(static_cast<int>(y));
    for (unsigned x = 0; x < w; ++x) {
      const std::size_t i = std::size_t{y} * w + x;
      r[i] = line[3 * x], g[i] = line[3 * x + 1], b[i] = line[3 * x + 2];
    }
  }
  int colours = 256;
  GifColorType palette[256] = {};
  if (GifQuantizeBuffer(w, h, &colours, r.data(), g.data(), b.data(), index.data(), palette) ==
      GIF_ERROR)
    return {ErrorCode::internal, "cannot reduce a movie frame to 256 colours"};
  ColorMapObject* map = GifMakeMapObject(256, palette);
  GraphicsControlBlock gcb{DISPOSAL_UNSPECIFIED, false, delay_cs, NO_TRANSPARENT_COLOR};
  GifByteType ext[4];
  const auto n = EGifGCBToExtension(&gcb, ext);
  int ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(n), ext);
  ok = ok == GIF_OK
           ? EGifPutImageDesc(gif, 0, 0, static_cast<int>(w), static_cast<int>(h), false, map)
           : ok;
  for (unsigned y = 0; y < h && ok == GIF_OK; ++y)
    ok = EGifPutLine(gif, index.data() + std::size_t{y} * w, static_cast<int>(w));
  GifFreeMapObject(map);
  return ok == GIF_OK ? Status::ok() : Status{ErrorCode::io_error, gif_error(gif->Error)};
}

}  // namespace

Status write_gif(const QString& path, const std::vector<QImage>& frames, double fps) {
  if (frames.empty()) return {ErrorCode::invalid_argument, "a movie needs at least one frame"};
  const QSize size = frames.front().size();
  if (size.isEmpty() ||
      std::any_of(frames.begin(), frames.end(), [&](const QImage& f) { return f.size() != size; }))
    return {ErrorCode::invalid_argument, "the movie's frames differ in size"};
  if (!(fps >= 1 && fps <= 100))
    return {ErrorCode::invalid_argument, "a movie's frame rate is 1-100 frames per second"};
  const int delay_cs = std::max(1, static_cast<int>(std::lround(100 / fps)));
  return io::write_atomically(path.toStdString(), [&](const std::filesystem::path& tmp) -> Status {
    int error = 0;
    GifFileType* gif = EGifOpenFileName(tmp.c_str(), false, &error);
    if (gif == nullptr) return {ErrorCode::io_error, gif_error(error)};
    EGifSetGifVersion(gif, true);  // GIF89a: delays and looping
    Status s = EGifPutScreenDesc(gif, size.width(), size.height(), 8, 0, nullptr) == GIF_OK
                   ? Status::ok()
                   : Status{ErrorCode::io_error, gif_error(gif->Error)};
    if (s.is_ok()) {  // NETSCAPE2.0: loop forever
      static const GifByteType app[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
      static const GifByteType loop[] = {1, 0, 0};
      if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
          EGifPutExtensionBlock(gif, sizeof app, app) != GIF_OK ||
          EGifPutExtensionBlock(gif, sizeof loop, loop) != GIF_OK ||
          EGifPutExtensionTrailer(gif) != GIF_OK)
        s = {ErrorCode::io_error, gif_error(gif->Error)};
    }
    for (std::size_t k = 0; k < frames.size() && s.is_ok(); ++k)
      s = put_frame(gif, frames[k], delay_cs);
    if (EGifCloseFile(gif, &error) != GIF_OK && s.is_ok())
      s = {ErrorCode::io_error, gif_error(error)};
    return s;
  });
}

}  // namespace xcorr::ui
