// CLI flags from an options table (core/options_table.hpp): one flag per field, --key with '_'
// as '-', the doc line (with unit and choices) as help, the current value as default, and the
// value parsed and checked by the table (a bad value is a parse error naming the key); a choice
// field's flag_choices also get a flag each (--crop for --border crop), which exclude each other.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/options_table.hpp"

namespace xcorr::app {

template <class S>
void add_option_flags(CLI::App* c, const std::vector<OptionField<S>>& table, S& target) {
  for (const OptionField<S>& f : table) {
    std::string help = f.doc;
    if (!f.unit.empty()) help += " (" + f.unit + ")";
    if (f.kind == OptionKind::choice || (f.kind == OptionKind::text && f.closed))
      help += ": " + join_choices(f.choices);
    const OptionField<S>* field = &f;  // the table is static: pointers stay valid
    c->add_option_function<std::string>(
         flag_name(f.key),
         [field, &target](const std::string& value) {
           const Status s = set_field(*field, target, value);
           if (!s.is_ok()) throw CLI::ValidationError(flag_name(field->key), s.message());
         },
         help)
        ->default_str(f.get(target));
    std::vector<CLI::Option*> shortcuts;
    for (const std::string& choice : f.flag_choices) {
      CLI::Option* flag = c->add_flag_function(
          "--" + choice,
          [field, &target, choice](std::int64_t) {
            const Status s = set_field(*field, target, choice);
            if (!s.is_ok()) throw CLI::ValidationError("--" + choice, s.message());
          },
          "Same as " + flag_name(f.key) + " " + choice);
      for (CLI::Option* other : shortcuts) flag->excludes(other);
      shortcuts.push_back(flag);
    }
  }
}

}  // namespace xcorr::app
