// Measured choice of a GPU variant and its cache (core/engine/engine.hpp: tuned_gpu_variant,
// tuning_key). Timing goes through the installed GPU backend; without one nothing is a GPU
// variant and the choice says so.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"

namespace xcorr::engine {
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
    (void)io::write_text_atomically(path, nlohmann::json(winners_).dump(1) + "\n");
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
    const auto d = devices();
    if (!d.is_ok()) return std::string("none");
    // An emulated lab GPU (XCORR_GPU_PROFILE) has choices of its own.
    const DeviceInfo& g = d.value()[0];
    return g.profile.empty() ? g.name : g.name + " as " + g.profile;
  }();
  return name;
}

}  // namespace

std::string tuning_key(const CorrelationProblem& p) {
  std::string key = device_name() + "|" + to_string(p.request.form) + "|" +
                    to_string(p.request.mode) + "|" + to_string(p.request.norm) + "|" +
                    to_string(p.left.shape()) + "|" + to_string(p.right.shape()) + "|" +
                    std::to_string(bucket(p.left.count)) + "|" +
                    std::to_string(bucket(p.right.count));
  if (p.request.output == Output::peak) key += "|peak";  // surface keys keep their old form
  if (p.request.accuracy == Accuracy::exact) key += "|exact";
  return key;
}

namespace {

// Configured copies of parameterised variants by "name:params" text, alive for the whole process
// (callers keep raw pointers, like pointers into the registry); one instance per text.
const Correlator* keep_configured(const std::string& text, std::unique_ptr<Correlator> c) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Correlator>> kept;
  std::lock_guard lock(mutex);
  auto [it, inserted] = kept.try_emplace(text, std::move(c));
  return it->second.get();
}

std::string text_of(const Correlator& c, const ParamValues& values) {
  return c.info().name + ":" + format_params(c.info().params, values);
}

// "name" or "name:param=value,..." -> the variant, configured when parameters are given.
const Correlator* resolve(const Registry& r, const std::string& text) {
  const std::size_t colon = text.find(':');
  const Correlator* c = r.find(text.substr(0, colon));
  if (c == nullptr || colon == std::string::npos) return c;
  auto values = parse_params(c->info().name, c->info().params, text.substr(colon + 1));
  if (!values.is_ok()) return nullptr;
  auto configured = c->with_params(values.value());
  if (!configured.is_ok()) return nullptr;
  const ParamValues all = configured.value()->params();
  return keep_configured(text_of(*c, all), std::move(configured).value());
}

std::optional<double> median_ms(const Correlator& c, const CorrelationProblem& p) {
  auto t = time_on_gpu(c, p, 2, 5);
  if (!t.is_ok()) return std::nullopt;  // e.g. too little memory for this variant
  return t.value().kernel_median_ms;
}

}  // namespace

Result<const Correlator*> tuned_gpu_variant(const Registry& r, const CorrelationProblem& p) {
  XCORR_RETURN_IF_ERROR(p.validate());
  const std::string key = tuning_key(p);
  if (const auto name = cache().find(key)) {
    const Correlator* c = resolve(r, *name);
    if (c != nullptr && c->can_implement(p).is_ok()) return c;
  }
  // Candidates: GPU variants whose prior is within 10x of the best prior (a prior is never that
  // far off on the measured tables; this keeps slow baselines out of tuning runs).
  std::vector<const Correlator*> candidates;
  double best_prior = std::numeric_limits<double>::infinity();
  for (const auto& v : r.all()) {
    if (!is_gpu_variant(*v) || !v->info().auto_eligible || !v->can_implement(p).is_ok()) continue;
    candidates.push_back(v.get());
    best_prior = std::min(best_prior, v->estimate_seconds(p));
  }
  const Correlator* best = nullptr;
  double best_ms = 0;
  for (const Correlator* v : candidates) {
    if (v->estimate_seconds(p) > 10 * best_prior) continue;
    const auto ms = median_ms(*v, p);
    if (ms && (best == nullptr || *ms < best_ms)) {
      best = v;
      best_ms = *ms;
    }
  }
  if (best == nullptr) return Status{ErrorCode::unsupported, "no GPU variant can run this problem"};
  // Then the winner's parameters: every combination, measured.
  std::string winner = best->info().name;
  for (const ParamValues& values : all_param_combinations(best->info().params)) {
    if (best->info().params.empty() || values == best->params()) continue;
    auto configured = best->with_params(values);
    if (!configured.is_ok()) continue;
    const auto ms = median_ms(*configured.value(), p);
    if (ms && *ms < best_ms) {
      best_ms = *ms;
      winner = text_of(*best, values);
      best = keep_configured(winner, std::move(configured).value());
    }
  }
  cache().store(key, winner);
  return best;
}

}  // namespace xcorr::engine
