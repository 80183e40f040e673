// The oracle agrees with OpenCV's matchTemplate: TM_CCORR (valid mode), TM_CCOEFF_NORMED (zncc),
// and TM_CCORR on a zero-padded window (full mode).
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "core/cpu/cpu_variants.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr {
namespace {

cv::Mat as_mat(MatrixView<const float> m) {
  return cv::Mat(static_cast<int>(m.rows), static_cast<int>(m.cols), CV_32F,
                 const_cast<float*>(m.data),
                 static_cast<std::size_t>(m.row_stride) * sizeof(float));
}

double max_abs_diff(const cv::Mat& cvres, MatrixView<const double> ref) {
  double worst = 0;
  for (int r = 0; r < cvres.rows; ++r) {
    for (int c = 0; c < cvres.cols; ++c)
      worst = std::max(worst, std::abs(cvres.at<float>(r, c) - ref(r, c)));
  }
  return worst;
}

TEST(OpenCvAgreement, ValidModeIsMatchTemplateCcorr) {
  const Stack<float> t = testing::random_stack(9, 14, 1, 1),
                     s = testing::random_stack(40, 33, 1, 2);
  const Stack<double> ref =
      cpu::correlate_reference({{Form::one_to_one, Mode::valid}, t.view(), s.view()});
  cv::Mat res;
  cv::matchTemplate(as_mat(s[0]), as_mat(t[0]), res, cv::TM_CCORR);
  ASSERT_EQ(res.rows, ref.rows());
  ASSERT_EQ(res.cols, ref.cols());
  EXPECT_LT(max_abs_diff(res, ref[0]), 1e-3);
}

TEST(OpenCvAgreement, ZnccIsTmCcoeffNormed) {
  const Stack<float> t = testing::random_stack(11, 11, 1, 3, 0, 255),
                     s = testing::random_stack(50, 45, 1, 4, 0, 255);
  const Stack<double> ref = cpu::correlate_reference(
      {{Form::one_to_one, Mode::valid, Normalization::zncc}, t.view(), s.view()});
  cv::Mat res;
  cv::matchTemplate(as_mat(s[0]), as_mat(t[0]), res, cv::TM_CCOEFF_NORMED);
  EXPECT_LT(max_abs_diff(res, ref[0]), 1e-4);
}

TEST(OpenCvAgreement, FullModeIsCcorrOnAZeroPaddedRight) {
  // correlate2d(L, R, 'full')[r][c] = sum L[i][j] R[i-dy][j-dx] = matchTemplate(pad(L), R)
  const Stack<float> l = testing::random_stack(12, 7, 1, 5), r = testing::random_stack(12, 7, 1, 6);
  const Stack<double> ref =
      cpu::correlate_reference({{Form::one_to_one, Mode::full}, l.view(), r.view()});
  cv::Mat padded;
  cv::copyMakeBorder(as_mat(l[0]), padded, 11, 11, 6, 6, cv::BORDER_CONSTANT, 0);
  cv::Mat res;
  cv::matchTemplate(padded, as_mat(r[0]), res, cv::TM_CCORR);
  // matchTemplate(pad(L), R)[k][l] = sum R[i][j] L[k+i-(h-1)][l+j-(w-1)] = out[k][l].
  ASSERT_EQ(res.rows, 23);
  double worst = 0;
  for (int k = 0; k < 23; ++k) {
    for (int c = 0; c < 13; ++c)
      worst = std::max(worst, std::abs(res.at<float>(k, c) - ref[0](k, c)));
  }
  EXPECT_LT(worst, 1e-3);
}

}  // namespace
}  // namespace xcorr
