// Every registered variant in every value combination of its parameters (the variant itself when
// it has none), for tests that sweep all of them.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace xcorr::testing {

struct Configuration {
  std::unique_ptr<Correlator> owned;  // the configured copy; empty for a variant without params
  const Correlator* variant = nullptr;
  std::string label;  // "name" or "name[k=v,...]"
};

inline std::vector<Configuration> every_configuration(const Registry& r) {
  std::vector<Configuration> out;
  for (const auto& v : r.all()) {
    for (const ParamValues& values : all_param_combinations(v->info().params)) {
      Configuration c;
      c.variant = v.get();
      c.label = v->info().name;
      if (!values.empty()) {
        auto made = v->with_params(values);
        EXPECT_TRUE(made.is_ok()) << c.label << ": " << made.status().message();
        if (!made.is_ok()) continue;
        c.owned = std::move(made).value();
        c.variant = c.owned.get();
        c.label += "[" + format_params(v->info().params, values) + "]";
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace xcorr::testing
