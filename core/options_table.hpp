// Options declared once: each options struct has one table of fields (key, label, unit, doc,
// kind, range or choices, and how to read and write the member), and everything that shows or
// takes options works from it: the CLI flags and their help (app/option_flags.hpp), the JSON job
// and project files, the CSV settings header, the desktop app's form (tooltips from the doc line)
// and the struct's check(). Adding an option is one table entry plus its use in the algorithm.
//
// A field's text form is what the JSON file, the CLI and the CSV header show: integers in
// decimal, reals in the shortest form that reads back exactly, choices by label.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_labels.hpp"
#include "core/status.hpp"

namespace xcorr {

enum class OptionKind { integer, real, choice, text };

template <class S>
struct OptionField {
  std::string key;    // JSON key and CSV header name; the CLI flag is --key with '_' as '-'
  std::string label;  // GUI label
  std::string unit;   // "px", "frames", "points", "grey values", or "" (dimensionless)
  std::string doc;    // one line: CLI help and GUI tooltip
  OptionKind kind = OptionKind::integer;
  double lo = 0, hi = 0;      // integer, real: accepted range [lo, hi]
  bool lo_exclusive = false;  // real: must be > lo
  bool odd = false;           // integer: must be odd
  // choice: the accepted labels; text: suggestions (any text is accepted unless `closed`).
  std::vector<std::string> choices;
  bool closed = false;  // text: only `choices` are accepted
  // Where the work runs, not what it computes (results are bit for bit the same whatever its
  // value): left out of the CSV settings header and of a batch job's resume identity.
  bool placement = false;
  bool summary = false;  // one of the few a one-line summary shows (describe_fields)
  // choice: values that are also flags of their own on the command line (--crop for
  // --border crop); they exclude each other.
  std::vector<std::string> flag_choices;
  std::function<std::string(const S&)> get;              // the value as text
  std::function<void(S&, const std::string&)> set_text;  // choice, text (checked value)
  std::function<double(const S&)> number;                // integer, real
  std::function<void(S&, double)> set_number;            // integer, real (checked value)
};

inline std::string format_real(double v) {
  char buf[64];
  for (int digits = 6; digits <= 17; ++digits) {  // shortest %g that reads back exactly
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

inline std::string flag_name(const std::string& key) {
  std::string f = "--" + key;
  for (char& c : f) c = c == '_' ? '-' : c;
  return f;
}

template <class S>
OptionField<S> make_field(std::string key, std::string label, std::string unit, std::string doc,
                          OptionKind kind) {
  OptionField<S> f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.unit = std::move(unit);
  f.doc = std::move(doc);
  f.kind = kind;
  return f;
}

template <class S>
OptionField<S> integer_field(std::string key, std::string label, std::string unit, std::string doc,
                             int S::*m, int lo, int hi, bool odd = false) {
  auto f = make_field<S>(std::move(key), std::move(label), std::move(unit), std::move(doc),
                         OptionKind::integer);
  f.lo = lo, f.hi = hi, f.odd = odd;
  f.get = [m](const S& s) { return std::to_string(s.*m); };
  f.number = [m](const S& s) { return static_cast<double>(s.*m); };
  f.set_number = [m](S& s, double v) { s.*m = static_cast<int>(v); };
  return f;
}

template <class S>
OptionField<S> real_field(std::string key, std::string label, std::string unit, std::string doc,
                          double S::*m, double lo, double hi, bool lo_exclusive = false) {
  auto f = make_field<S>(std::move(key), std::move(label), std::move(unit), std::move(doc),
                         OptionKind::real);
  f.lo = lo, f.hi = hi, f.lo_exclusive = lo_exclusive;
  f.get = [m](const S& s) { return format_real(s.*m); };
  f.number = [m](const S& s) { return s.*m; };
  f.set_number = [m](S& s, double v) { s.*m = v; };
  return f;
}

template <class S, class E>
OptionField<S> enum_field(std::string key, std::string label, std::string doc, E S::*m) {
  auto f = make_field<S>(std::move(key), std::move(label), "", std::move(doc), OptionKind::choice);
  f.choices = labels<E>();
  f.get = [m](const S& s) { return std::string(xcorr::label(s.*m)); };
  f.set_text = [m](S& s, const std::string& v) { s.*m = *parse_label<E>(v); };
  return f;
}

template <class S>
OptionField<S> text_field(std::string key, std::string label, std::string doc, std::string S::*m,
                          std::vector<std::string> choices, bool closed) {
  auto f = make_field<S>(std::move(key), std::move(label), "", std::move(doc), OptionKind::text);
  f.choices = std::move(choices);
  f.closed = closed;
  f.get = [m](const S& s) { return s.*m; };
  f.set_text = [m](S& s, const std::string& v) { s.*m = v; };
  return f;
}

// `f` marked as a placement field (see OptionField::placement).
template <class S>
OptionField<S> as_placement(OptionField<S> f) {
  f.placement = true;
  return f;
}

template <class S>
OptionField<S> with_choice_flags(OptionField<S> f, std::vector<std::string> choices) {
  f.flag_choices = std::move(choices);
  return f;
}

template <class S>
OptionField<S> as_summary(OptionField<S> f) {
  f.summary = true;
  return f;
}

// The value with its unit, as messages and the CSV header show it ("31 px", "0.6").
template <class S>
std::string value_with_unit(const OptionField<S>& f, const S& s) {
  return f.get(s) + (f.unit.empty() ? "" : " " + f.unit);
}

// Whether the field's current value is acceptable; names the key and the rule.
template <class S>
Status check_field(const OptionField<S>& f, const S& s) {
  auto bad = [&](const std::string& rule) {
    return Status{ErrorCode::invalid_argument, f.key + " " + value_with_unit(f, s) + ": " + rule};
  };
  switch (f.kind) {
    case OptionKind::integer:
    case OptionKind::real: {
      const double v = f.number(s);
      const bool integer = f.kind == OptionKind::integer;
      auto num = [&](double x) {
        return integer ? std::to_string(static_cast<long long>(x)) : format_real(x);
      };
      const bool below = f.lo_exclusive ? !(v > f.lo) : !(v >= f.lo);
      if (!std::isfinite(v) || below || v > f.hi || (f.odd && static_cast<long long>(v) % 2 == 0)) {
        std::string rule = f.odd ? "must be odd and " : "must be ";
        if (f.hi >= std::numeric_limits<int>::max() / 2)
          rule += f.lo_exclusive ? "> " + num(f.lo) : "at least " + num(f.lo);
        else
          rule += "in [" + num(f.lo) + ", " + num(f.hi) + "]";
        return bad(rule);
      }
      return Status::ok();
    }
    case OptionKind::choice:
    case OptionKind::text: {
      if (f.kind == OptionKind::text && !f.closed) return Status::ok();
      const std::string v = f.get(s);
      for (const std::string& c : f.choices) {
        if (v == c) return Status::ok();
      }
      return Status{ErrorCode::invalid_argument,
                    f.key + " '" + v + "': expected " + join_choices(f.choices)};
    }
  }
  return Status::ok();
}

template <class S>
Status check_fields(const std::vector<OptionField<S>>& table, const S& s) {
  for (const OptionField<S>& f : table) XCORR_RETURN_IF_ERROR(check_field(f, s));
  return Status::ok();
}

// Sets a field from text (CLI value, GUI text): parses by kind and checks the value. Errors name
// the key: "subset 'x': expected an integer", "strain 'cauchy': expected green_lagrange or ...".
template <class S>
Status set_field(const OptionField<S>& f, S& s, const std::string& text) {
  auto bad = [&](const std::string& what) {
    return Status{ErrorCode::invalid_argument, f.key + " '" + text + "': " + what};
  };
  if (f.kind == OptionKind::integer || f.kind == OptionKind::real) {
    double v = 0;
    const char* end = text.data() + text.size();
    if (f.kind == OptionKind::integer) {
      long long i = 0;
      const auto [p, ec] = std::from_chars(text.data(), end, i);
      if (ec != std::errc{} || p != end) return bad("expected an integer");
      if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max())
        return bad("out of range");
      v = static_cast<double>(i);
    } else {
      const auto [p, ec] = std::from_chars(text.data(), end, v);
      if (ec != std::errc{} || p != end) return bad("expected a number");
    }
    S trial = s;
    f.set_number(trial, v);
    XCORR_RETURN_IF_ERROR(check_field(f, trial));
    s = trial;
    return Status::ok();
  }
  if (f.kind == OptionKind::choice || f.closed) {
    bool known = false;
    for (const std::string& c : f.choices) known = known || c == text;
    if (!known) return bad("expected " + join_choices(f.choices));
  }
  f.set_text(s, text);
  return Status::ok();
}

// Which fields describe_fields shows: every result setting (the CSV settings header; placement
// fields are left out), or only those marked as_summary (one-line summaries, e.g. the batch
// dialog's queue).
enum class Described { settings, summary };

// "key=value unit, ..." over the fields `which` names.
template <class S>
std::string describe_fields(const std::vector<OptionField<S>>& table, const S& s,
                            Described which = Described::settings) {
  std::string out;
  for (const OptionField<S>& f : table) {
    const bool shown = which == Described::summary ? f.summary : !f.placement;
    if (shown) out += (out.empty() ? "" : ", ") + f.key + "=" + value_with_unit(f, s);
  }
  return out;
}

// `s` with its placement fields at their defaults (S{}): what the results depend on.
template <class S>
S without_placement(const std::vector<OptionField<S>>& table, S s) {
  const S defaults{};
  for (const OptionField<S>& f : table) {
    if (!f.placement) continue;
    if (f.kind == OptionKind::integer || f.kind == OptionKind::real)
      f.set_number(s, f.number(defaults));
    else
      f.set_text(s, f.get(defaults));
  }
  return s;
}

template <class S>
const OptionField<S>* find_field(const std::vector<OptionField<S>>& table, std::string_view key) {
  for (const OptionField<S>& f : table) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

}  // namespace xcorr
