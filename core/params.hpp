// Tunable parameters of a correlation variant (tile sizes, rows per worker, ...).
// A variant lists its parameters in VariantInfo::params; every combination of their values is
// valid, and for compile-time parameters `values` is exactly the set of template instantiations
// (tests/gpu iterate the product and run each). Text form: "name=value,name=value", values as
// numbers or, for enumerations, by label ("distribution=triangle").
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace xcorr {

struct Param {
  std::string name;                 // e.g. "shifts_per_thread"
  std::vector<int> values;          // every accepted value, ascending
  int default_value = 0;            // one of `values`
  std::vector<std::string> labels;  // empty, or one name per value (enumerations)
  std::string doc;                  // one line, with units
};

using ParamValues = std::map<std::string, int>;

// `given` completed with the defaults of the parameters it leaves out. Errors name an unknown
// parameter or a value outside its list.
Result<ParamValues> complete_params(const std::string& variant, const std::vector<Param>& params,
                                    const ParamValues& given);

// Parses "name=value,..." (labels accepted). Does not complete with defaults.
Result<ParamValues> parse_params(const std::string& variant, const std::vector<Param>& params,
                                 std::string_view text);

// "name=value,..." in the order of `params`, enumerations by label; "" when there are none.
std::string format_params(const std::vector<Param>& params, const ParamValues& v);

// The Cartesian product of all parameter values (one empty set when there are no parameters).
std::vector<ParamValues> all_param_combinations(const std::vector<Param>& params);

// "1,2,4" or "none,rectangle,triangle": the accepted values of one parameter.
std::string describe_values(const Param& p);

}  // namespace xcorr
