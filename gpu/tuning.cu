#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/io/atomic_write.hpp"
#include "gpu/device.hpp"
#include "gpu/engine.hpp"

namespace xcorr::gpu {
namespace {

namespace fs = std::filesystem;

fs::path cache_path() {
  if (const char* p = std::getenv("XCORR_TUNING_CACHE")) return p;
  const char* home = std::getenv("HOME");
  return fs::path(home ? home : ".") / ".cache" / "xcorr" / "gpu-tuning.json";
}

Index bucket(Index n) {
  Index b = 1;
  while (b < n) b *= 2;
  return b;
}

class TuningCache {
 public:
  std::optional<std::string> find(const std::string& key) {
    std::lock_guard lock(mutex_);
    load();
    if (auto it = winners_.find(key); it != winners_.end()) return it->second;
    return std::nullopt;
  }
  // Remembers a winner and rewrites the file (atomically); a file that cannot be written
  // only costs the next process a new tuning run.
  void store(const std::string& key, const std::string& variant) {
    std::lock_guard lock(mutex_);
    load();
    winners_[key] = variant;
    const fs::path path = cache_path();
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    (void)io::write_atomically(path, [&](const fs::path& tmp) -> Status {
      std::ofstream f(tmp);
      f << nlohmann::json(winners_).dump(1) << "\n";
      return f ? Status::ok() : Status{ErrorCode::io_error, "cannot write the tuning cache"};
    });
  }

 private:
  void load() {
    if (loaded_) return;
    loaded_ = true;
    std::ifstream f(cache_path());
    if (!f) return;
    try {
      winners_ = nlohmann::json::parse(f).get<std::map<std::string, std::string>>();
    } catch (const nlohmann::json::exception&) {
      winners_.clear();  // a damaged cache is ignored and rewritten
    }
  }
  std::mutex mutex_;
  bool loaded_ = false;
  std::map<std::string, std::string> winners_;
};

TuningCache& cache() {
  static TuningCache c;
  return c;
}

// Queried once: device properties are slow to read and do not change within a process.
const std::string& device_name() {
  static const std::string name = [] {
    const auto devices = list_devices();
    return devices.is_ok() ? devices.value()[0].name : std::string("none");
  }();
  return name;
}

}  // namespace

std::string tuning_key(const CorrelationProblem& p) {
  return device_name() + "|" + to_string(p.request.form) + "|" + to_string(p.request.mode) + "|" +
         to_string(p.request.norm) + "|" + to_string(p.left.shape()) + "|" +
         to_string(p.right.shape()) + "|" + std::to_string(bucket(p.left.count)) + "|" +
         std::to_string(bucket(p.right.count));
}

Result<const Correlator*> tuned_gpu_variant(const Registry& r, const CorrelationProblem& p) {
  XCORR_RETURN_IF_ERROR(p.validate());
  const std::string key = tuning_key(p);
  if (const auto name = cache().find(key)) {
    const Correlator* c = r.find(*name);
    if (c != nullptr && c->can_implement(p).is_ok()) return c;
  }
  const Correlator* best = nullptr;
  double best_ms = 0;
  for (const auto& v : r.all()) {
    if (!is_gpu_variant(*v) || !v->info().auto_eligible || !v->can_implement(p).is_ok()) continue;
    auto t = time_on_gpu(*v, p, 2, 5);
    if (!t.is_ok()) continue;  // e.g. too little memory for this variant: others may run
    if (best == nullptr || t.value().kernel_median_ms < best_ms) {
      best = v.get();
      best_ms = t.value().kernel_median_ms;
    }
  }
  if (best == nullptr) return Status{ErrorCode::unsupported, "no GPU variant can run this problem"};
  cache().store(key, best->info().name);
  return best;
}

}  // namespace xcorr::gpu
