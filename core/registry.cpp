#include "core/registry.hpp"

#include <unistd.h>

#include <chrono>
#include <limits>
#include <new>

namespace xcorr {
namespace {

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return (pages > 0 && page > 0) ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

std::string gib(double bytes) {
  const double g = bytes / (1024.0 * 1024.0 * 1024.0);
  const auto tenths = static_cast<long long>(g * 10 + 0.5);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " GiB";
}

}  // namespace

void Registry::add(std::unique_ptr<Correlator> c) {
  XCORR_CHECK(c != nullptr, "null correlator");
  XCORR_CHECK(find(c->info().name) == nullptr, "duplicate variant name " + c->info().name);
  variants_.push_back(std::move(c));
}

const Correlator* Registry::find(std::string_view name) const {
  for (const auto& v : variants_) {
    if (v->info().name == name) return v.get();
  }
  return nullptr;
}

namespace {
Status unknown_method(const Registry& r, std::string_view name) {
  if (name.starts_with("gpu_") && !r.gpu_absent().empty()) {
    return {ErrorCode::unsupported,
            "method '" + std::string(name) + "' needs a GPU: " + r.gpu_absent()};
  }
  return {ErrorCode::invalid_argument,
          "unknown method '" + std::string(name) + "' (see `xcorr list`)"};
}
}  // namespace

Result<const Correlator*> find_method(const Registry& r, std::string_view method) {
  const std::size_t colon = method.find(':');
  const std::string_view name = method.substr(0, colon);
  const Correlator* c = r.find(name);
  if (c == nullptr) return unknown_method(r, name);
  if (colon != std::string_view::npos) {
    auto values = parse_params(c->info().name, c->info().params, method.substr(colon + 1));
    if (!values.is_ok()) return values.status();
  }
  return c;
}

Result<std::unique_ptr<Correlator>> configure_variant(const Registry& r, std::string_view name,
                                                      std::string_view params) {
  const Correlator* c = r.find(name);
  if (c == nullptr) return unknown_method(r, name);
  auto values = parse_params(c->info().name, c->info().params, params);
  if (!values.is_ok()) return values.status();
  return c->with_params(values.value());
}

Result<const Correlator*> choose_variant(const Registry& r, const CorrelationProblem& p,
                                         std::string_view method, std::string_view device) {
  if (method != "auto") {  // a plain name (a configured "name:..." is the caller's to make)
    const Correlator* c = r.find(method);
    if (c == nullptr) return unknown_method(r, method);
    XCORR_RETURN_IF_ERROR(c->can_implement(p));
    return c;
  }
  const Correlator* best = nullptr;
  double best_seconds = std::numeric_limits<double>::infinity();
  for (const auto& v : r.all()) {
    if (!v->info().auto_eligible || !v->can_implement(p).is_ok()) continue;
    if (!device.empty() && v->info().device != device) continue;
    const double s = v->estimate_seconds(p);
    if (s < best_seconds) {
      best_seconds = s;
      best = v.get();
    }
  }
  if (best == nullptr) {
    return Status{ErrorCode::unsupported,
                  std::string("no registered variant can run ") + to_string(p.request.form) + " " +
                      to_string(p.request.mode) + " " + to_string(p.request.norm)};
  }
  return best;
}

Result<CorrelationOutput> correlate(const Registry& r, const CorrelationProblem& p,
                                    std::string_view method) {
  XCORR_RETURN_IF_ERROR(p.validate());
  auto chosen = choose_variant(r, p, method);
  if (!chosen.is_ok()) return chosen.status();
  return correlate_with(*chosen.value(), p);
}

Result<CorrelationOutput> correlate_with(const Correlator& c, const CorrelationProblem& p) {
  XCORR_RETURN_IF_ERROR(p.validate());
  XCORR_RETURN_IF_ERROR(check_finite(p.left, "left"));
  XCORR_RETURN_IF_ERROR(check_finite(p.right, "right"));
  XCORR_RETURN_IF_ERROR(c.can_implement(p));
  const Shape shape = p.output_shape();
  const double bytes =
      static_cast<double>(shape.area()) * static_cast<double>(p.output_count()) * sizeof(float);
  const double physical = physical_memory_bytes();
  if (physical > 0 && bytes > 0.8 * physical) {
    return Status{ErrorCode::out_of_memory, "too little memory: the result needs " + gib(bytes) +
                                                " and this machine has " + gib(physical)};
  }
  CorrelationOutput out;
  try {
    out.result = Stack<float>(shape.rows, shape.cols, p.output_count());
  } catch (const std::bad_alloc&) {
    return Status{ErrorCode::out_of_memory,
                  "too little memory: could not allocate the result (" + gib(bytes) + ")"};
  }
  out.variant = c.info().name;
  out.params = format_params(c.info().params, c.params());
  const auto t0 = std::chrono::steady_clock::now();
  XCORR_RETURN_IF_ERROR(c.run(p, out.result.view()));
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace xcorr
