#include "core/io/json_parse.hpp"

namespace xcorr::io {

Result<nlohmann::json> parse_json(const std::string& text, const std::string& what) {
  using json = nlohmann::json;
  bool too_deep = false;
  json j;
  try {
    // The callback drops every value below the limit (the parser itself does not recurse), so
    // nothing deep is ever built.
    j = json::parse(text, [&too_deep](int depth, json::parse_event_t, json&) {
      if (depth < kMaxJsonDepth) return true;  // depth 0: the top-level value
      too_deep = true;
      return false;
    });
  } catch (const json::parse_error& e) {
    std::string why = e.what();  // names the offending token, which may be huge: cut it short
    if (why.size() > 200) why = why.substr(0, 200) + "...";
    return Status{ErrorCode::parse_error, what + " is not valid JSON: " + why};
  } catch (const json::out_of_range&) {  // 1e400, a 5000-digit integer
    return Status{ErrorCode::parse_error, what + " holds a number too large to read"};
  }
  if (too_deep) {
    return Status{ErrorCode::parse_error,
                  what + " nests values deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
  }
  return j;
}

}  // namespace xcorr::io
