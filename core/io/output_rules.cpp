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

Status broken(const PathRole& out, const char* relation, const PathRole& other, const char* rule) {
  return {ErrorCode::invalid_argument, out.role + " '" + out.path + "' " + relation + " " +
                                           other.role + " '" + other.path + "': " + rule};
}

const char* kind_of(const fs::path& p) {
  struct stat st {};
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
  const std::string what =
      (role.empty() ? std::string() : role + " ") + "'" + target.string() + "' is ";
  if (fs::is_directory(s)) return {ErrorCode::invalid_argument, what + "a folder, not a file"};
  return {ErrorCode::invalid_argument,
          what + kind_of(target) + ": an output is written only as a regular file"};
}

OutputRule::OutputRule(const RunPaths& paths) {
  for (const PathRole& r : paths.inputs)
    if (!r.path.empty()) inputs_.push_back({r, resolved(r.path)});
  for (const PathRole& r : paths.resume_folders)
    if (!r.path.empty()) folders_.push_back({r, resolved(r.path)});
}

void OutputRule::add(const std::vector<PathRole>& outputs) {
  for (const PathRole& r : outputs)
    if (!r.path.empty()) outputs_.push_back({r, resolved(r.path)});
}

Status OutputRule::claim(const std::vector<PathRole>& outputs) {
  Status first = Status::ok();
  const auto note = [&first](Status s) {
    if (first.is_ok()) first = std::move(s);
  };
  for (const PathRole& out : outputs) {
    if (out.path.empty()) continue;
    const fs::path file = resolved(out.path);
    note(check_regular_or_absent(out.path, out.role));
    for (const Resolved& in : inputs_)
      if (same_file(file, in.file)) note(broken(out, "is", in.role, "an output is never an input"));
    for (const Resolved& earlier : outputs_)
      if (same_file(file, earlier.file))
        note(broken(out, "is also", earlier.role, "two outputs of one run never share a file"));
    for (const Resolved& folder : folders_)
      if (inside(file, folder.file))
        note(broken(out, "lies inside", folder.role,
                    "a resume folder is removed when its job ends, so no output is kept there"));
    outputs_.push_back({out, file});
  }
  return first;
}

Status check_outputs(const RunPaths& paths) {
  return OutputRule(paths).claim(paths.outputs);
}

}  // namespace xcorr::io
