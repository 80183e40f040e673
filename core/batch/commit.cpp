#include "core/batch/commit.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/parallel.hpp"

namespace xcorr::batch {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  template <class T>
  bool get(T& v) {
    if (at_ + sizeof(T) > b_.size()) return false;
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  template <class T>
  bool get_all(std::vector<T>& v) {
    std::uint64_t n = 0;
    if (!get(n) || n > (b_.size() - at_) / sizeof(T)) return false;
    v.resize(n);
    if (n > 0) std::memcpy(v.data(), b_.data() + at_, n * sizeof(T));  // v.data() may be null
    at_ += n * sizeof(T);
    return true;
  }
  bool get_text(std::string& s) {
    std::uint64_t n = 0;
    if (!get(n) || n > b_.size() - at_) return false;
    s.assign(b_.data() + at_, n);
    at_ += n;
    return true;
  }
  bool done() const { return at_ == b_.size(); }

 private:
  std::string_view b_;  // not owned
  std::size_t at_ = 0;
};

// "XCF4": XCF3 (XCF2: size and CRC-32 trailer; + window) + sigma_u, sigma_v per point.
constexpr std::uint32_t kMagic = 0x34464358;

// Bytes of a trivially copyable value, or of a vector's elements (no copy).
template <class T>
std::string_view bytes_of(const T& v) {
  return {reinterpret_cast<const char*>(&v), sizeof(T)};
}
template <class T>
std::string_view bytes_of_all(const std::vector<T>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)};
}

// zlib's CRC-32 of the parts one after the other; parts of 8 MiB and more in chunks of 4 MiB
// over the host's threads, joined with crc32_combine (the same value as one pass).
std::uint32_t crc_of(const std::vector<std::string_view>& parts) {
  constexpr std::size_t kChunk = std::size_t{4} << 20;
  uLong crc = crc32(0L, Z_NULL, 0);
  for (const std::string_view part : parts) {
    if (part.empty()) continue;  // (crc32 of a null pointer is the start value: not a no-op)
    if (part.size() < 2 * kChunk) {
      crc = crc32(crc, reinterpret_cast<const Bytef*>(part.data()), static_cast<uInt>(part.size()));
      continue;
    }
    const std::size_t chunks = (part.size() + kChunk - 1) / kChunk;
    std::vector<uLong> crcs(chunks);
    parallel_for(static_cast<Index>(chunks), 1, [&](Index first, Index last) {
      for (auto c = static_cast<std::size_t>(first); c < static_cast<std::size_t>(last); ++c) {
        const std::size_t at = c * kChunk, n = std::min(kChunk, part.size() - at);
        crcs[c] = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(part.data() + at),
                        static_cast<uInt>(n));
      }
    });
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t n = std::min(kChunk, part.size() - c * kChunk);
      crc = crc32_combine(crc, crcs[c], static_cast<z_off_t>(n));
    }
  }
  return static_cast<std::uint32_t>(crc);
}

// The size (uint64) and CRC-32 (uint32) of the payload `parts`.
std::string trailer(const std::vector<std::string_view>& parts) {
  std::uint64_t size = 0;
  for (const std::string_view p : parts) size += p.size();
  const std::uint32_t crc = crc_of(parts);
  std::string t(bytes_of(size));
  t += bytes_of(crc);
  return t;
}

}  // namespace

CommitParts::CommitParts(const dic::FrameResult& fr, const dic::DicState& st) {
  // Small fields gather in the last held string; an array is a view of its own after its size.
  bool growing = false;  // the last part is held_.back(), which small fields extend
  const auto small = [&](std::string_view bytes) {
    if (!growing) {
      held_.emplace_back();
      parts_.emplace_back();
      growing = true;
    }
    held_.back() += bytes;
    parts_.back() = held_.back();
  };
  const auto all = [&](const auto& v) {
    small(bytes_of(static_cast<std::uint64_t>(v.size())));
    parts_.push_back(bytes_of_all(v));
    growing = false;
  };
  small(bytes_of(kMagic));
  small(bytes_of(static_cast<std::int64_t>(fr.frame)));
  all(fr.points);  // PointResult: plain doubles and ints
  small(bytes_of(static_cast<std::int64_t>(st.ref_frame)));
  small(bytes_of(static_cast<std::uint64_t>(st.guess_variant.size())));
  small(st.guess_variant);
  all(st.cx);
  all(st.cy);
  all(st.ref_u);
  all(st.ref_v);
  all(st.active);
  all(st.predicted);
  for (const Index v : {st.window.x, st.window.y, st.window.rows, st.window.cols})
    small(bytes_of(static_cast<std::int64_t>(v)));
  held_.push_back(trailer(parts_));
  parts_.push_back(held_.back());
}

std::string encode_commit(const dic::FrameResult& fr, const dic::DicState& st) {
  const CommitParts c(fr, st);
  std::size_t size = 0;
  for (const std::string_view p : c.parts()) size += p.size();
  std::string bytes;
  bytes.reserve(size);
  for (const std::string_view p : c.parts()) bytes += p;
  return bytes;
}

std::string with_commit_trailer(std::string payload) {
  payload += trailer({payload});
  return payload;
}

namespace {

// The payload of a commit whose trailer matches; false when it does not.
bool without_trailer(std::string_view bytes, std::string_view& payload) {
  constexpr std::size_t kTrailer = sizeof(std::uint64_t) + sizeof(std::uint32_t);
  if (bytes.size() < kTrailer) return false;
  std::uint64_t size = 0;
  std::uint32_t crc = 0;
  std::memcpy(&size, bytes.data() + bytes.size() - kTrailer, sizeof size);
  std::memcpy(&crc, bytes.data() + bytes.size() - sizeof crc, sizeof crc);
  if (size != bytes.size() - kTrailer) return false;
  payload = bytes.substr(0, bytes.size() - kTrailer);
  return crc == crc_of({payload});
}

}  // namespace

bool decode_commit(std::string_view bytes, dic::FrameResult& fr, dic::DicState& st) {
  std::string_view payload;
  if (!without_trailer(bytes, payload)) return false;
  Reader r(payload);
  std::uint32_t magic = 0;
  std::int64_t frame = 0, ref = 0, window[4] = {};
  const bool ok = r.get(magic) && magic == kMagic && r.get(frame) && r.get_all(fr.points) &&
                  r.get(ref) && r.get_text(st.guess_variant) && r.get_all(st.cx) &&
                  r.get_all(st.cy) && r.get_all(st.ref_u) && r.get_all(st.ref_v) &&
                  r.get_all(st.active) && r.get_all(st.predicted) && r.get(window[0]) &&
                  r.get(window[1]) && r.get(window[2]) && r.get(window[3]) && r.done();
  st.window = {window[0], window[1], window[2], window[3]};
  fr.frame = frame;
  st.ref_frame = ref;
  return ok;
}

}  // namespace xcorr::batch
