// ImageJ ROI files on disk: a lone .roi or the ROI Manager's ZIP (libzip), read and written
// (core/imagej/imagej_roi.hpp).
#include <zip.h>

#include <algorithm>
#include <map>
#include <memory>

#include "core/imagej/imagej_roi.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/read_file.hpp"

namespace xcorr::imagej {
namespace {

struct CloseZip {
  void operator()(zip_t* z) const { zip_discard(z); }
};
using Zip = std::unique_ptr<zip_t, CloseZip>;

std::string zip_problem(zip_error_t* e) {
  std::string s = zip_error_strerror(e);
  zip_error_fini(e);
  return s;
}

std::string stem_of(const std::string& name) {
  std::string s = std::filesystem::path(name).filename().string();
  if (s.size() > 4) {
    std::string ext = s.substr(s.size() - 4);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (ext == ".roi") s.resize(s.size() - 4);
  }
  return s;
}

Result<RoiFile> parse_zip(std::string_view bytes, const std::string& file_name) {
  const auto bad = [&](const std::string& why) {
    return Status{ErrorCode::parse_error, file_name + ": " + why};
  };
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (source == nullptr) return bad("cannot be read as a ZIP: " + zip_problem(&error));
  Zip z(zip_open_from_source(source, ZIP_RDONLY, &error));
  if (!z) {
    zip_source_free(source);
    return bad("is not a readable ZIP: " + zip_problem(&error));
  }
  const zip_int64_t entries = zip_get_num_entries(z.get(), 0);
  if (entries < 0 || static_cast<std::size_t>(entries) > kMaxZipEntries)
    return bad("holds more than " + std::to_string(kMaxZipEntries) + " entries");
  RoiFile out;
  for (zip_uint64_t k = 0; k < static_cast<zip_uint64_t>(entries); ++k) {
    zip_stat_t st;
    if (zip_stat_index(z.get(), k, 0, &st) != 0 || (st.valid & ZIP_STAT_NAME) == 0 ||
        (st.valid & ZIP_STAT_SIZE) == 0)
      return bad("entry " + std::to_string(k + 1) + " cannot be read: " + zip_strerror(z.get()));
    const std::string entry = st.name;
    const std::string stem = stem_of(entry);
    if (stem == std::filesystem::path(entry).filename().string()) continue;  // not a .roi
    if (st.size > kMaxRoiBytes) {
      out.skipped.push_back(stem + ": " + std::to_string(st.size) +
                            " bytes, more than a ROI holds");
      continue;
    }
    std::string data(static_cast<std::size_t>(st.size), '\0');
    zip_file_t* f = zip_fopen_index(z.get(), k, 0);
    if (f == nullptr) return bad("entry '" + entry + "': " + zip_strerror(z.get()));
    const zip_int64_t got = zip_fread(f, data.data(), data.size());
    std::string read_problem = got < 0 ? zip_file_strerror(f) : "";
    char extra = 0;  // reading past the end makes libzip check the entry's CRC
    if (got >= 0 && zip_fread(f, &extra, 1) < 0) read_problem = zip_file_strerror(f);
    zip_fclose(f);
    if (!read_problem.empty()) return bad("entry '" + entry + "': " + read_problem);
    if (static_cast<std::size_t>(got) != data.size())
      return bad("entry '" + entry + "' is cut short");
    auto roi = decode_roi(data, stem);
    if (!roi.is_ok()) {
      std::string why = roi.status().message();
      const std::string prefix = "ImageJ ROI '";
      if (const auto at = why.find("': "); why.rfind(prefix, 0) == 0 && at != std::string::npos)
        why = why.substr(prefix.size(), at - prefix.size()) + ": " + why.substr(at + 3);
      out.skipped.push_back(why);
      continue;
    }
    out.rois.push_back(std::move(roi).value());
  }
  if (out.rois.empty()) {
    std::string why = file_name + " holds no region";
    for (std::size_t i = 0; i < out.skipped.size() && i < 3; ++i)
      why += (i == 0 ? " (" : "; ") + out.skipped[i];
    if (!out.skipped.empty()) why += out.skipped.size() > 3 ? "; ...)" : ")";
    return Status{ErrorCode::parse_error, why};
  }
  return out;
}

}  // namespace

Result<RoiFile> parse_roi_file(std::string_view bytes, const std::string& file_name) {
  if (bytes.substr(0, 2) == "PK") return parse_zip(bytes, file_name);
  if (bytes.substr(0, 4) != "Iout")
    return Status{ErrorCode::parse_error,
                  file_name + " is neither an ImageJ ROI (.roi) nor a ZIP of them"};
  auto roi = decode_roi(bytes, stem_of(file_name));
  if (!roi.is_ok()) return roi.status();
  return RoiFile{{std::move(roi).value()}, {}};
}

Result<RoiFile> read_roi_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxRoiBytes * 16)
    return Status{ErrorCode::invalid_argument,
                  path.string() + ": " + std::to_string(size) + " bytes, more than ROI files hold"};
  auto bytes = io::read_file(path);
  if (!bytes.is_ok()) return bytes.status();
  return parse_roi_file(bytes.value(), path.string());
}

Status write_roi_zip(const std::filesystem::path& path, const std::vector<dic::NamedRoi>& rois) {
  if (rois.empty())  // libzip leaves no file for an archive without entries
    return Status{ErrorCode::invalid_argument, path.string() + ": there are no ROIs to write"};
  std::vector<std::pair<std::string, std::string>> entries;  // entry name, bytes
  std::map<std::string, int> used;
  for (const dic::NamedRoi& roi : rois) {
    auto bytes = encode_roi(roi);
    if (!bytes.is_ok()) return bytes.status();
    std::string name = roi.name.empty() ? "roi" : roi.name;
    std::replace(name.begin(), name.end(), '/', '_');
    std::replace(name.begin(), name.end(), '\\', '_');
    const int seen = ++used[name];
    if (seen > 1) name += "-" + std::to_string(seen);
    entries.emplace_back(name + ".roi", std::move(bytes).value());
  }
  return io::write_atomically(path, [&](const std::filesystem::path& temporary) -> Status {
    int code = 0;
    Zip z(zip_open(temporary.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
    const auto failed = [&](const std::string& what) {
      return Status{ErrorCode::io_error, path.string() + ": " + what};
    };
    if (!z) {
      zip_error_t e;
      zip_error_init_with_code(&e, code);
      return failed(zip_problem(&e));
    }
    for (const auto& [name, bytes] : entries) {
      zip_source_t* s = zip_source_buffer(z.get(), bytes.data(), bytes.size(), 0);
      if (s == nullptr || zip_file_add(z.get(), name.c_str(), s, ZIP_FL_ENC_UTF_8) < 0) {
        if (s != nullptr) zip_source_free(s);
        return failed(zip_strerror(z.get()));
      }
    }
    if (zip_close(z.get()) != 0) return failed(zip_strerror(z.get()));
    (void)z.release();  // closed: written and freed
    return Status::ok();
  });
}

}  // namespace xcorr::imagej
