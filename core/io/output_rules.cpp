#include "core/io/output_rules.hpp"

#include <sys/stat.h>

#include <system_error>

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

// The absolute path with links resolved as far as the path exists.
fs::path resolved(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) return fs::path(p).lexically_normal();
  fs::path c = fs::weakly_canonical(a, ec);
  return ec ? a.lexically_normal() : c;
}

// The same file: the same resolved path, or (both existing) the same inode.
bool same_file(const fs::path& a, const fs::path& b) {
  if (a == b) return true;
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec) && !ec;
}

// `p` lies inside folder `folder` or is it.
bool inside(const fs::path& p, const fs::path& folder) {
  auto f = folder.begin();
  auto q = p.begin();
  for (; f != folder.end(); ++f, ++q) {
    if (f->empty() && std::next(f) == folder.end()) break;  // a trailing separator
    if (q == p.end() || *q != *f) return false;
  }
  return true;
}

Status broken(const PathRole& out, const char* relation, const PathRole& other,
              const char* rule) {
  return {ErrorCode::invalid_argument, out.role + " '" + out.path + "' " + relation + " " +
                                           other.role + " '" + other.path + "': " + rule};
}

const char* kind_of(const fs::path& p) {
  struct stat st{};
  if (::stat(p.c_str(), &st) != 0) return "not a regular file";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

Status check_regular_or_absent(const fs::path& target, const std::string& role) {
  std::error_code ec;
  const fs::file_status s = fs::status(target, ec);  // follows links: what would be replaced
  if (ec || !fs::exists(s) || fs::is_regular_file(s)) return Status::ok();
  const std::string what = (role.empty() ? std::string() : role + " ") + "'" + target.string() +
                           "' is ";
  if (fs::is_directory(s)) return {ErrorCode::invalid_argument, what + "a folder, not a file"};
  return {ErrorCode::invalid_argument,
          what + kind_of(target) + ": an output is written only as a regular file"};
}

Status check_outputs(const RunPaths& paths) {
  std::vector<std::pair<const PathRole*, fs::path>> inputs, outputs, folders;
  for (const PathRole& r : paths.inputs)
    if (!r.path.empty()) inputs.emplace_back(&r, resolved(r.path));
  for (const PathRole& r : paths.resume_folders)
    if (!r.path.empty()) folders.emplace_back(&r, resolved(r.path));
  for (const PathRole& out : paths.outputs) {
    if (out.path.empty()) continue;
    const fs::path file = resolved(out.path);
    if (!out.checked) {
      outputs.emplace_back(&out, file);
      continue;
    }
    XCORR_RETURN_IF_ERROR(check_regular_or_absent(out.path, out.role));
    for (const auto& [in, in_file] : inputs) {
      if (same_file(file, in_file))
        return broken(out, "is", *in, "an output is never an input");
    }
    for (const auto& [earlier, earlier_file] : outputs) {
      if (same_file(file, earlier_file))
        return broken(out, "is also", *earlier, "two outputs of one run never share a file");
    }
    for (const auto& [folder, folder_path] : folders) {
      if (inside(file, folder_path))
        return broken(out, "lies inside", *folder,
                      "a resume folder is removed when its job ends, so no output is kept there");
    }
    outputs.emplace_back(&out, file);
  }
  return Status::ok();
}

}  // namespace xcorr::io
