// JSON text from files (jobs, batches, projects) parsed with a nesting limit: the values are
// untrusted, and a value nested 10^5 deep overflows the stack when anything walks it recursively
// (dump, comparisons). Values deeper than kMaxJsonDepth are refused by name.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.hpp"

namespace xcorr::io {

inline constexpr int kMaxJsonDepth = 64;

// parse_error: "<what> is not valid JSON: ...", "<what> holds a number too large to read" (1e400)
// or "<what> nests values deeper than 64 levels".
Result<nlohmann::json> parse_json(const std::string& text, const std::string& what);

}  // namespace xcorr::io
