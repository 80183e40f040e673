// One mechanism for enum <-> text everywhere (CLI values, JSON job files, CSV headers, GUI
// choices): an enum lists its labels once, by specialising EnumLabels<E> with a table of
// {value, label} pairs; label(), parse_label(), labels() and label_choices() work from it.
//   template <> struct EnumLabels<Mode> {
//     static constexpr std::pair<Mode, const char*> table[] = {{Mode::full, "full"}, ...};
//   };
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xcorr {

template <class E>
struct EnumLabels;  // specialised next to each enum

template <class E>
const char* label(E v) {
  for (const auto& [value, text] : EnumLabels<E>::table) {
    if (value == v) return text;
  }
  return "?";
}

template <class E>
std::optional<E> parse_label(std::string_view s) {
  for (const auto& [value, text] : EnumLabels<E>::table) {
    if (s == text) return value;
  }
  return std::nullopt;
}

template <class E>
std::vector<std::string> labels() {
  std::vector<std::string> out;
  for (const auto& entry : EnumLabels<E>::table) out.emplace_back(entry.second);
  return out;
}

// "a, b or c" (for messages).
inline std::string join_choices(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i == 0 ? "" : (i + 1 == v.size() ? " or " : ", ")) + v[i];
  return s;
}

template <class E>
std::string label_choices() {
  return join_choices(labels<E>());
}

}  // namespace xcorr
