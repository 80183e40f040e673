#include "core/params.hpp"

#include <algorithm>
#include <charconv>

namespace xcorr {
namespace {

const Param* find_param(const std::vector<Param>& params, std::string_view name) {
  for (const Param& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string names_of(const std::vector<Param>& params) {
  std::string s;
  for (const Param& p : params) s += (s.empty() ? "" : ", ") + p.name;
  return s.empty() ? "none" : s;
}

std::string value_text(const Param& p, int v) {
  const auto it = std::find(p.values.begin(), p.values.end(), v);
  if (!p.labels.empty() && it != p.values.end())
    return p.labels[static_cast<std::size_t>(it - p.values.begin())];
  return std::to_string(v);
}

}  // namespace

std::string describe_values(const Param& p) {
  std::string s;
  for (int v : p.values) s += (s.empty() ? "" : ",") + value_text(p, v);
  return s;
}

Result<ParamValues> complete_params(const std::string& variant, const std::vector<Param>& params,
                                    const ParamValues& given) {
  for (const auto& [name, value] : given) {
    const Param* p = find_param(params, name);
    if (p == nullptr) {
      return Status{
          ErrorCode::invalid_argument,
          variant + " has no parameter '" + name + "' (its parameters: " + names_of(params) + ")"};
    }
    if (std::find(p->values.begin(), p->values.end(), value) == p->values.end()) {
      return Status{ErrorCode::invalid_argument, variant + ": " + name + "=" +
                                                     std::to_string(value) + " is not one of " +
                                                     describe_values(*p)};
    }
  }
  ParamValues all = given;
  for (const Param& p : params) all.emplace(p.name, p.default_value);
  return all;
}

Result<ParamValues> parse_params(const std::string& variant, const std::vector<Param>& params,
                                 std::string_view text) {
  ParamValues out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Status{ErrorCode::invalid_argument,
                    "parameter '" + std::string(item) + "' is not of the form name=value"};
    }
    const std::string name(item.substr(0, eq));
    const std::string_view value = item.substr(eq + 1);
    const Param* p = find_param(params, name);
    if (p == nullptr) {
      return Status{
          ErrorCode::invalid_argument,
          variant + " has no parameter '" + name + "' (its parameters: " + names_of(params) + ")"};
    }
    int v = 0;
    const auto label = std::find(p->labels.begin(), p->labels.end(), value);
    if (label != p->labels.end()) {
      v = p->values[static_cast<std::size_t>(label - p->labels.begin())];
    } else {
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc{} || end != value.data() + value.size()) {
        return Status{ErrorCode::invalid_argument, variant + ": " + name + "=" +
                                                       std::string(value) + " is not one of " +
                                                       describe_values(*p)};
      }
    }
    out[name] = v;
  }
  auto checked = complete_params(variant, params, out);
  if (!checked.is_ok()) return checked.status();
  return out;
}

std::string format_params(const std::vector<Param>& params, const ParamValues& v) {
  std::string s;
  for (const Param& p : params) {
    const auto it = v.find(p.name);
    if (it == v.end()) continue;
    s += (s.empty() ? "" : ",") + p.name + "=" + value_text(p, it->second);
  }
  return s;
}

std::vector<ParamValues> all_param_combinations(const std::vector<Param>& params) {
  std::vector<ParamValues> out{ParamValues{}};
  for (const Param& p : params) {
    std::vector<ParamValues> next;
    for (const ParamValues& base : out) {
      for (int v : p.values) {
        ParamValues c = base;
        c[p.name] = v;
        next.push_back(std::move(c));
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace xcorr
