#include "core/correlation.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace xcorr {
namespace {

CorrelationProblem problem(Form f, Mode m, Normalization n, const Stack<float>& l,
                           const Stack<float>& r) {
  return {{f, m, n}, l.view(), r.view()};
}

TEST(CorrelationProblem, OutputShapes) {
  const Stack<float> a(16, 10, 1), b(16, 10, 3), win(40, 33, 2);
  EXPECT_EQ(problem(Form::one_to_one, Mode::full, Normalization::none, a, a).output_shape(),
            (Shape{31, 19}));
  EXPECT_EQ(problem(Form::one_to_many, Mode::valid, Normalization::none, a, win).output_shape(),
            (Shape{25, 24}));
  EXPECT_EQ(problem(Form::one_to_many, Mode::full, Normalization::none, a, b).output_count(), 3);
}

TEST(CorrelationProblem, ResultOrderingMatchesTheThesisTools) {
  const Stack<float> l2(4, 4, 2), r6(4, 4, 6), r3(4, 4, 3);
  const auto mn = problem(Form::n_to_mn, Mode::full, Normalization::none, l2, r6);
  EXPECT_EQ(mn.output_count(), 6);
  for (Index t = 0; t < 6; ++t) EXPECT_EQ(mn.pair(t), (std::pair<Index, Index>{t % 2, t}));
  const auto nm = problem(Form::n_to_m, Mode::full, Normalization::none, l2, r3);
  EXPECT_EQ(nm.output_count(), 6);
  EXPECT_EQ(nm.pair(0), (std::pair<Index, Index>{0, 0}));
  EXPECT_EQ(nm.pair(2), (std::pair<Index, Index>{0, 2}));
  EXPECT_EQ(nm.pair(3), (std::pair<Index, Index>{1, 0}));
  EXPECT_EQ(nm.pair(5), (std::pair<Index, Index>{1, 2}));
  const Stack<float> l1(4, 4, 1);
  const auto om = problem(Form::one_to_many, Mode::full, Normalization::none, l1, r3);
  EXPECT_EQ(om.pair(2), (std::pair<Index, Index>{0, 2}));
}

TEST(CorrelationProblem, ValidateNamesEachProblem) {
  const Stack<float> a(8, 8, 1), b(8, 7, 1), two(8, 8, 2), three(8, 8, 3), big(9, 9, 1),
      empty(8, 8, 0);
  auto message = [](const CorrelationProblem& p) { return p.validate().message(); };
  EXPECT_TRUE(problem(Form::one_to_one, Mode::full, Normalization::none, a, a).validate().is_ok());
  EXPECT_EQ(problem(Form::one_to_one, Mode::full, Normalization::none, a, b).validate().code(),
            ErrorCode::size_mismatch);
  EXPECT_NE(message(problem(Form::one_to_one, Mode::full, Normalization::none, a, b))
                .find("left is 8x8, right is 8x7"),
            std::string::npos);
  EXPECT_NE(message(problem(Form::one_to_one, Mode::full, Normalization::none, a, two))
                .find("1 left and 1 right"),
            std::string::npos);
  EXPECT_NE(message(problem(Form::one_to_many, Mode::full, Normalization::none, two, two))
                .find("1 left matrix"),
            std::string::npos);
  EXPECT_NE(
      message(problem(Form::n_to_mn, Mode::full, Normalization::none, two, three)).find("multiple"),
      std::string::npos);
  EXPECT_TRUE(
      problem(Form::n_to_m, Mode::full, Normalization::none, two, three).validate().is_ok());
  EXPECT_NE(message(problem(Form::one_to_one, Mode::valid, Normalization::none, big, a))
                .find("larger than the search window"),
            std::string::npos);
  EXPECT_EQ(problem(Form::one_to_one, Mode::full, Normalization::zncc, a, a).validate().code(),
            ErrorCode::unsupported);
  EXPECT_NE(message(problem(Form::one_to_many, Mode::full, Normalization::none, a, empty))
                .find("right input is empty"),
            std::string::npos);
}

TEST(CheckFinite, NamesTheFirstBadValue) {
  Stack<float> s(3, 4, 2, 1.0f);
  EXPECT_TRUE(check_finite(s.view(), "left").is_ok());
  s[1](2, 3) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(check_finite(s.view(), "left").message(), "left matrix 1 has a NaN at row 2, column 3");
  s[1](2, 3) = std::numeric_limits<float>::infinity();
  EXPECT_NE(check_finite(s.view(), "right").message().find("infinite"), std::string::npos);
}

TEST(CorrelationProblem, DisplacementOfAnOutputPosition) {
  const Stack<float> a(5, 7, 1), win(20, 20, 1);
  const auto full = problem(Form::one_to_one, Mode::full, Normalization::none, a, a);
  const Displacement d = output_position_to_displacement(full, 4.25, 6.0);
  EXPECT_DOUBLE_EQ(d.dy, 0.25);
  EXPECT_DOUBLE_EQ(d.dx, 0.0);
  const auto valid = problem(Form::one_to_one, Mode::valid, Normalization::none, a, win);
  EXPECT_DOUBLE_EQ(output_position_to_displacement(valid, 3.5, 2.0).dy, 3.5);
}

TEST(CorrelationEnums, RoundTripThroughText) {
  for (Form f : {Form::one_to_one, Form::one_to_many, Form::n_to_mn, Form::n_to_m})
    EXPECT_EQ(parse_form(to_string(f)), f);
  EXPECT_EQ(parse_mode("valid"), Mode::valid);
  EXPECT_EQ(parse_normalization("zncc"), Normalization::zncc);
  EXPECT_FALSE(parse_form("one_to_two").has_value());
}

}  // namespace
}  // namespace xcorr
