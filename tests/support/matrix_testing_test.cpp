// The comparison helper itself: it must fail on wrong, unwritten or misshapen results.
#include "tests/support/matrix_testing.hpp"

namespace xcorr::testing {
namespace {

Stack<double> as_double(const Stack<float>& s) {
  Stack<double> d(s.rows(), s.cols(), s.count());
  for (std::size_t i = 0; i < s.values().size(); ++i) d.values()[i] = s.values()[i];
  return d;
}

TEST(MatrixNear, AcceptsEqualAndTinyErrors) {
  Stack<float> a = random_stack(5, 7, 2, 1);
  Stack<double> e = as_double(a);
  EXPECT_TRUE(matrix_near(a.view(), e.view(), 1e-5));
  e.values()[3] *= 1 + 1e-7;
  EXPECT_TRUE(matrix_near(a.view(), e.view(), 1e-5));
}

TEST(MatrixNear, RejectsAWrongMatrix) {
  Stack<float> a = random_stack(5, 7, 2, 2);
  Stack<double> e = as_double(a);
  e[1](2, 3) += 0.5;  // one wrong element in the second result
  const auto r = matrix_near(a.view(), e.view(), 1e-5);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("result 1"), std::string::npos) << r.message();
}

TEST(MatrixNear, RejectsAnUnwrittenElement) {
  Stack<float> a = poisoned_stack(3, 3, 1);
  Stack<double> e(3, 3, 1, 0.0);
  const auto r = matrix_near(a.view(), e.view(), 1e-5);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("never written"), std::string::npos) << r.message();
}

TEST(MatrixNear, RejectsAShapeMismatch) {
  EXPECT_FALSE(matrix_near(Stack<float>(3, 4, 1).view(), Stack<double>(4, 3, 1).view(), 1e-5));
  EXPECT_FALSE(matrix_near(Stack<float>(3, 3, 2).view(), Stack<double>(3, 3, 1).view(), 1e-5));
}

TEST(RandomStack, SameStreamSameDataOtherStreamOtherData) {
  EXPECT_EQ(random_stack(4, 4, 1, 7).values(), random_stack(4, 4, 1, 7).values());
  EXPECT_NE(random_stack(4, 4, 1, 7).values(), random_stack(4, 4, 1, 8).values());
}

}  // namespace
}  // namespace xcorr::testing
