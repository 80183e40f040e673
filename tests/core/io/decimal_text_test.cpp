// append_fixed gives printf's "%.<d>f" characters for d = 0..9: fresh random values over many
// magnitudes, exact ties (dyadic values halfway between two outputs), their neighbours one ulp
// away, integers, -0, values around 2^52 / 10^d, subnormals, infinities and huge numbers.
#include "core/io/decimal_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace xcorr::io {
namespace {

std::string printf_fixed(double v, int digits) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void expect_printf(double v, int digits, int& checked) {
  std::string got = "x";  // appended to, not replaced
  append_fixed(got, v, digits);
  ASSERT_EQ(got, "x" + printf_fixed(v, digits))
      << "v = " << std::hexfloat << v << " digits " << digits;
  ++checked;
}

TEST(DecimalText, AppendFixedIsPrintfsCharacters) {
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-14, 17);
  std::uniform_int_distribution<long long> integer(-5000000, 5000000);
  int checked = 0;
  for (int digits = 0; digits <= 9; ++digits) {
    const double scale = std::pow(10.0, digits);
    std::vector<double> edge{0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             0.5,
                             -0.5,
                             1.5,
                             2.5,
                             0.25,
                             0.125,
                             0.0000005,
                             std::numeric_limits<double>::denorm_min(),
                             -std::numeric_limits<double>::min(),
                             4503599627370496.0 / scale,
                             4503599627370495.5 / scale,
                             9007199254740993.0 / scale,
                             1e300,
                             -1e300,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
    for (const double v : edge) expect_printf(v, digits, checked);
    for (int k = 0; k < 100000; ++k) {
      // Random values over many magnitudes.
      expect_printf(mantissa(rng) * std::pow(10.0, exponent(rng)), digits, checked);
      // Dyadic values halfway between two outputs where they exist ((2n + 1) / 2 / 10^d is
      // exact when 10^d divides n's scale: d <= 2 here), and their neighbours.
      const double tie = (2.0 * static_cast<double>(integer(rng)) + 1) / 2 / scale;
      for (const double v : {tie, std::nextafter(tie, 1e300), std::nextafter(tie, -1e300)})
        expect_printf(v, digits, checked);
      // Quarters and eighths (exact ties at small d), integers and values near 0.
      expect_printf(static_cast<double>(integer(rng)) / 8, digits, checked);
      expect_printf(static_cast<double>(integer(rng)), digits, checked);
      expect_printf(mantissa(rng) * 1e-7, digits, checked);
    }
  }
  std::printf("[ decimal text ] %d values checked\n", checked);
}

}  // namespace
}  // namespace xcorr::io
