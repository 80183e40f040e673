#include "tests/support/correlation_cases.hpp"

#include <functional>

#include "core/peak.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::testing {

std::string case_name(const Case& c) {
  std::string name = std::string(to_string(c.form)) + "_" + to_string(c.mode) + "_" +
                     to_string(c.norm) + "_" + std::to_string(c.n_left) + "x" + to_string(c.left) +
                     "_" + std::to_string(c.n_right) + "x" + to_string(c.right);
  if (c.output == Output::peak) name += std::string("_peak_") + to_string(c.subpixel);
  return name;
}

std::vector<Case> all_cases() {
  struct Counts {
    Form form;
    Index n_left, n_right;
  };
  const Counts many[] = {{Form::one_to_one, 1, 1},
                         {Form::one_to_many, 1, 3},
                         {Form::n_to_mn, 2, 4},
                         {Form::n_to_m, 2, 3}};
  const Counts few[] = {{Form::one_to_one, 1, 1},
                        {Form::one_to_many, 1, 2},
                        {Form::n_to_mn, 2, 2},
                        {Form::n_to_m, 1, 2}};
  std::vector<Case> cases;
  // full: 1x1, 1xN, Nx1, odd, prime, non-square, 10x10, 64x64, 128x128
  for (Shape s : {Shape{1, 1}, Shape{1, 9}, Shape{9, 1}, Shape{5, 9}, Shape{13, 13}, Shape{10, 10},
                  Shape{31, 17}, Shape{64, 64}, Shape{128, 128}}) {
    for (const Counts& c : (s.area() >= 64 * 64 ? few : many)) {
      cases.push_back({c.form, Mode::full, Normalization::none, s, s, c.n_left, c.n_right});
    }
  }
  // valid: (template, search window)
  const std::pair<Shape, Shape>
      valid[] = {{{1, 1}, {1, 1}},    {{1, 1}, {5, 7}},     {{1, 5}, {3, 17}},
                 {{3, 5}, {17, 13}},  {{10, 10}, {10, 10}}, {{17, 3}, {20, 50}},
                 {{7, 13}, {64, 61}}, {{13, 13}, {64, 64}}, {{31, 31}, {128, 128}},
                 {{9, 7}, {200, 170}}};  // the last: several overlap-save tiles in cpu_fft
  for (const auto& [t, w] : valid) {
    for (Normalization n : {Normalization::none, Normalization::zncc}) {
      if (n == Normalization::zncc && t.area() == 1) continue;  // a 1x1 template is always flat
      for (const Counts& c : (w.area() >= 64 * 64 ? few : many))
        cases.push_back({c.form, Mode::valid, n, t, w, c.n_left, c.n_right});
    }
  }
  return cases;
}

// ZNCC data as in template matching, on a 12-bit-like scale (large mean, which exercises the
// precision of the normalisation): every left is a noisy copy of one base pattern, every right
// window holds a scaled, offset, noisy copy of it at a random place. So every result has a real
// peak; ZNCC of unrelated patches is ~0, where a relative bound means nothing (see above).
Stack<float> base_pattern(Shape s, std::uint64_t stream) {
  return random_stack(s.rows, s.cols, 1, stream + 7, 0.0f, 4096.0f);
}

Stack<float> noisy_copies_of_pattern(Shape s, Index count, std::uint64_t stream) {
  const Stack<float> base = base_pattern(s, stream);
  Stack<float> out = random_stack(s.rows, s.cols, count, stream + 8, -600.0f, 600.0f);
  for (Index i = 0; i < count; ++i) {
    for (Index r = 0; r < s.rows; ++r) {
      for (Index k = 0; k < s.cols; ++k) out[i](r, k) += base[0](r, k);
    }
  }
  return out;
}

Stack<float> windows_containing_pattern(Shape t, Shape w, Index count, std::uint64_t stream) {
  const Stack<float> base = base_pattern(t, stream);
  Stack<float> out = random_stack(w.rows, w.cols, count, stream + 9, 0.0f, 4096.0f);
  const Stack<float> noise = random_stack(t.rows, t.cols, count, stream + 10, -600.0f, 600.0f);
  const Stack<float> where = random_stack(2, 1, count, stream + 11, 0.0f, 1.0f);
  for (Index i = 0; i < count; ++i) {
    const auto r0 = static_cast<Index>(where[i](0, 0) * static_cast<float>(w.rows - t.rows + 1)) %
                    (w.rows - t.rows + 1);
    const auto c0 = static_cast<Index>(where[i](1, 0) * static_cast<float>(w.cols - t.cols + 1)) %
                    (w.cols - t.cols + 1);
    for (Index r = 0; r < t.rows; ++r) {
      for (Index k = 0; k < t.cols; ++k)
        out[i](r0 + r, c0 + k) = 0.8f * base[0](r, k) + 300.0f + noise[i](r, k);
    }
  }
  return out;
}

std::vector<Case> gpu_cases() {
  std::vector<Case> cases = all_cases();
  for (Shape s : {Shape{200, 200}, Shape{257, 257}, Shape{511, 511}, Shape{300, 129}}) {
    cases.push_back({Form::one_to_one, Mode::full, Normalization::none, s, s, 1, 1});
  }
  cases.push_back({Form::one_to_many, Mode::full, Normalization::none, {97, 97}, {97, 97}, 1, 5});
  cases.push_back({Form::n_to_m, Mode::full, Normalization::none, {100, 100}, {100, 100}, 2, 3});
  cases.push_back({Form::n_to_mn, Mode::full, Normalization::none, {33, 33}, {33, 33}, 64, 128});
  cases.push_back({Form::n_to_mn, Mode::full, Normalization::none, {21, 21}, {21, 21}, 300, 300});
  for (Normalization n : {Normalization::none, Normalization::zncc}) {
    cases.push_back({Form::one_to_many, Mode::valid, n, {41, 41}, {300, 257}, 1, 2});
    cases.push_back({Form::n_to_mn, Mode::valid, n, {21, 21}, {41, 41}, 100, 100});
  }
  return cases;
}

std::vector<Case> zncc_only(const std::vector<Case>& cases) {
  std::vector<Case> z;
  for (const Case& c : cases) {
    if (c.norm == Normalization::zncc) z.push_back(c);
  }
  return z;
}

std::vector<Case> as_peak_cases(const std::vector<Case>& cases) {
  const SubpixelMethod methods[] = {SubpixelMethod::quadratic2d, SubpixelMethod::parabolic,
                                    SubpixelMethod::gaussian, SubpixelMethod::none};
  std::vector<Case> peaks;
  for (Case c : cases) {
    if (c.mode != Mode::valid) continue;
    c.output = Output::peak;
    c.subpixel = methods[peaks.size() % 4];
    peaks.push_back(c);
  }
  return peaks;
}

CaseData make_case_data(const Case& c) {
  const std::uint64_t stream = std::hash<std::string>{}(case_name(c));
  // Non-negative, image-like data: sums of products do not cancel, so a relative error bound is
  // meaningful. (On zero-mean data an output can land arbitrarily close to 0 and no float32
  // method meets a relative bound there: a 1x1 result of a 10x10 valid case once read 1.2e-5.)
  if (c.norm == Normalization::zncc) {
    return {noisy_copies_of_pattern(c.left, c.n_left, stream),
            windows_containing_pattern(c.left, c.right, c.n_right, stream)};
  }
  return {random_stack(c.left.rows, c.left.cols, c.n_left, stream, 0.0f, 1.0f),
          random_stack(c.right.rows, c.right.cols, c.n_right, stream + 1, 0.0f, 1.0f)};
}

}  // namespace xcorr::testing
