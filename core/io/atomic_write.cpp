#include "core/io/atomic_write.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <system_error>

#include "core/io/output_rules.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

// Temporary files being written, in fixed slots a signal handler can read without locks.
constexpr int kSlots = 64;
constexpr std::size_t kPathBytes = 4096;
std::array<std::array<char, kPathBytes>, kSlots> g_paths{};
std::array<std::atomic<int>, kSlots> g_used{};  // 0 free, 1 being filled, 2 holds a path

// A slot for `p` (-1 when all are taken or the path is too long: it is then not tracked).
int track(const fs::path& p) {
  const std::string s = p.string();
  if (s.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int free = 0;
    if (!g_used[static_cast<std::size_t>(i)].compare_exchange_strong(free, 1)) continue;
    std::memcpy(g_paths[static_cast<std::size_t>(i)].data(), s.c_str(), s.size() + 1);
    g_used[static_cast<std::size_t>(i)].store(2);
    return i;
  }
  return -1;
}

void untrack(int slot) {
  if (slot >= 0) g_used[static_cast<std::size_t>(slot)].store(0);
}

// "<pid>" from ".<stem>.partial-<pid>-<n><ext>"; 0 when `name` is not such a name.
long temporary_owner(const std::string& name) {
  const std::size_t at = name.rfind(".partial-");
  if (name.empty() || name[0] != '.' || at == std::string::npos) return 0;
  std::size_t i = at + 9;
  long pid = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && pid < 100000000; ++i)
    pid = pid * 10 + (name[i] - '0');
  return i < name.size() && name[i] == '-' ? pid : 0;
}

// Once per folder and process: temporary files of processes that no longer run are removed.
void remove_stale_temporaries(const fs::path& folder) {
  static std::mutex mutex;
  static std::set<std::string> cleaned;
  {
    std::lock_guard lock(mutex);
    if (!cleaned.insert(fs::absolute(folder).lexically_normal().string()).second) return;
  }
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const long pid = temporary_owner(it->path().filename().string());
    if (pid > 0 && pid != getpid() && kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

fs::path temporary_for(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  return folder / ("." + target.stem().string() + ".partial-" + std::to_string(getpid()) + "-" +
                   std::to_string(counter.fetch_add(1)) + target.extension().string());
}

// `parts`, one after the other, into a new file at `path` (flushed to the disk unless
// `durability` is system); the reason on failure.
Status write_whole_file(const fs::path& path, const std::vector<std::string_view>& parts,
                        const fs::path& target, Durability durability = Durability::disk) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return {ErrorCode::io_error, "cannot write '" + target.string() + "': " + std::strerror(errno)};
  int error = 0;
  for (const std::string_view text : parts) {
    std::size_t done = 0;
    while (done < text.size() && error == 0) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno != EINTR) error = errno;
      if (n > 0) done += static_cast<std::size_t>(n);
    }
  }
  if (error == 0 && durability == Durability::disk && ::fsync(fd) != 0 && errno != EINVAL)
    error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0)
    return {ErrorCode::io_error, "cannot write '" + target.string() + "': " + std::strerror(error)};
  return Status::ok();
}

}  // namespace

Status check_output_name(const fs::path& target) {
  const std::string name = target.filename().string();
  if (name.size() <= kMaxOutputNameBytes) return Status::ok();
  return {ErrorCode::invalid_argument,
          "output name '" + name.substr(0, 40) + "...' is " + std::to_string(name.size()) +
              " bytes long: at most " + std::to_string(kMaxOutputNameBytes) +
              " (file names hold 255, and the temporary copy's name adds 30)"};
}

Status check_output_target(const fs::path& target) {
  XCORR_RETURN_IF_ERROR(check_output_name(target));
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string cannot = "cannot write '" + target.string() + "': folder '" + folder.string();
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    const int e = errno;
    if (e == ENOENT) return {ErrorCode::not_found, cannot + "' does not exist"};
    return {ErrorCode::io_error, cannot + "' cannot be reached (" + std::strerror(e) + ")"};
  }
  if (!S_ISDIR(st.st_mode)) return {ErrorCode::invalid_argument, cannot + "' is not a folder"};
  // Writable? A probe file, named as a temporary one and tracked as one: a SIGINT or SIGTERM
  // between its creation and its removal removes it too (a later run removes it after a kill).
  const fs::path probe = folder / (".write-check.partial-" + std::to_string(getpid()) + "-0");
  const int slot = track(probe);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const int open_error = errno;
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
  untrack(slot);
  if (fd < 0 && open_error != EEXIST)
    return {ErrorCode::io_error, cannot + "' is not writable (" + std::strerror(open_error) + ")"};
  std::error_code ec;
  if (fs::is_directory(target, ec)) {
    return {ErrorCode::invalid_argument,
            "cannot write '" + target.string() + "': it is a folder, not a file"};
  }
  return check_regular_or_absent(target, "output");
}

Status write_atomically(const fs::path& target,
                        const std::function<Status(const fs::path&)>& writer) {
  XCORR_RETURN_IF_ERROR(check_output_target(target));
  remove_stale_temporaries(target.has_parent_path() ? target.parent_path() : fs::path("."));
  const fs::path temporary = temporary_for(target);
  const int slot = track(temporary);
  std::error_code ec;
  Status s;
  try {
    s = writer(temporary);
  } catch (...) {
    fs::remove(temporary, ec);
    untrack(slot);
    throw;
  }
  if (!s.is_ok()) {
    fs::remove(temporary, ec);
    untrack(slot);
    // The writer names the file it was given: the user knows the target.
    std::string message = s.message();
    const std::string from = temporary.string(), to = target.string();
    for (std::size_t at = message.find(from); at != std::string::npos;
         at = message.find(from, at + to.size()))
      message.replace(at, from.size(), to);
    return {s.code(), message};
  }
  std::error_code renamed;
  fs::rename(temporary, target, renamed);
  if (renamed) fs::remove(temporary, ec);  // its reason, not the clean-up's
  untrack(slot);
  if (renamed)
    return {ErrorCode::io_error, "cannot write '" + target.string() + "': " + renamed.message()};
  return Status::ok();
}

Status write_text_atomically(const fs::path& target, const std::string& text,
                             Durability durability) {
  return write_parts_atomically(target, {text}, durability);
}

Status write_parts_atomically(const fs::path& target, const std::vector<std::string_view>& parts,
                              Durability durability) {
  return write_atomically(target, [&](const fs::path& tmp) {
    return write_whole_file(tmp, parts, target, durability);
  });
}

Status write_texts_atomically(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::vector<std::pair<fs::path, int>> written;  // temporary files and their slots
  auto discard = [&] {
    std::error_code ec;
    for (const auto& [tmp, slot] : written) {
      fs::remove(tmp, ec);
      untrack(slot);
    }
  };
  for (const auto& [target, text] : files) {
    Status s = check_output_target(target);
    if (s.is_ok()) {
      remove_stale_temporaries(target.has_parent_path() ? target.parent_path() : fs::path("."));
      const fs::path tmp = temporary_for(target);
      written.emplace_back(tmp, track(tmp));
      s = write_whole_file(tmp, {text}, target);
    }
    if (!s.is_ok()) {
      discard();
      return s;
    }
  }
  for (std::size_t k = 0; k < files.size(); ++k) {
    std::error_code renamed;
    fs::rename(written[k].first, files[k].first, renamed);
    if (renamed) {
      discard();
      return {ErrorCode::io_error,
              "cannot write '" + files[k].first.string() + "': " + renamed.message()};
    }
    untrack(written[k].second);
  }
  return Status::ok();
}

void remove_temporaries_now() {
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[static_cast<std::size_t>(i)].load() == 2)
      ::unlink(g_paths[static_cast<std::size_t>(i)].data());
  }
}

}  // namespace xcorr::io
