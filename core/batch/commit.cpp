#include "core/batch/commit.hpp"

#include <zlib.h>

#include <cstdint>
#include <cstring>

namespace xcorr::batch {
namespace {

class Writer {
 public:
  template <class T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes_.append(p, sizeof(T));
  }
  template <class T>
  void put_all(const std::vector<T>& v) {
    put<std::uint64_t>(v.size());
    bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void put_text(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes_ += s;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

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

}  // namespace

std::string with_commit_trailer(std::string payload) {
  const std::uint64_t size = payload.size();
  const auto crc = static_cast<std::uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size())));
  payload.append(reinterpret_cast<const char*>(&size), sizeof size);
  payload.append(reinterpret_cast<const char*>(&crc), sizeof crc);
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
  return crc == static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(payload.data()),
                                                 static_cast<uInt>(payload.size())));
}

}  // namespace

std::string encode_commit(const dic::FrameResult& fr, const dic::DicState& st) {
  Writer w;
  w.put(kMagic);
  w.put<std::int64_t>(fr.frame);
  w.put_all(fr.points);  // PointResult: plain doubles and ints
  w.put<std::int64_t>(st.ref_frame);
  w.put_text(st.guess_variant);
  w.put_all(st.cx);
  w.put_all(st.cy);
  w.put_all(st.ref_u);
  w.put_all(st.ref_v);
  w.put_all(st.active);
  w.put_all(st.predicted);
  for (const Index v : {st.window.x, st.window.y, st.window.rows, st.window.cols})
    w.put<std::int64_t>(v);
  return with_commit_trailer(w.bytes());
}

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
