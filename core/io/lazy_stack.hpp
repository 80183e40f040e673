// A stack opened without decoding its frames, for the viewer: a multi-page TIFF (its directory
// offsets are read at open; a page is decoded on demand with libtiff), a folder of images or a
// list of image files (one file decoded on demand), behind a bounded LRU frame cache. Opening costs
// one pass over the TIFF directories (the integrity check) regardless of the pixel data. Lazy TIFF
// decoding covers every grey page core/io/tiff_page.hpp reads (values as stored, strips or
// tiles); colour TIFFs decode whole through read_image_stack.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/io/channel.hpp"
#include "core/io/image_io.hpp"
#include "core/io/image_metadata.hpp"

namespace xcorr::io {

class LazyStack {
 public:
  static constexpr std::size_t kDefaultCacheBytes = std::size_t{512} << 20;
  // cache_bytes: decoded frames kept (float32), least recently used dropped first. plane: the
  // colour channel of colour images, and of a hyperstack (core/io/image_metadata.hpp: ImageJ
  // channels/slices, OME SizeC/SizeZ) the channel and z-plane whose time points are the frames;
  // a channel or z-plane the stack does not have is refused, naming how many it has.
  // reference_page: the frame (0-based, in file or folder order: a page of a plain stack, a time
  // point of a hyperstack) that is frame 0, the reference; the others follow in their order.
  // A reference other than 0, and a hyperstack, wait for the whole file to be indexed; a
  // reference the stack does not reach is refused with the count.
  static Result<std::unique_ptr<LazyStack>> open(const std::filesystem::path& path,
                                                 std::size_t cache_bytes = kDefaultCacheBytes,
                                                 PlaneSelection plane = {},
                                                 Index reference_page = 0);
  // A list of image files, in the given order (each file contributes all its pages).
  static Result<std::unique_ptr<LazyStack>> open_files(
      const std::vector<std::filesystem::path>& files, std::size_t cache_bytes = kDefaultCacheBytes,
      PlaneSelection plane = {});
  // Pages already in memory (the Python module: an array, not a file), in file order (a
  // hyperstack's pages in `metadata.layout`'s order), of pixel type `type`, with the metadata a
  // file would give; `name` stands for the file in messages. plane as for open. Nothing is read
  // from disk; the pages are shared, not copied.
  static Result<std::unique_ptr<LazyStack>> in_memory(
      const std::string& name, std::shared_ptr<const std::vector<Stack<float>>> pages,
      PixelType type, StackMetadata metadata, PlaneSelection plane = {});
  ~LazyStack();
  LazyStack(const LazyStack&) = delete;
  LazyStack& operator=(const LazyStack&) = delete;

  Index count() const;  // frames indexed so far
  bool indexing() const { return indexing_.load(); }
  // Waits until every TIFF page is indexed (at most `ms` milliseconds when ms >= 0); the status
  // names a damaged or inconsistent page. ok immediately for folders and file lists.
  Status wait_indexed(int ms = -1);
  // Folders and file lists (whose frames are read on demand): every file's size against the
  // first one's, from the headers; the status names the first file of another size and both
  // sizes. ok for TIFF stacks (their pages are checked while indexing).
  Status check_frame_sizes() const;
  Shape shape() const { return shape_; }
  PixelType pixel_type() const { return type_; }
  std::string source(Index k) const;  // of frame k: a file name, or "name[page p]"
  Index reference_page() const { return reference_page_; }
  Index page_of(Index frame) const;  // the page in file order that frame `frame` shows
  // Frame `frame`'s time point: its page in a plain stack, its t in a hyperstack.
  Index time_of(Index frame) const;
  // The file that holds frame `frame` (the stack's file, or the folder's or list's file).
  std::filesystem::path file_of(Index frame) const;
  // What the reference's file says of its scale and hyperstack layout
  // (core/io/image_metadata.hpp), read once at open.
  const StackMetadata& metadata() const { return metadata_; }

  // Frame k (1 x rows x cols), decoded or from the cache. Thread-safe.
  Result<std::shared_ptr<const Stack<float>>> frame(Index k);
  // Frames [first, first + n) in one stack (for runs).
  Result<Stack<float>> frames(Index first, Index n);
  // Pixels [y, y + rows) x [x, x + cols) of frame k (1 x rows x cols), not cached: a TIFF page
  // decodes only the strips or tiles they touch (DIC with an ROI reads its window this way);
  // other images are decoded whole and cut.
  Result<Stack<float>> region(Index k, Index y, Index x, Index rows, Index cols);

 private:
  LazyStack() = default;
  // Hyperstacks: the frames of the plane (see open); plain stacks: checks the plane is 0, 0.
  Status select_plane(const PlaneSelection& plane, const std::string& name);
  void read_reference_metadata();  // folders and lists: the reference file's scale
  static Result<std::unique_ptr<LazyStack>> open_pages(const std::filesystem::path& path,
                                                       std::size_t cache_bytes, Channel channel);
  Result<Stack<float>> decode(Index k);
  Result<Stack<float>> decode_file_page(Index k);  // folders and lists: page k of the stack
  void index_rest(void* tiff);                     // the indexer thread's body

  std::filesystem::path path_;
  bool folder_ = false;
  // in_memory: every page (file order); the cache is not used.
  std::shared_ptr<const std::vector<Stack<float>>> memory_;
  // Folders and lists: the file and the page in it of each page of the stack (a multi-page file
  // contributes all its pages, in order).
  std::vector<std::filesystem::path> files_;
  std::vector<Index> file_pages_;
  void add_file_pages(const std::filesystem::path& file);  // appends files_, file_pages_, sources_
  std::vector<std::uint64_t> offsets_;                     // TIFF: directory offset per page
  double decoded_bytes_ = 0;  // TIFF: the indexed pages' size as float32
  void* tiff_ = nullptr;      // TIFF*: kept open
  std::vector<std::string> sources_;
  Shape shape_;
  PixelType type_ = PixelType::u8;
  std::size_t cache_bytes_ = 0;
  Channel channel_ = Channel::luminance;
  Index reference_page_ = 0;  // frames 1..p are pages 0..p-1; frames after p are their pages
  // Hyperstacks: frame k is page frame_pages_[k], time point frame_times_[k], named
  // frame_names_[k] (empty for plain stacks, whose frames are their pages).
  std::vector<Index> frame_pages_, frame_times_;
  std::vector<std::string> frame_names_;
  StackMetadata metadata_;
  mutable std::mutex mutex_;
  std::condition_variable indexed_;
  std::atomic<bool> indexing_{false}, stop_{false};
  Status index_status_;
  std::thread indexer_;
  std::list<std::pair<Index, std::shared_ptr<const Stack<float>>>> cache_;  // most recent first
};

}  // namespace xcorr::io
