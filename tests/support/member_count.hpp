// The number of members of an aggregate struct, found at compile time by brace-initialising it
// from n values that convert to anything: the largest n that compiles. Exact for structs whose
// members are scalars, enums or classes with constructors (std::string), as the options structs
// are; a member that is itself an aggregate would be counted by its own members.
#pragma once

#include <cstddef>
#include <utility>

namespace xcorr::testing {

struct AnyValue {
  template <class T>
  constexpr operator T() const;  // never defined: unevaluated contexts only
};

template <class S, std::size_t... I>
constexpr bool brace_constructible(std::index_sequence<I...>) {
  return requires {
    S{(static_cast<void>(I), AnyValue{})...};
  };
}

template <class S, std::size_t N = 0>
constexpr std::size_t member_count() {
  if constexpr (!brace_constructible<S>(std::make_index_sequence<N + 1>{}))
    return N;
  else
    return member_count<S, N + 1>();
}

}  // namespace xcorr::testing
