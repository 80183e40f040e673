#include "core/io/matrix_csv.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "core/io/atomic_write.hpp"

namespace xcorr::io {
namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

class LineReader {
 public:
  explicit LineReader(std::string text) : text_(std::move(text)) {}
  // Next line (without '\n'); false at the end of the text.
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const auto end = text_.find('\n', pos_);
    const auto stop = end == std::string::npos ? text_.size() : end;
    line = std::string_view(text_).substr(pos_, stop - pos_);
    pos_ = stop + 1;
    ++number_;
    return true;
  }
  long number() const { return number_; }

 private:
  std::string text_;
  std::size_t pos_ = 0;
  long number_ = 0;
};

template <class T>
bool parse_number(std::string_view s, T& out) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

}  // namespace

Result<Stack<float>> read_matrix_csv(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Status{ErrorCode::not_found, "'" + name + "' does not exist"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status{ErrorCode::io_error, "cannot open '" + name + "' for reading"};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string text = std::move(buffer).str();
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a UTF-8 byte-order mark
  const std::size_t text_bytes = text.size();
  LineReader lines(std::move(text));
  auto error = [&](const std::string& what) {
    return Status{ErrorCode::parse_error,
                  name + ":" + std::to_string(lines.number()) + ": " + what};
  };

  std::string_view line;
  if (!lines.next(line))
    return Status{ErrorCode::parse_error,
                  name + ": the file is empty (expected a '# rows,cols,count' header)"};
  const std::string_view header = trim(line);
  const std::string expected =
      "header must be '# rows,cols' or '# rows,cols,count' with positive integers, found '";
  if (header.size() < 2 || header[0] != '#') return error(expected + std::string(header) + "'");
  long long dims[3] = {0, 0, 1};
  int fields = 0;
  {
    std::string_view rest = header.substr(1);
    while (true) {
      const auto comma = rest.find(',');
      const std::string_view token = rest.substr(0, comma);
      if (fields == 3 || !parse_number(token, dims[fields]) || dims[fields] < 1) {
        return error(expected + std::string(header) + "'");
      }
      ++fields;
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
  }
  if (fields < 2) return error(expected + std::string(header) + "'");
  const Index rows = dims[0], cols = dims[1], count = dims[2];
  if (static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(count) > 4e9) {
    return error("header announces " + std::to_string(rows) + "x" + std::to_string(cols) + "x" +
                 std::to_string(count) + " values, more than this reader accepts (4e9)");
  }
  // Every value takes at least two bytes ("0," or "0\n"): a header announcing far more values
  // than the file can hold is refused before 64 MiB or more are allocated (smaller ones are read
  // until the data runs out, which names the row).
  const double values =
      static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(count);
  if (2 * values > static_cast<double>(text_bytes) && values > (1 << 24)) {
    return error("header announces " + std::to_string(rows) + "x" + std::to_string(cols) + "x" +
                 std::to_string(count) + " values, but the file has only " +
                 std::to_string(text_bytes) + " bytes");
  }
  Stack<float> stack(rows, cols, count);
  float* out = stack.data();
  const Index total_rows = rows * count;
  for (Index r = 0; r < total_rows; ++r) {
    if (!lines.next(line)) {
      return Status{ErrorCode::parse_error,
                    name + ": the file ends after " + std::to_string(r) +
                        " data rows, the header announces " + std::to_string(total_rows) + " (" +
                        std::to_string(count) + " matrices of " + std::to_string(rows) + " rows)"};
    }
    Index c = 0;
    std::string_view rest = line;
    while (true) {
      const auto comma = rest.find(',');
      const std::string_view token = rest.substr(0, comma);
      if (c == cols) return error("expected " + std::to_string(cols) + " values, found more");
      if (!parse_number(token, out[c])) {
        return error("value " + std::to_string(c + 1) + " '" + std::string(trim(token)) +
                     "' is not a number");
      }
      ++c;
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    if (c != cols)
      return error("expected " + std::to_string(cols) + " values, found " + std::to_string(c));
    out += cols;
  }
  while (lines.next(line)) {
    if (!trim(line).empty()) {
      return error("unexpected data after the " + std::to_string(total_rows) +
                   " rows the header announces");
    }
  }
  return stack;
}

Status write_matrix_csv(const std::filesystem::path& path, StackView<const float> s) {
  return write_atomically(path, [&](const std::filesystem::path& tmp) -> Status {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr)
      return {ErrorCode::io_error, "cannot write '" + path.string() + "': " + std::strerror(errno)};
    std::string line = "# " + std::to_string(s.rows) + "," + std::to_string(s.cols) + "," +
                       std::to_string(s.count) + "\n";
    bool ok = std::fputs(line.c_str(), f) >= 0;
    char num[32];
    for (Index i = 0; ok && i < s.count; ++i) {
      for (Index r = 0; ok && r < s.rows; ++r) {
        line.clear();
        const float* row = s[i].row(r);
        for (Index c = 0; c < s.cols; ++c) {
          if (c > 0) line.push_back(',');
          const auto res = std::to_chars(num, num + sizeof(num), row[c]);  // shortest round trip
          line.append(num, res.ptr);
        }
        line.push_back('\n');
        ok = std::fwrite(line.data(), 1, line.size(), f) == line.size();
      }
    }
    int error = ok ? 0 : errno;
    if (std::fflush(f) != 0 && error == 0) error = errno;
    if (::fsync(fileno(f)) != 0 && error == 0 && errno != EINVAL) error = errno;
    if (std::fclose(f) != 0 && error == 0) error = errno;
    if (!ok || error != 0) {
      return {ErrorCode::io_error,
              "cannot write '" + path.string() + "': " + std::strerror(error != 0 ? error : EIO)};
    }
    return Status::ok();
  });
}

}  // namespace xcorr::io
