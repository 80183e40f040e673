// cpu_reference against hand-computed cases: it is the oracle of every other test.
#include <gtest/gtest.h>

#include "core/cpu/cpu_variants.hpp"

namespace xcorr {
namespace {

Stack<float> matrix(Index rows, Index cols, std::initializer_list<float> v) {
  Stack<float> s(rows, cols, 1);
  std::copy(v.begin(), v.end(), s.data());
  return s;
}

TEST(Reference, FullModeEqualsCorrelate2dByHand) {
  // scipy.signal.correlate2d([[1,2],[3,4]], [[5,6],[7,8]], 'full')
  const Stack<float> l = matrix(2, 2, {1, 2, 3, 4}), r = matrix(2, 2, {5, 6, 7, 8});
  const Stack<double> out =
      cpu::correlate_reference({{Form::one_to_one, Mode::full}, l.view(), r.view()});
  const double expected[3][3] = {{8, 23, 14}, {30, 70, 38}, {18, 39, 20}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_DOUBLE_EQ(out[0](i, j), expected[i][j]) << i << "," << j;
  }
}

TEST(Reference, FullModeNonSquareByHand) {
  // correlate2d([[1,2,3]], [[4,5,6]], 'full') = [[6, 17, 32, 23, 12]]
  const Stack<float> l = matrix(1, 3, {1, 2, 3}), r = matrix(1, 3, {4, 5, 6});
  const Stack<double> out =
      cpu::correlate_reference({{Form::one_to_one, Mode::full}, l.view(), r.view()});
  const double expected[5] = {6, 17, 32, 23, 12};
  for (int j = 0; j < 5; ++j) EXPECT_DOUBLE_EQ(out[0](0, j), expected[j]);
}

TEST(Reference, ValidModeByHand) {
  // template [[1, -1]] over [[1, 2, 4], [0, 3, 3]]: out[k][l] = S[k][l] - S[k][l+1]
  const Stack<float> t = matrix(1, 2, {1, -1}), s = matrix(2, 3, {1, 2, 4, 0, 3, 3});
  const Stack<double> out =
      cpu::correlate_reference({{Form::one_to_one, Mode::valid}, t.view(), s.view()});
  ASSERT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_DOUBLE_EQ(out[0](0, 0), -1);
  EXPECT_DOUBLE_EQ(out[0](0, 1), -2);
  EXPECT_DOUBLE_EQ(out[0](1, 0), -3);
  EXPECT_DOUBLE_EQ(out[0](1, 1), 0);
}

TEST(Reference, ZnccIsOneForTheSamePatternMinusOneForItsNegativeZeroWhenFlat) {
  const Stack<float> t = matrix(2, 2, {1, 2, 3, 5});
  // window 0: 10 + 3*t (same pattern), window 1: -t, window 2: flat.
  const Stack<float> s = matrix(2, 6, {13, 16, -1, -2, 7, 7, 19, 25, -3, -5, 7, 7});
  const Stack<double> out = cpu::correlate_reference(
      {{Form::one_to_one, Mode::valid, Normalization::zncc}, t.view(), s.view()});
  EXPECT_NEAR(out[0](0, 0), 1.0, 1e-12);
  EXPECT_NEAR(out[0](0, 2), -1.0, 1e-12);
  EXPECT_EQ(out[0](0, 4), 0.0);
  for (Index l = 0; l < 5; ++l) EXPECT_LE(std::abs(out[0](0, l)), 1.0);
}

TEST(Reference, OneByOne) {
  const Stack<float> a = matrix(1, 1, {3}), b = matrix(1, 1, {-2});
  EXPECT_DOUBLE_EQ(
      cpu::correlate_reference({{Form::one_to_one, Mode::full}, a.view(), b.view()})[0](0, 0), -6);
}

}  // namespace
}  // namespace xcorr
