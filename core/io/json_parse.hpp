// JSON text from files (jobs, batches, projects) parsed with a nesting limit: the values are
// untrusted, and a value nested 10^5 deep overflows the stack when anything walks it recursively
// (dump, comparisons). Values deeper than kMaxJsonDepth are refused by name, and so are a key
// named twice in one object (JSON readers disagree on which one wins) and a NUL character in a
// text (a path would be cut short there).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.hpp"

namespace xcorr::io {

inline constexpr int kMaxJsonDepth = 64;

// parse_error: "<what> is not valid JSON: ...", "<what> holds a number too large to read" (1e400),
// "<what> nests values deeper than 64 levels", "<what> names the key 'subset' twice in one
// object" or "<what> holds a text with a NUL character (\u0000), ...".
Result<nlohmann::json> parse_json(const std::string& text, const std::string& what);

}  // namespace xcorr::io
