// For tests over an options table: a valid value of every field that differs from the default,
// as text (the form the CLI, the JSON file and the CSV header show).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "core/options_table.hpp"

namespace xcorr::testing {

template <class S>
std::string off_default_text(const OptionField<S>& f, const S& defaults) {
  const std::string now = f.get(defaults);
  switch (f.kind) {
    case OptionKind::integer: {
      const double v = f.number(defaults) + (f.odd ? 2 : 1);
      return std::to_string(static_cast<long long>(v <= f.hi ? v : f.lo));
    }
    case OptionKind::real: {
      double v = f.number(defaults) * 2 + 0.25;
      if (v > f.hi) v = (f.lo + f.hi) / 2;
      return format_real(v);
    }
    case OptionKind::choice:
    case OptionKind::text:
      for (const std::string& c : f.choices) {
        if (c != now) return c;
      }
      return now + "_other";
  }
  return now;
}

}  // namespace xcorr::testing
