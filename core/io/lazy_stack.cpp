#include "core/io/lazy_stack.hpp"

#include <tiffio.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include "core/io/image_metadata.hpp"
#include "core/io/tiff_integrity.hpp"
#include "core/io/tiff_page.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

TIFF* as_tiff(void* p) {
  return static_cast<TIFF*>(p);
}

}  // namespace

LazyStack::~LazyStack() {
  stop_ = true;
  if (indexer_.joinable()) indexer_.join();
  if (tiff_ != nullptr) TIFFClose(as_tiff(tiff_));
}

Index LazyStack::count() const {
  std::lock_guard lock(mutex_);
  return static_cast<Index>(frame_pages_.empty() ? sources_.size() : frame_pages_.size());
}

Index LazyStack::page_of(Index frame) const {
  if (!frame_pages_.empty()) return frame_pages_.at(static_cast<std::size_t>(frame));
  if (frame == 0) return reference_page_;
  return frame <= reference_page_ ? frame - 1 : frame;
}

Index LazyStack::time_of(Index frame) const {
  return frame_times_.empty() ? page_of(frame) : frame_times_.at(static_cast<std::size_t>(frame));
}

fs::path LazyStack::file_of(Index frame) const {
  return files_.empty() ? path_ : files_.at(static_cast<std::size_t>(page_of(frame)));
}

std::string LazyStack::source(Index k) const {
  std::lock_guard lock(mutex_);
  if (!frame_names_.empty()) return frame_names_.at(static_cast<std::size_t>(k));
  return sources_.at(static_cast<std::size_t>(page_of(k)));
}

Status LazyStack::wait_indexed(int ms) {
  std::unique_lock lock(mutex_);
  const auto done = [this] { return !indexing_.load(); };
  if (ms < 0)
    indexed_.wait(lock, done);
  else
    indexed_.wait_for(lock, std::chrono::milliseconds(ms), done);
  if (indexing_.load())
    return Status{ErrorCode::invalid_argument, "the stack is still being indexed"};
  return index_status_;
}

void LazyStack::index_rest(void* handle) {
  TIFF* tif = as_tiff(handle);
  std::error_code ec;
  const auto size = static_cast<std::uint64_t>(fs::file_size(path_, ec));
  const std::string name = path_.filename().string();
  Status status;
  (void)take_tiff_error();
  while (!stop_.load() && !TIFFLastDirectory(tif)) {
    if (!TIFFReadDirectory(tif)) {  // a next directory is announced but cannot be read
      std::lock_guard lock(mutex_);
      status = {ErrorCode::io_error, "cannot decode '" + name +
                                         "': the file is corrupt or truncated (the directory of "
                                         "page " +
                                         std::to_string(offsets_.size()) +
                                         " is unreadable); pages 0-" +
                                         std::to_string(offsets_.size() - 1) + " are used"};
      break;
    }
    const auto layout = tiff_grey_layout(tif);
    std::lock_guard lock(mutex_);
    const auto page = offsets_.size();
    const std::string used = "; only pages 0-" + std::to_string(page - 1) + " are used";
    if (!layout.is_ok()) {
      status = {ErrorCode::unsupported, "'" + name + "' page " + std::to_string(page) + " holds " +
                                            layout.status().message() + used};
      break;
    }
    const Shape shape{static_cast<Index>(layout.value().height),
                      static_cast<Index>(layout.value().width)};
    if (layout.value().type != type_ || shape != shape_) {
      status = {ErrorCode::unsupported, "'" + name + "' page " + std::to_string(page) + " is " +
                                            image_size(shape) + " " +
                                            to_string(layout.value().type) + " but page 0 is " +
                                            image_size(shape_) + " " + to_string(type_) + used};
      break;
    }
    if (const std::string why = tiff_page_data_problem(tif, size, decoded_bytes_); !why.empty()) {
      status = {ErrorCode::io_error, "cannot decode '" + name +
                                         "': the file is corrupt or truncated (page " +
                                         std::to_string(page) + ": " + why + ")" + used};
      break;
    }
    if (const std::string e = take_tiff_error(); !e.empty()) {
      status = {ErrorCode::io_error, "cannot decode '" + name +
                                         "': the file is corrupt or "
                                         "truncated (page " +
                                         std::to_string(page) + ": " + e + "); pages 0-" +
                                         std::to_string(page - 1) + " are used"};
      break;
    }
    offsets_.push_back(TIFFCurrentDirOffset(tif));
    sources_.push_back(name + "[page " + std::to_string(page) + "]");
  }
  if (status.is_ok()) {  // a chain cut short (the next-directory field itself lost) shows here
    if (const std::string e = take_tiff_error(); !e.empty()) {
      std::lock_guard lock(mutex_);
      status = {ErrorCode::io_error, "cannot decode '" + name +
                                         "': the file is corrupt or "
                                         "truncated (after page " +
                                         std::to_string(offsets_.size() - 1) + ": " + e + ")"};
    }
  }
  TIFFClose(tif);
  std::lock_guard lock(mutex_);
  index_status_ = status;
  indexing_ = false;
  indexed_.notify_all();
}

namespace {

std::string count_of(long n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

Status LazyStack::select_plane(const PlaneSelection& plane, const std::string& name) {
  // The file's metadata (unreadable metadata: a plain stack without a scale); a folder's or a
  // list's comes from its reference file once that is chosen (open, open_files).
  if (!folder_ && !memory_) {
    auto meta = read_stack_metadata(path_);
    if (meta.is_ok()) metadata_ = meta.value();
  }
  const HyperLayout layout = metadata_.layout;
  const auto has = [&](const char* what, long n, long asked) {
    return Status{ErrorCode::invalid_argument, "'" + name + "' has " + count_of(n, what) +
                                                   " (numbered from 0): no " + what + " " +
                                                   std::to_string(asked)};
  };
  if (!metadata_.problem.empty())
    return Status{ErrorCode::invalid_argument,
                  "'" + name + "': " + metadata_.problem + ": the file is refused"};
  // A file whose metadata gives its dimensions must hold exactly those pages (damaged files,
  // whose later pages are lost, keep the pages they have: the index status names the damage).
  if (!folder_ && (layout.frames > 0 || !layout.plain()) && wait_indexed().is_ok()) {
    const long pages = static_cast<long>(sources_.size());
    const long planes = layout.channels * layout.slices;
    if (layout.frames > 0 ? planes * layout.frames != pages : pages % planes != 0) {
      const std::string times =
          layout.frames > 0
              ? " x " + count_of(layout.frames, "time point") + " = " +
                    std::to_string(planes * layout.frames) + " pages"
              : ": a whole number of time points of " + std::to_string(planes) + " pages";
      return Status{ErrorCode::invalid_argument,
                    "'" + name + "' has " + count_of(pages, "page") + " but its " +
                        metadata_.source() + " says " + count_of(layout.channels, "channel") +
                        " x " + count_of(layout.slices, "z-plane") + times +
                        ": the metadata does not fit the pages, so the file is refused"};
    }
  }
  if (plane.all_pages) return Status::ok();
  if (plane.channel >= layout.channels) return has("channel", layout.channels, plane.channel);
  if (plane.z >= layout.slices) return has("z-plane", layout.slices, plane.z);
  if (layout.plain()) return Status::ok();
  const Status indexed = wait_indexed();
  const long pages = static_cast<long>(sources_.size());
  const long times = layout.frames > 0 ? layout.frames : pages / (layout.channels * layout.slices);
  for (long t = 0; t < times; ++t) {
    const long page = layout.page(plane.channel, plane.z, t);
    if (page >= pages) break;  // pages lost to damage (the index status says which)
    frame_pages_.push_back(page);
    frame_times_.push_back(t);
    frame_names_.push_back(path_.filename().string() + "[t " + std::to_string(t) + ", c " +
                           std::to_string(plane.channel) + ", z " + std::to_string(plane.z) +
                           ": page " + std::to_string(page) + "]");
  }
  if (frame_pages_.empty()) {
    return indexed.is_ok()
               ? Status{ErrorCode::invalid_argument, "'" + name + "' holds no page of channel " +
                                                         std::to_string(plane.channel) +
                                                         ", z-plane " + std::to_string(plane.z)}
               : indexed;
  }
  return Status::ok();
}

Result<std::unique_ptr<LazyStack>> LazyStack::open(const fs::path& path, std::size_t cache_bytes,
                                                   PlaneSelection plane, Index reference_page) {
  auto opened = open_pages(path, cache_bytes, plane.colour);
  if (!opened.is_ok()) return opened;
  std::unique_ptr<LazyStack> s = std::move(opened).value();
  XCORR_RETURN_IF_ERROR(s->select_plane(plane, path.filename().string()));
  if (reference_page == 0) {
    s->read_reference_metadata();
    return s;
  }
  const Status indexed = s->wait_indexed();
  if (reference_page < 0 || reference_page >= s->count()) {
    const std::string what = s->frame_pages_.empty() ? "page" : "time point";
    const std::string n = count_of(static_cast<long>(s->count()), what.c_str());
    if (!indexed.is_ok()) {
      return Status{indexed.code(), "no reference page " + std::to_string(reference_page) + ": " +
                                        indexed.message()};
    }
    return Status{ErrorCode::invalid_argument,
                  "no reference page " + std::to_string(reference_page) + ": '" +
                      path.filename().string() + "' holds " + n + " (numbered from 0)"};
  }
  s->reference_page_ = reference_page;
  if (!s->frame_pages_.empty()) {  // the hyperstack's frames, the reference first
    const auto r = static_cast<std::ptrdiff_t>(reference_page);
    for (auto* v : {&s->frame_pages_, &s->frame_times_})
      std::rotate(v->begin(), v->begin() + r, v->begin() + r + 1);
    std::rotate(s->frame_names_.begin(), s->frame_names_.begin() + r,
                s->frame_names_.begin() + r + 1);
  }
  s->read_reference_metadata();
  return s;
}

Result<std::unique_ptr<LazyStack>> LazyStack::in_memory(
    const std::string& name, std::shared_ptr<const std::vector<Stack<float>>> pages, PixelType type,
    StackMetadata metadata, PlaneSelection plane) {
  if (!pages || pages->empty())
    return Status{ErrorCode::invalid_argument, "'" + name + "' holds no page"};
  std::unique_ptr<LazyStack> s(new LazyStack);
  s->path_ = name;
  s->type_ = type;
  s->shape_ = pages->front().shape();
  for (std::size_t p = 0; p < pages->size(); ++p) {
    const Stack<float>& page = (*pages)[p];
    if (page.count() != 1 || page.shape() != s->shape_)
      return Status{ErrorCode::size_mismatch, "'" + name + "' page " + std::to_string(p) +
                                                  " is not one " + image_size(s->shape_) + " page"};
    s->sources_.push_back(pages->size() == 1 ? name : name + "[page " + std::to_string(p) + "]");
  }
  s->memory_ = std::move(pages);
  s->metadata_ = std::move(metadata);
  XCORR_RETURN_IF_ERROR(s->select_plane(plane, name));
  return s;
}

void LazyStack::read_reference_metadata() {
  if (!folder_) return;  // a TIFF's was read with its pages
  auto meta = read_stack_metadata(file_of(0));
  if (meta.is_ok()) metadata_.scale = meta.value().scale;  // the pages of files are plain
}

Result<std::unique_ptr<LazyStack>> LazyStack::open_pages(const fs::path& path,
                                                         std::size_t cache_bytes, Channel channel) {
  std::unique_ptr<LazyStack> s(new LazyStack);
  s->path_ = path;
  s->cache_bytes_ = cache_bytes;
  s->channel_ = channel;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    auto listed = image_names_in(path);
    if (!listed.is_ok()) return listed.status();
    const std::vector<std::string>& names = listed.value();
    s->folder_ = true;
    for (const auto& n : names) s->add_file_pages(path / n);
    auto first = read_image_stack(s->files_[0], channel);  // size and type from the first image
    if (!first.is_ok()) return first.status();
    s->shape_ = first.value().frames.shape();
    s->type_ = first.value().pixel_type;
    return s;
  }
  if (!fs::exists(path, ec))
    return Status{ErrorCode::not_found, "'" + path.string() + "' does not exist"};
  bool lazy = is_tiff_file(path);
  if (lazy) {
    auto opened = open_tiff(path);
    if (!opened.is_ok()) return opened.status();
    TIFF* tif = opened.value();
    s->tiff_ = tif;
    const auto layout = tiff_grey_layout(tif);
    lazy = layout.is_ok();  // colour and unsupported pages: read_image_stack says what they hold
    if (lazy) {
      s->type_ = layout.value().type;
      const auto size = static_cast<std::uint64_t>(fs::file_size(path, ec));
      if (const std::string why = tiff_page_data_problem(tif, size, s->decoded_bytes_);
          !why.empty()) {
        return Status{ErrorCode::io_error,
                      "cannot decode '" + path.string() +
                          "': the file is corrupt or truncated (page 0: " + why + ")"};
      }
      s->shape_ = {static_cast<Index>(layout.value().height),
                   static_cast<Index>(layout.value().width)};
      s->offsets_.push_back(TIFFCurrentDirOffset(tif));
      // The other pages are indexed in the background with a handle of their own.
      TIFF* indexer = TIFFOpen(path.c_str(), "rm");
      const bool more = indexer != nullptr && !TIFFLastDirectory(indexer);
      s->sources_.push_back(more ? path.filename().string() + "[page 0]"
                                 : path.filename().string());
      if (more) {
        s->indexing_ = true;
        LazyStack* self = s.get();
        s->indexer_ = std::thread([self, indexer] { self->index_rest(indexer); });
      } else if (indexer != nullptr) {
        TIFFClose(indexer);
      }
    }
  }
  if (!lazy) {  // any other file: decoded once, kept whole (every frame in the cache)
    if (s->tiff_ != nullptr) TIFFClose(as_tiff(s->tiff_));
    s->tiff_ = nullptr;
    s->offsets_.clear();
    auto all = read_image_stack(path, channel);
    if (!all.is_ok()) return all.status();
    ImageStack& st = all.value();
    s->sources_ = st.frame_sources;
    s->shape_ = st.frames.shape();
    s->type_ = st.pixel_type;
    s->cache_bytes_ = std::numeric_limits<std::size_t>::max();
    for (Index k = st.frames.count() - 1; k >= 0; --k) {
      auto f = std::make_shared<Stack<float>>(s->shape_.rows, s->shape_.cols, 1);
      std::copy(st.frames[k].data, st.frames[k].data + s->shape_.area(), f->data());
      s->cache_.emplace_back(k, std::move(f));
    }
  }
  return s;
}

Result<std::unique_ptr<LazyStack>> LazyStack::open_files(const std::vector<fs::path>& files,
                                                         std::size_t cache_bytes,
                                                         PlaneSelection plane) {
  const Channel channel = plane.colour;
  if (files.empty()) return Status{ErrorCode::invalid_argument, "no files given: empty stack"};
  std::unique_ptr<LazyStack> s(new LazyStack);
  s->cache_bytes_ = cache_bytes;
  s->channel_ = channel;
  s->folder_ = true;
  for (const auto& f : files) {
    std::error_code ec;
    if (!fs::is_regular_file(f, ec))
      return Status{ErrorCode::not_found, "'" + f.string() + "' does not exist or is not a file"};
    s->add_file_pages(f);
  }
  auto first = read_image_stack(files[0], channel);
  if (!first.is_ok()) return first.status();
  s->shape_ = first.value().frames.shape();
  s->type_ = first.value().pixel_type;
  XCORR_RETURN_IF_ERROR(s->select_plane(plane, "a list of files"));
  s->read_reference_metadata();
  return s;
}

void LazyStack::add_file_pages(const fs::path& file) {
  long pages = 1;
  // The headers only: each page is decoded when it is used. A file that cannot be read is one
  // frame here, which fails alone (by name) when it is decoded.
  if (is_tiff_file(file)) {
    if (auto opened = open_tiff(file); opened.is_ok()) {
      pages = std::max(1L, static_cast<long>(TIFFNumberOfDirectories(opened.value())));
      TIFFClose(opened.value());
    }
  }
  const std::string name = file.filename().string();
  for (long p = 0; p < pages; ++p) {
    files_.push_back(file);
    file_pages_.push_back(p);
    sources_.push_back(pages == 1 ? name : name + "[page " + std::to_string(p) + "]");
  }
}

Status LazyStack::check_frame_sizes() const {
  for (std::size_t k = 1; k < files_.size(); ++k) {
    if (files_[k] == files_[k - 1]) continue;  // the pages of one file: checked when decoded
    auto shape = image_shape(files_[k]);
    if (!shape.is_ok()) return shape.status();
    if (shape.value() != shape_) {
      return {ErrorCode::size_mismatch, "frame '" + sources_[k] + "' is " +
                                            image_size(shape.value()) + " but '" + sources_[0] +
                                            "' is " + image_size(shape_) +
                                            ": all frames of a stack must have one size"};
    }
  }
  return Status::ok();
}

Result<Stack<float>> LazyStack::decode(Index k) {
  if (folder_) return decode_file_page(k);
  TIFF* tif = as_tiff(tiff_);
  if (!TIFFSetSubDirectory(tif, offsets_[static_cast<std::size_t>(k)]))
    return Status{ErrorCode::io_error, "cannot read " + sources_[static_cast<std::size_t>(k)]};
  const std::string& source = sources_[static_cast<std::size_t>(k)];
  const auto layout = tiff_grey_layout(tif);
  if (!layout.is_ok())
    return Status{layout.status().code(), source + " holds " + layout.status().message()};
  Stack<float> f(shape_.rows, shape_.cols, 1);
  XCORR_RETURN_IF_ERROR(decode_tiff_page(tif, layout.value(), f.data(), source));
  return f;
}

Result<Stack<float>> LazyStack::decode_file_page(Index k) {
  const auto i = static_cast<std::size_t>(k);
  const fs::path& file = files_[i];
  const Index page = file_pages_[i];
  const std::string& source = sources_[i];
  const auto wrong_size = [&](Shape shape) {
    return Status{ErrorCode::size_mismatch,
                  "frame '" + source + "' is " + image_size(shape) + " but '" + sources_[0] +
                      "' is " + image_size(shape_) + ": all frames of a stack must have one size"};
  };
  const bool several = page > 0 || (i + 1 < files_.size() && files_[i + 1] == file);
  if (several && is_tiff_file(file)) {  // one page of a multi-page TIFF, not the whole file
    auto opened = open_tiff(file);
    if (!opened.is_ok()) return opened.status();
    TIFF* tif = opened.value();
    Status s;
    Stack<float> f(shape_.rows, shape_.cols, 1);
    if (!TIFFSetDirectory(tif, static_cast<tdir_t>(page))) {
      s = {ErrorCode::io_error, "cannot read " + source};
    } else if (auto layout = tiff_grey_layout(tif); layout.is_ok()) {
      const Shape shape{static_cast<Index>(layout.value().height),
                        static_cast<Index>(layout.value().width)};
      s = shape != shape_ ? wrong_size(shape)
                          : decode_tiff_page(tif, layout.value(), f.data(), source);
      TIFFClose(tif);
      if (!s.is_ok()) return s;
      return f;
    }
    TIFFClose(tif);
    if (!s.is_ok()) return s;
    // colour pages: decoded whole below, as read_image_stack decodes them
  }
  auto all = read_image_stack(file, channel_);
  if (!all.is_ok()) return all.status();
  if (page >= all.value().frames.count())
    return Status{ErrorCode::io_error, "cannot read " + source + ": the file has fewer pages now"};
  if (all.value().frames.shape() != shape_) return wrong_size(all.value().frames.shape());
  Stack<float> f(shape_.rows, shape_.cols, 1);
  const MatrixView<const float> m = std::as_const(all.value().frames)[page];
  std::copy(m.data, m.data + shape_.area(), f.data());
  return f;
}

Result<std::shared_ptr<const Stack<float>>> LazyStack::frame(Index frame) {
  std::lock_guard lock(mutex_);
  const std::size_t frames = frame_pages_.empty() ? sources_.size() : frame_pages_.size();
  if (frame < 0 || frame >= static_cast<Index>(frames))
    return Status{ErrorCode::invalid_argument, "frame " + std::to_string(frame) + " out of range"};
  const Index k = page_of(frame);  // the cache holds pages
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->first == k) {
      cache_.splice(cache_.begin(), cache_, it);
      return cache_.front().second;
    }
  }
  if (memory_) {  // shared with the caller: an aliasing pointer, nothing copied or cached
    return std::shared_ptr<const Stack<float>>(memory_, &(*memory_)[static_cast<std::size_t>(k)]);
  }
  auto decoded = decode(k);
  if (!decoded.is_ok()) return decoded.status();
  auto f = std::make_shared<const Stack<float>>(std::move(decoded).value());
  cache_.emplace_front(k, f);
  const std::size_t frame_bytes = static_cast<std::size_t>(shape_.area()) * sizeof(float);
  while (cache_.size() > 1 && cache_.size() * frame_bytes > cache_bytes_) cache_.pop_back();
  return f;
}

Result<Stack<float>> LazyStack::region(Index frame_index, Index y, Index x, Index rows,
                                       Index cols) {
  if (frame_index < 0 || frame_index >= count())
    return Status{ErrorCode::invalid_argument,
                  "frame " + std::to_string(frame_index) + " out of range"};
  if (y < 0 || x < 0 || rows < 1 || cols < 1 || y + rows > shape_.rows || x + cols > shape_.cols)
    return Status{ErrorCode::invalid_argument,
                  "a region outside the " + image_size(shape_) + " frame"};
  Stack<float> out(rows, cols, 1);
  if (tiff_ == nullptr) {  // folders, file lists, images decoded whole
    auto f = frame(frame_index);
    if (!f.is_ok()) return f.status();
    for (Index r = 0; r < rows; ++r)
      std::copy_n((*f.value())[0].row(y + r) + x, cols, out[0].row(r));
    return out;
  }
  std::lock_guard lock(mutex_);
  const Index k = page_of(frame_index);
  TIFF* tif = as_tiff(tiff_);
  const std::string& source = sources_[static_cast<std::size_t>(k)];
  if (!TIFFSetSubDirectory(tif, offsets_[static_cast<std::size_t>(k)]))
    return Status{ErrorCode::io_error, "cannot read " + source};
  const auto layout = tiff_grey_layout(tif);
  if (!layout.is_ok())
    return Status{layout.status().code(), source + " holds " + layout.status().message()};
  const PixelRect rect{static_cast<std::uint32_t>(y), static_cast<std::uint32_t>(x),
                       static_cast<std::uint32_t>(rows), static_cast<std::uint32_t>(cols)};
  XCORR_RETURN_IF_ERROR(decode_tiff_region(tif, layout.value(), rect, out.data(), source));
  return out;
}

Result<Stack<float>> LazyStack::frames(Index first, Index n) {
  if (indexing_.load()) (void)wait_indexed();
  Stack<float> out(shape_.rows, shape_.cols, n);
  for (Index k = 0; k < n; ++k) {
    auto f = frame(first + k);
    if (!f.is_ok()) return f.status();
    std::copy(f.value()->data(), f.value()->data() + shape_.area(), out[k].data);
  }
  return out;
}

}  // namespace xcorr::io
