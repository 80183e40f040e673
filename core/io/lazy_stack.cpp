#include "core/io/lazy_stack.hpp"

#include <tiffio.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/io/natural_sort.hpp"
#include "core/io/tiff_integrity.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

TIFF* as_tiff(void* p) {
  return static_cast<TIFF*>(p);
}

// Whether the current directory is a layout the lazy decoder reads, and its pixel type.
bool lazy_layout(TIFF* tif, PixelType& type) {
  uint16_t bits = 0, samples = 1, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG;
  TIFFGetField(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
  if (TIFFIsTiled(tif) || samples != 1) return false;
  if (format == SAMPLEFORMAT_UINT && bits == 8)
    type = PixelType::u8;
  else if (format == SAMPLEFORMAT_UINT && bits == 16)
    type = PixelType::u16;
  else if (format == SAMPLEFORMAT_IEEEFP && bits == 32)
    type = PixelType::f32;
  else
    return false;
  return true;
}

// Whether every strip of the current directory lies inside a file of `size` bytes.
bool strips_inside(TIFF* tif, std::uint64_t size) {
  uint64_t* offsets = nullptr;
  uint64_t* counts = nullptr;
  if (!TIFFGetField(tif, TIFFTAG_STRIPOFFSETS, &offsets) ||
      !TIFFGetField(tif, TIFFTAG_STRIPBYTECOUNTS, &counts))
    return false;
  const uint32_t n = TIFFNumberOfStrips(tif);
  for (uint32_t i = 0; i < n; ++i) {
    if (offsets[i] + counts[i] > size) return false;
  }
  return true;
}

}  // namespace

LazyStack::~LazyStack() {
  stop_ = true;
  if (indexer_.joinable()) indexer_.join();
  if (tiff_ != nullptr) TIFFClose(as_tiff(tiff_));
}

Index LazyStack::count() const {
  std::lock_guard lock(mutex_);
  return static_cast<Index>(sources_.size());
}

std::string LazyStack::source(Index k) const {
  std::lock_guard lock(mutex_);
  return sources_.at(static_cast<std::size_t>(k));
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
    PixelType t;
    uint32_t w = 0, h = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    std::lock_guard lock(mutex_);
    const auto page = offsets_.size();
    if (!lazy_layout(tif, t) || t != type_ || static_cast<Index>(w) != shape_.cols ||
        static_cast<Index>(h) != shape_.rows) {
      status = {ErrorCode::unsupported, "'" + name + "' page " + std::to_string(page) +
                                            " differs from page 0 in size or pixel type; only "
                                            "pages 0-" +
                                            std::to_string(page - 1) + " are used"};
      break;
    }
    if (!strips_inside(tif, size)) {
      status = {ErrorCode::io_error, "cannot decode '" + name +
                                         "': the file is corrupt or "
                                         "truncated (page " +
                                         std::to_string(page) + " lies past its end); pages 0-" +
                                         std::to_string(page - 1) + " are used"};
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

Result<std::unique_ptr<LazyStack>> LazyStack::open(const fs::path& path, std::size_t cache_bytes) {
  std::unique_ptr<LazyStack> s(new LazyStack);
  s->path_ = path;
  s->cache_bytes_ = cache_bytes;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path, ec)) {
      if (e.is_regular_file() && has_image_extension(e.path()))
        names.push_back(e.path().filename().string());
    }
    if (names.empty()) {
      return Status{ErrorCode::invalid_argument,
                    "folder '" + path.string() +
                        "' contains no images (.tif .tiff .png .bmp .jpg .jpeg): empty stack"};
    }
    natural_sort(names);
    s->folder_ = true;
    for (const auto& n : names) {
      s->files_.push_back(path / n);
      s->sources_.push_back(n);
    }
    auto first = read_image_stack(s->files_[0]);  // size and type from the first image
    if (!first.is_ok()) return first.status();
    s->shape_ = first.value().frames.shape();
    s->type_ = first.value().pixel_type;
    return s;
  }
  if (!fs::exists(path, ec))
    return Status{ErrorCode::not_found, "'" + path.string() + "' does not exist"};
  bool lazy = is_tiff_file(path);
  if (lazy) {
    capture_tiff_errors();
    TIFF* tif = TIFFOpen(path.c_str(), "r");
    if (tif == nullptr) {
      return Status{ErrorCode::io_error, "cannot decode '" + path.string() +
                                             "': the file is corrupt or truncated (no readable "
                                             "header)"};
    }
    s->tiff_ = tif;
    uint32_t w = 0, h = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    lazy = lazy_layout(tif, s->type_);
    if (lazy) {
      const auto size = static_cast<std::uint64_t>(fs::file_size(path, ec));
      if (!strips_inside(tif, size)) {
        return Status{ErrorCode::io_error, "cannot decode '" + path.string() +
                                               "': the file is corrupt or truncated (page 0 "
                                               "lies past its end)"};
      }
      s->shape_ = {static_cast<Index>(h), static_cast<Index>(w)};
      s->offsets_.push_back(TIFFCurrentDirOffset(tif));
      // The other pages are indexed in the background with a handle of their own.
      TIFF* indexer = TIFFOpen(path.c_str(), "r");
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
    auto all = read_image_stack(path);
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
                                                         std::size_t cache_bytes) {
  if (files.empty()) return Status{ErrorCode::invalid_argument, "no files given: empty stack"};
  std::unique_ptr<LazyStack> s(new LazyStack);
  s->cache_bytes_ = cache_bytes;
  s->folder_ = true;
  for (const auto& f : files) {
    std::error_code ec;
    if (!fs::is_regular_file(f, ec))
      return Status{ErrorCode::not_found, "'" + f.string() + "' does not exist or is not a file"};
    s->files_.push_back(f);
    s->sources_.push_back(f.filename().string());
  }
  auto first = read_image_stack(files[0]);
  if (!first.is_ok()) return first.status();
  s->shape_ = first.value().frames.shape();
  s->type_ = first.value().pixel_type;
  return s;
}

Result<Stack<float>> LazyStack::decode(Index k) {
  if (folder_) {
    auto one = read_image_stack(files_[static_cast<std::size_t>(k)]);
    if (!one.is_ok()) return one.status();
    if (one.value().frames.shape() != shape_) {
      return Status{ErrorCode::size_mismatch,
                    "frame '" + sources_[static_cast<std::size_t>(k)] + "' is " +
                        to_string(one.value().frames.shape()) + " but '" + sources_[0] + "' is " +
                        to_string(shape_) + ": all frames of a stack must have one size"};
    }
    Stack<float> f(shape_.rows, shape_.cols, 1);
    std::copy(one.value().frames[0].data, one.value().frames[0].data + shape_.area(), f.data());
    return f;
  }
  TIFF* tif = as_tiff(tiff_);
  if (!TIFFSetSubDirectory(tif, offsets_[static_cast<std::size_t>(k)]))
    return Status{ErrorCode::io_error, "cannot read " + sources_[static_cast<std::size_t>(k)]};
  Stack<float> f(shape_.rows, shape_.cols, 1);
  std::vector<unsigned char> line(static_cast<std::size_t>(TIFFScanlineSize(tif)));
  for (Index r = 0; r < shape_.rows; ++r) {
    if (TIFFReadScanline(tif, line.data(), static_cast<uint32_t>(r)) < 0) {
      return Status{ErrorCode::io_error, "cannot decode " + sources_[static_cast<std::size_t>(k)] +
                                             " row " + std::to_string(r) +
                                             ": corrupt or truncated"};
    }
    float* out = f[0].row(r);
    for (Index c = 0; c < shape_.cols; ++c) {
      if (type_ == PixelType::u8) {
        out[c] = line[static_cast<std::size_t>(c)];
      } else if (type_ == PixelType::u16) {
        uint16_t v;
        std::memcpy(&v, line.data() + 2 * c, 2);
        out[c] = v;
      } else {
        std::memcpy(&out[c], line.data() + 4 * c, 4);
      }
    }
  }
  return f;
}

Result<std::shared_ptr<const Stack<float>>> LazyStack::frame(Index k) {
  std::lock_guard lock(mutex_);
  if (k < 0 || k >= static_cast<Index>(sources_.size()))
    return Status{ErrorCode::invalid_argument, "frame " + std::to_string(k) + " out of range"};
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->first == k) {
      cache_.splice(cache_.begin(), cache_, it);
      return cache_.front().second;
    }
  }
  auto decoded = decode(k);
  if (!decoded.is_ok()) return decoded.status();
  auto f = std::make_shared<const Stack<float>>(std::move(decoded).value());
  cache_.emplace_front(k, f);
  const std::size_t frame_bytes = static_cast<std::size_t>(shape_.area()) * sizeof(float);
  while (cache_.size() > 1 && cache_.size() * frame_bytes > cache_bytes_) cache_.pop_back();
  return f;
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
