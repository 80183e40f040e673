// The oracle agrees with OpenCV's matchTemplate: TM_CCORR (valid mode), TM_CCOEFF_NORMED (zncc),
// and TM_CCORR on a zero-padded window (full mode). And the image readers (core/io/codecs.hpp)
// read colour files as OpenCV does, which read them in earlier versions: every channel and the
// luminance of PNG (8 and 16 bits), BMP, JPEG and RGB TIFF, bit for bit.
#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>

#include "core/cpu/cpu_variants.hpp"
#include "core/io/image_io.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiff_writing.hpp"

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

class OpenCvFiles : public testing::TempDirTest {
 protected:
  // A random B, G, R image of `depth` (CV_8U or CV_16U), odd sides.
  static cv::Mat random_bgr(int depth, unsigned seed) {
    cv::Mat m(29, 41, CV_MAKETYPE(depth, 3));
    cv::RNG rng(seed);
    rng.fill(m, cv::RNG::UNIFORM, 0, depth == CV_8U ? 256 : 65536);
    return m;
  }
  // `file` read by xcorr (channel `c`) equals `want` (one channel), value for value.
  static void expect_equal(const std::string& file, io::Channel c, const cv::Mat& want) {
    const auto got = io::read_image_stack(file, c);
    ASSERT_TRUE(got.is_ok()) << got.status().message();
    ASSERT_EQ(got.value().frames.rows(), want.rows);
    ASSERT_EQ(got.value().frames.cols(), want.cols);
    cv::Mat w;
    want.convertTo(w, CV_32F);
    long differ = 0;
    for (int y = 0; y < want.rows; ++y)
      for (int x = 0; x < want.cols; ++x)
        differ += got.value().frames[0](y, x) != w.at<float>(y, x);
    EXPECT_EQ(differ, 0) << file << " channel " << static_cast<int>(c);
  }
  // OpenCV's channel `c` of a B, G, R image: one of them, or cvtColor's grey.
  static cv::Mat opencv_channel(const cv::Mat& bgr, io::Channel c) {
    cv::Mat one;
    if (c == io::Channel::luminance)
      cv::cvtColor(bgr, one, cv::COLOR_BGR2GRAY);
    else
      cv::extractChannel(bgr, one, c == io::Channel::blue ? 0 : c == io::Channel::green ? 1 : 2);
    return one;
  }
};

constexpr io::Channel kChannels[] = {io::Channel::luminance, io::Channel::red, io::Channel::green,
                                     io::Channel::blue};

TEST_F(OpenCvFiles, ColourPngBmpAndJpegReadAsOpenCvReadsThem) {
  const struct {
    const char* name;
    int depth;
  } files[] = {{"c8.png", CV_8U}, {"c16.png", CV_16U}, {"c.bmp", CV_8U}, {"c.jpg", CV_8U}};
  unsigned seed = 1;
  for (const auto& f : files) {
    ASSERT_TRUE(cv::imwrite(path(f.name), random_bgr(f.depth, seed++)));
    const cv::Mat bgr = cv::imread(path(f.name), cv::IMREAD_COLOR | cv::IMREAD_ANYDEPTH);
    ASSERT_FALSE(bgr.empty());
    for (const io::Channel c : kChannels) {
      // JPEG's luminance is its stored Y, as OpenCV's grey reading gives it.
      const bool jpeg_grey = c == io::Channel::luminance && std::string(f.name) == "c.jpg";
      expect_equal(
          path(f.name), c,
          jpeg_grey ? cv::imread(path(f.name), cv::IMREAD_GRAYSCALE) : opencv_channel(bgr, c));
    }
  }
}

TEST_F(OpenCvFiles, GreyPngBmpAndJpegReadAsOpenCvReadsThem) {
  const struct {
    const char* name;
    int depth;
  } files[] = {{"g8.png", CV_8U}, {"g16.png", CV_16U}, {"g.bmp", CV_8U}, {"g.jpg", CV_8U}};
  unsigned seed = 11;
  for (const auto& f : files) {
    cv::Mat grey;
    cv::cvtColor(random_bgr(f.depth, seed++), grey, cv::COLOR_BGR2GRAY);
    ASSERT_TRUE(cv::imwrite(path(f.name), grey));
    const cv::Mat back = cv::imread(path(f.name), cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH);
    for (const io::Channel c : kChannels) expect_equal(path(f.name), c, back);
  }
}

TEST_F(OpenCvFiles, RgbTiffLuminanceIsCvtColors) {
  for (const std::uint16_t bits : {8, 16}) {
    const cv::Mat bgr = random_bgr(bits == 8 ? CV_8U : CV_16U, bits);
    testing::TiffPageSpec p{41, 29, bits, SAMPLEFORMAT_UINT, 3, 0, 5, {}};
    for (int y = 0; y < bgr.rows; ++y) {
      for (int x = 0; x < bgr.cols; ++x) {
        for (const int c : {2, 1, 0}) {  // R, G, B
          p.values.push_back(bits == 8 ? bgr.at<cv::Vec3b>(y, x)[c] : bgr.at<cv::Vec3w>(y, x)[c]);
        }
      }
    }
    testing::write_tiff(dir_ / "rgb.tif", {p});
    for (const io::Channel c : kChannels) expect_equal(path("rgb.tif"), c, opencv_channel(bgr, c));
  }
}

}  // namespace
}  // namespace xcorr
