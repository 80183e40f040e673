// How fast a large stack opens and scrolls in xcorr-studio (docs/perf/studio.md): writes (once) a
// FRAMES-page ROWS x COLS 16-bit TIFF with libtiff, then times LazyStack::open, the first decode
// of frames spread over the stack, and a cached access. Not a test.
//   xcorr_lazy_stack_bench FILE.tif [frames=1000] [size=2048]
#include <tiffio.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/io/lazy_stack.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool write_stack(const char* path, int frames, int size) {
  TIFF* tif = TIFFOpen(path, "w8");  // BigTIFF: the file exceeds 4 GiB
  if (tif == nullptr) return false;
  std::vector<uint16_t> row(static_cast<std::size_t>(size));
  for (int f = 0; f < frames; ++f) {
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, size);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, size);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 16);
    TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
    TIFFSetField(tif, TIFFTAG_PAGENUMBER, f, frames);
    for (int r = 0; r < size; ++r) {
      for (int c = 0; c < size; ++c)
        row[static_cast<std::size_t>(c)] =
            static_cast<uint16_t>((r * 7 + c * 13 + f * 31) & 0xffff);
      if (TIFFWriteScanline(tif, row.data(), static_cast<uint32_t>(r), 0) < 0) return false;
    }
    TIFFWriteDirectory(tif);
  }
  TIFFClose(tif);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.tif [frames] [size]\n", argv[0]);
    return 2;
  }
  const int frames = argc > 2 ? std::atoi(argv[2]) : 1000;
  const int size = argc > 3 ? std::atoi(argv[3]) : 2048;
  if (!std::filesystem::exists(argv[1])) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!write_stack(argv[1], frames, size)) return 1;
    std::printf("wrote %s (%d x %dx%d, 16-bit) in %.1f s\n", argv[1], frames, size, size,
                seconds_since(t0));
  }
  auto t0 = std::chrono::steady_clock::now();
  auto s = xcorr::io::LazyStack::open(argv[1]);
  const double open_s = seconds_since(t0);
  if (!s.is_ok()) {
    std::fprintf(stderr, "%s\n", s.status().message().c_str());
    return 1;
  }
  std::printf("open (first frame usable): %.3f s\n", open_s);
  t0 = std::chrono::steady_clock::now();
  const xcorr::Status indexed = s.value()->wait_indexed();
  std::printf(
      "every page indexed in the background after a further %.3f s: %ld frames of %ldx%ld %s\n",
      seconds_since(t0), static_cast<long>(s.value()->count()),
      static_cast<long>(s.value()->shape().rows), static_cast<long>(s.value()->shape().cols),
      indexed.message().c_str());
  const xcorr::Index n = s.value()->count();
  for (xcorr::Index k : {xcorr::Index{0}, n / 2, n - 1, n / 3}) {
    t0 = std::chrono::steady_clock::now();
    auto f = s.value()->frame(k);
    std::printf("frame %ld first decode: %.1f ms\n", static_cast<long>(k), 1e3 * seconds_since(t0));
    if (!f.is_ok()) return 1;
  }
  t0 = std::chrono::steady_clock::now();
  auto f = s.value()->frame(n / 2);
  std::printf("frame %ld cached: %.3f ms\n", static_cast<long>(n / 2), 1e3 * seconds_since(t0));
  return f.is_ok() ? 0 : 1;
}
