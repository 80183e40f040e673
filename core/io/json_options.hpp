// An options table's fields (core/options_table.hpp) in a JSON object, for job files: read with
// the same checks as the CLI (a wrong type or value names the key), written by kind (integers as
// integers, reals as numbers, choices and texts as strings). Used by the DIC job file
// (core/dic/job.cpp) and the registration job (core/register/job.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/options_table.hpp"

namespace xcorr::io {

template <class S>
Status read_option(const nlohmann::json& j, const OptionField<S>& f, S& o) {
  if (!j.contains(f.key)) return Status::ok();
  const nlohmann::json& v = j.at(f.key);
  const auto bad = [&f](const char* what) {
    return Status{ErrorCode::invalid_argument, "job key '" + f.key + "': expected " + what};
  };
  std::string text;
  switch (f.kind) {
    case OptionKind::integer:
      if (!v.is_number_integer()) return bad("an integer");
      text = v.is_number_unsigned() ? std::to_string(v.get<unsigned long long>())
                                    : std::to_string(v.get<long long>());
      break;
    case OptionKind::real:
      if (!v.is_number()) return bad("a number");
      text = format_real(v.get<double>());
      break;
    case OptionKind::choice:
    case OptionKind::text:
      // An open text field takes a number too (e.g. "smoothing": 2, as written when it was a
      // number).
      if (f.kind == OptionKind::text && !f.closed && v.is_number()) {
        text = format_real(v.get<double>());
        break;
      }
      if (!v.is_string()) return bad("a string");
      text = v.get<std::string>();
      break;
  }
  return set_field(f, o, text);  // the message names the key
}

template <class S>
Status read_options(const nlohmann::json& j, const std::vector<OptionField<S>>& table, S& o) {
  for (const OptionField<S>& f : table) XCORR_RETURN_IF_ERROR(read_option(j, f, o));
  return Status::ok();
}

template <class S>
void write_options(nlohmann::json& j, const std::vector<OptionField<S>>& table, const S& o) {
  for (const OptionField<S>& f : table) {
    if (f.kind == OptionKind::integer)
      j[f.key] = static_cast<int>(f.number(o));
    else if (f.kind == OptionKind::real)
      j[f.key] = f.number(o);
    else
      j[f.key] = f.get(o);
  }
}

}  // namespace xcorr::io
