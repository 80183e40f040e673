// The correlation request and problem: forms, modes, normalisation, result ordering.
//
// Definitions (L = left, R = right; all matrices in a stack share one shape):
//  - full mode, left and right both h x w, output (2h-1) x (2w-1):
//      out[r][c] = sum_{i,j} L[i][j] * R[i - dy][j - dx],  dy = r - (h-1), dx = c - (w-1)
//    which equals scipy.signal.correlate2d(L, R, 'full'). A right matrix that is the left one
//    moved by (+y, +x) px peaks at dy = -y, dx = -x; zero shift sits at (h-1, w-1).
//  - valid mode, left = template (h x w), right = search window (H x W), output
//    (H-h+1) x (W-w+1):
//      out[k][l] = sum_{i,j} T[i][j] * S[k + i][l + j]
//    (OpenCV matchTemplate(S, T, TM_CCORR)); the peak is the template's top-left corner in S.
//  - zncc (valid mode only): zero-normalised cross-correlation in [-1, 1], equal to OpenCV's
//    TM_CCOEFF_NORMED. A flat template or window (variance ~ 0) gives 0.
// Result ordering (exactly as the thesis' tools):
//  - one_to_one:  1 left, 1 right, 1 result.
//  - one_to_many: 1 left, m rights; result i = (left, right_i).
//  - n_to_mn:     n lefts, n*m rights; result t = (left[t mod n], right[t]).
//  - n_to_m:      n lefts, m rights; result r*m + t = (left_r, right_t).
// Output (what each result is):
//  - surface: the whole correlation matrix, as above.
//  - peak (valid mode only): the surface's maximum and its sub-pixel refinement, one record of
//    kPeakFields floats per result (core/peak_fit.hpp), so output_shape() is 1 x kPeakFields.
//    Variants that fuse the search never write the surface to memory.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/enum_labels.hpp"
#include "core/matrix.hpp"
#include "core/peak_fit.hpp"
#include "core/status.hpp"

namespace xcorr {

enum class Form { one_to_one, one_to_many, n_to_mn, n_to_m };
enum class Mode { full, valid };
enum class Normalization { none, zncc };
enum class Output { surface, peak };
// What `auto` may pick (docs/formats.md, "Accuracy"): fast = the fastest variant (FFT paths'
// errors are relative to the output's largest magnitude); exact = only variants that compute
// each output element as its own sum, which meet |a - b| / max(|a|, |b|) <= 1e-4 per element
// on nonnegative inputs (the thesis' metric; 0 where both magnitudes are <= 1e-5).
enum class Accuracy { fast, exact };

template <>
struct EnumLabels<Form> {
  static constexpr std::pair<Form, const char*> table[] = {{Form::one_to_one, "one_to_one"},
                                                           {Form::one_to_many, "one_to_many"},
                                                           {Form::n_to_mn, "n_to_mn"},
                                                           {Form::n_to_m, "n_to_m"}};
};
template <>
struct EnumLabels<Mode> {
  static constexpr std::pair<Mode, const char*> table[] = {{Mode::full, "full"},
                                                           {Mode::valid, "valid"}};
};
template <>
struct EnumLabels<Normalization> {
  static constexpr std::pair<Normalization, const char*> table[] = {{Normalization::none, "none"},
                                                                    {Normalization::zncc, "zncc"}};
};
template <>
struct EnumLabels<Output> {
  static constexpr std::pair<Output, const char*> table[] = {{Output::surface, "surface"},
                                                             {Output::peak, "peak"}};
};
template <>
struct EnumLabels<Accuracy> {
  static constexpr std::pair<Accuracy, const char*> table[] = {{Accuracy::fast, "fast"},
                                                               {Accuracy::exact, "exact"}};
};

const char* to_string(Form f);
const char* to_string(Mode m);
const char* to_string(Normalization n);
const char* to_string(Output o);
const char* to_string(Accuracy a);
std::optional<Form> parse_form(std::string_view s);
std::optional<Mode> parse_mode(std::string_view s);
std::optional<Normalization> parse_normalization(std::string_view s);
std::optional<Output> parse_output(std::string_view s);
std::optional<Accuracy> parse_accuracy(std::string_view s);

struct CorrelationRequest {
  Form form = Form::one_to_one;
  Mode mode = Mode::full;
  Normalization norm = Normalization::none;
  Output output = Output::surface;
  SubpixelMethod subpixel = SubpixelMethod::none;  // peak output: the refinement
  Accuracy accuracy = Accuracy::fast;              // which variants auto may pick
};

struct CorrelationProblem {
  CorrelationRequest request;
  StackView<const float> left;
  StackView<const float> right;

  // Each result's shape: the surface, or 1 x kPeakFields for peak output.
  Shape output_shape() const;
  // The correlation surface's shape, whatever the output.
  Shape surface_shape() const;
  Index output_count() const;
  // Which (left index, right index) output t correlates.
  std::pair<Index, Index> pair(Index t) const;
  // Multiply-adds of the direct definition summed over all results' surfaces (for GFLOP/s and
  // models).
  double direct_multiply_adds() const;

  // Shapes, counts and option combinations; names the problem. Does not read pixel values.
  Status validate() const;
};

// Every value finite; otherwise names the stack, matrix, row and column of the first bad value.
Status check_finite(StackView<const float> s, std::string_view name);

// Displacement (px) that a (sub-pixel) output position stands for:
// full mode: (dy, dx) as defined above; valid mode: template top-left position in the window.
struct Displacement {
  double dy = 0;
  double dx = 0;
};
Displacement output_position_to_displacement(const CorrelationProblem& p, double row, double col);

}  // namespace xcorr
