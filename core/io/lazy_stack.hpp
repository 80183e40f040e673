// A stack opened without decoding its frames, for the viewer: a multi-page TIFF (its directory
// offsets are read at open; a page is decoded on demand with libtiff), a folder of images or a
// list of image files (one file decoded on demand), behind a bounded LRU frame cache. Opening costs
// one pass over the TIFF directories (the integrity check) regardless of the pixel data. Lazy TIFF
// decoding covers grey 8/16-bit unsigned and 32-bit float pages in strips (what microscopes and our
// writer produce); other layouts decode through read_image_stack.
#pragma once

#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/io/image_io.hpp"

namespace xcorr::io {

class LazyStack {
 public:
  // cache_bytes: decoded frames kept (float32), least recently used dropped first.
  static Result<std::unique_ptr<LazyStack>> open(const std::filesystem::path& path,
                                                 std::size_t cache_bytes = std::size_t{512} << 20);
  // A list of image files, in the given order (each file's first page is one frame).
  static Result<std::unique_ptr<LazyStack>> open_files(
      const std::vector<std::filesystem::path>& files,
      std::size_t cache_bytes = std::size_t{512} << 20);
  ~LazyStack();
  LazyStack(const LazyStack&) = delete;
  LazyStack& operator=(const LazyStack&) = delete;

  Index count() const { return static_cast<Index>(sources_.size()); }
  Shape shape() const { return shape_; }
  PixelType pixel_type() const { return type_; }
  const std::string& source(Index k) const { return sources_.at(static_cast<std::size_t>(k)); }

  // Frame k (1 x rows x cols), decoded or from the cache. Thread-safe.
  Result<std::shared_ptr<const Stack<float>>> frame(Index k);
  // Frames [first, first + n) in one stack (for runs).
  Result<Stack<float>> frames(Index first, Index n);

 private:
  LazyStack() = default;
  Result<Stack<float>> decode(Index k);

  std::filesystem::path path_;
  bool folder_ = false;
  std::vector<std::filesystem::path> files_;  // folder: one per frame
  std::vector<std::uint64_t> offsets_;        // TIFF: directory offset per page
  void* tiff_ = nullptr;                      // TIFF*: kept open
  std::vector<std::string> sources_;
  Shape shape_;
  PixelType type_ = PixelType::u8;
  std::size_t cache_bytes_ = 0;
  std::mutex mutex_;
  std::list<std::pair<Index, std::shared_ptr<const Stack<float>>>> cache_;  // most recent first
};

}  // namespace xcorr::io
