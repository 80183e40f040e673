// all_finite and fill_missing_with_mean on fresh random images of odd, prime and tiny sizes: NaN,
// +Inf and -Inf anywhere (the first and the last pixel included) are found and filled with the
// float64 mean of the finite pixels; the largest floats and subnormals are finite; an image with
// nothing missing comes back untouched, one with nothing finite filled with 0.
#include "core/missing_data.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/support/matrix_testing.hpp"

namespace xcorr {
namespace {

TEST(MissingData, FindsAndFillsEveryNonFinitePixel) {
  std::mt19937_64 g(testing::run_seed() ^ 0x3155);
  std::uniform_real_distribution<float> u(-1000, 1000);
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float odd[] = {std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                       std::numeric_limits<float>::denorm_min(), -0.0f};
  for (const Shape s :
       {Shape{1, 1}, Shape{1, 7}, Shape{3, 2}, Shape{13, 17}, Shape{127, 61}, Shape{509, 1031}}) {
    SCOPED_TRACE(to_string(s));
    const auto n = static_cast<std::size_t>(s.rows * s.cols);
    std::vector<float> image(n);
    for (float& v : image) v = u(g);
    image[n / 2] = odd[g() % 4];
    // Nothing missing: untouched.
    EXPECT_TRUE(all_finite(MatrixView<const float>{image.data(), s.rows, s.cols, s.cols}));
    std::vector<float> same = image;
    EXPECT_TRUE(
        fill_missing_with_mean(MatrixView<float>{same.data(), s.rows, s.cols, s.cols}).empty());
    EXPECT_EQ(same, image);
    // Missing pixels at random places, the first and the last among them.
    std::vector<char> want(n, 0);
    const float bad[] = {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf};
    for (std::size_t k = 0; k < 1 + n / 50; ++k) want[g() % n] = 1;
    want.front() = 1;
    want.back() = 1;
    double sum = 0;
    long finite = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (want[k])
        image[k] = bad[g() % 3];
      else
        sum += image[k], ++finite;
    }
    EXPECT_FALSE(all_finite(MatrixView<const float>{image.data(), s.rows, s.cols, s.cols}));
    const float mean = finite > 0 ? static_cast<float>(sum / static_cast<double>(finite)) : 0.0f;
    const std::vector<char> got =
        fill_missing_with_mean(MatrixView<float>{image.data(), s.rows, s.cols, s.cols});
    ASSERT_EQ(got, want);
    for (std::size_t k = 0; k < n; ++k) {
      if (want[k]) {
        ASSERT_EQ(image[k], mean) << k;
      }
    }
  }
}

}  // namespace
}  // namespace xcorr
