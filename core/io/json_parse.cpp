#include "core/io/json_parse.hpp"

#include <set>
#include <vector>

namespace xcorr::io {

Result<nlohmann::json> parse_json(const std::string& text, const std::string& what) {
  using json = nlohmann::json;
  std::string refused;                      // the first reason, when one was found
  std::vector<std::set<std::string>> keys;  // of each object being read, innermost last
  json j;
  try {
    // The callback drops every value below the limit (the parser itself does not recurse), so
    // nothing deep is ever built.
    j = json::parse(text, [&](int depth, json::parse_event_t event, json& parsed) {
      if (depth >= kMaxJsonDepth) {
        if (refused.empty())
          refused = "nests values deeper than " + std::to_string(kMaxJsonDepth) + " levels";
        return false;
      }
      switch (event) {
        case json::parse_event_t::object_start:
          keys.emplace_back();
          break;
        case json::parse_event_t::object_end:
          if (!keys.empty()) keys.pop_back();
          break;
        case json::parse_event_t::key: {
          const std::string& k = parsed.get_ref<const std::string&>();
          if (!keys.empty() && !keys.back().insert(k).second && refused.empty())
            refused = "names the key '" + k.substr(0, 64) + "' twice in one object";
          if (k.find('\0') != std::string::npos && refused.empty())
            refused = "holds a key with a NUL character (\\u0000)";
          break;
        }
        case json::parse_event_t::value:
          if (parsed.is_string() &&
              parsed.get_ref<const std::string&>().find('\0') != std::string::npos &&
              refused.empty())
            refused =
                "holds a text with a NUL character (\\u0000), which no path or name may "
                "hold";
          break;
        default:
          break;
      }
      return true;
    });
  } catch (const json::parse_error& e) {
    std::string why = e.what();  // names the offending token, which may be huge: cut it short
    if (why.size() > 200) why = why.substr(0, 200) + "...";
    return Status{ErrorCode::parse_error, what + " is not valid JSON: " + why};
  } catch (const json::out_of_range&) {  // 1e400, a 5000-digit integer
    return Status{ErrorCode::parse_error, what + " holds a number too large to read"};
  }
  if (!refused.empty()) return Status{ErrorCode::parse_error, what + " " + refused};
  return j;
}

}  // namespace xcorr::io
