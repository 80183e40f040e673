// Numbers as text for the result files: printf's "%.<digits>f" without printf.
#pragma once

#include <charconv>
#include <cmath>
#include <string>

namespace xcorr::io {

// Appends printf's "%.<digits>f" of v (C locale; 0 <= digits <= 9; v not NaN): the exact
// product P = |v| 10^digits rounded to an integer (half to even), its last `digits` digits
// behind the point. Below 2^52 the product rounded once, a, lies on the same side of every
// half-integer as P (rounding is monotonic, and half-integers are doubles there), so a's nearest
// integer is P's unless a is itself a half-integer: then, and for large numbers and infinities,
// std::to_chars' exact decimal expansion writes them (the DIC CSV's 3.3 x 10^6 numbers per
// 2048^2 frame spent about 0.5 s of a core in it). The same characters either way
// (tests/core/io/decimal_text_test).
inline void append_fixed(std::string& out, double v, int digits) {
  static constexpr double kScale[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  const double a = std::fabs(v) * kScale[digits];  // one rounding
  if (a < 4503599627370496.0) {                    // 2^52: floor(a) and a - floor(a) exact
    const double whole = std::floor(a), fraction = a - whole;
    if (fraction != 0.5) {
      auto n = static_cast<unsigned long long>(whole) + (fraction > 0.5 ? 1 : 0);
      char buf[32];
      char* end = buf + sizeof buf;
      char* p = end;
      for (int d = 0; d < digits; ++d, n /= 10) *--p = static_cast<char>('0' + n % 10);
      if (digits > 0) *--p = '.';
      do {
        *--p = static_cast<char>('0' + n % 10);
        n /= 10;
      } while (n != 0);
      if (std::signbit(v)) *--p = '-';
      out.append(p, end);
      return;
    }
  }
  char buf[400];  // the longest double in fixed form with 9 decimals, and its sign
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, digits).ptr);
}

}  // namespace xcorr::io
