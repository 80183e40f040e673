// libFuzzer target: the TIFF readers (read_image_stack, and LazyStack's page index and decoder).
// Besides crashes and sanitizer reports, the two readers must agree: when both read the file,
// they return the same frames, bit for bit (the differential check of docs/reliability.md), and a
// region of a frame (what DIC reads) equals those pixels of the whole frame.
#include <algorithm>
#include <cstring>

#include "core/io/image_io.hpp"
#include "core/io/lazy_stack.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xcorr;
  const auto path = fuzz::input_file(data, size, ".tif");
  const auto eager = io::read_image_stack(path);
  auto lazy = io::LazyStack::open(path, std::size_t{64} << 20);
  if (!lazy.is_ok()) return 0;
  const Status indexed = lazy.value()->wait_indexed();
  const Index n = lazy.value()->count();
  auto frames = lazy.value()->frames(0, n);
  if (!eager.is_ok() || !indexed.is_ok() || !frames.is_ok()) return 0;
  const Stack<float>& a = eager.value().frames;
  const Stack<float>& b = frames.value();
  if (a.count() != b.count() || a.shape() != b.shape() ||
      std::memcmp(a.data(), b.data(), a.values().size() * sizeof(float)) != 0 ||
      eager.value().pixel_type != lazy.value()->pixel_type())
    __builtin_trap();  // the readers disagree on a file both accept
  // A region (what DIC reads) equals the same pixels of the whole frame.
  const Index rows = std::max<Index>(1, a.rows() / 2), cols = std::max<Index>(1, a.cols() / 3);
  const Index y = a.rows() - rows, x = a.cols() / 3;
  for (Index k = 0; k < n; ++k) {
    auto region = lazy.value()->region(k, y, x, rows, cols);
    if (!region.is_ok()) continue;  // a page damaged in the region's strips: an error, fine
    for (Index r = 0; r < rows; ++r)
      if (std::memcmp(region.value()[0].row(r), a[k].row(y + r) + x, sizeof(float) * cols) != 0)
        __builtin_trap();
  }
  return 0;
}
