#include "core/correlation.hpp"

#include <algorithm>
#include <cmath>

#include "core/missing_data.hpp"

namespace xcorr {
namespace {

Status count_error(const CorrelationProblem& p, const std::string& need) {
  return {ErrorCode::size_mismatch, std::string(to_string(p.request.form)) + " needs " + need +
                                        "; got " + std::to_string(p.left.count) + " left and " +
                                        std::to_string(p.right.count) + " right"};
}

}  // namespace

const char* to_string(Form f) {
  return label(f);
}
const char* to_string(Mode m) {
  return label(m);
}
const char* to_string(Normalization n) {
  return label(n);
}
const char* to_string(Output o) {
  return label(o);
}
const char* to_string(Accuracy a) {
  return label(a);
}
std::optional<Form> parse_form(std::string_view s) {
  return parse_label<Form>(s);
}
std::optional<Mode> parse_mode(std::string_view s) {
  return parse_label<Mode>(s);
}
std::optional<Normalization> parse_normalization(std::string_view s) {
  return parse_label<Normalization>(s);
}
std::optional<Output> parse_output(std::string_view s) {
  return parse_label<Output>(s);
}
std::optional<Accuracy> parse_accuracy(std::string_view s) {
  return parse_label<Accuracy>(s);
}

Shape CorrelationProblem::output_shape() const {
  if (request.output == Output::peak) return {1, kPeakFields};
  return surface_shape();
}

Shape CorrelationProblem::surface_shape() const {
  if (request.mode == Mode::full) return {left.rows + right.rows - 1, left.cols + right.cols - 1};
  return {right.rows - left.rows + 1, right.cols - left.cols + 1};
}

Index CorrelationProblem::output_count() const {
  switch (request.form) {
    case Form::one_to_one:
      return 1;
    case Form::one_to_many:
    case Form::n_to_mn:
      return right.count;
    case Form::n_to_m:
      return left.count * right.count;
  }
  return 0;
}

std::pair<Index, Index> CorrelationProblem::pair(Index t) const {
  switch (request.form) {
    case Form::one_to_one:
      return {0, 0};
    case Form::one_to_many:
      return {0, t};
    case Form::n_to_mn:
      return {t % left.count, t};
    case Form::n_to_m:
      return {t / right.count, t % right.count};
  }
  return {0, 0};
}

double CorrelationProblem::direct_multiply_adds() const {
  const double n = static_cast<double>(output_count());
  if (request.mode == Mode::full) {
    // Every (left element, right element) pair meets exactly once across all shifts.
    return n * static_cast<double>(left.rows * left.cols) *
           static_cast<double>(right.rows * right.cols);
  }
  return n * static_cast<double>(surface_shape().area()) *
         static_cast<double>(left.rows * left.cols);
}

Status CorrelationProblem::validate() const {
  if (left.count < 1) return {ErrorCode::invalid_argument, "the left input is empty (no matrices)"};
  if (right.count < 1)
    return {ErrorCode::invalid_argument, "the right input is empty (no matrices)"};
  if (left.rows < 1 || left.cols < 1) {
    return {ErrorCode::invalid_argument,
            "the left matrices are empty (" + to_string(left.shape()) + ")"};
  }
  if (right.rows < 1 || right.cols < 1) {
    return {ErrorCode::invalid_argument,
            "the right matrices are empty (" + to_string(right.shape()) + ")"};
  }
  switch (request.form) {
    case Form::one_to_one:
      if (left.count != 1 || right.count != 1)
        return count_error(*this, "1 left and 1 right matrix");
      break;
    case Form::one_to_many:
      if (left.count != 1)
        return count_error(*this, "1 left matrix and any number of right matrices");
      break;
    case Form::n_to_mn:
      if (right.count % left.count != 0) {
        return count_error(*this,
                           "n left and n*m right matrices (right count a multiple of left count)");
      }
      break;
    case Form::n_to_m:
      break;
  }
  if (request.mode == Mode::full) {
    if (left.shape() != right.shape()) {
      return {ErrorCode::size_mismatch,
              "full mode needs left and right matrices of equal size; left is " +
                  to_string(left.shape()) + ", right is " + to_string(right.shape())};
    }
    if (request.norm == Normalization::zncc) {
      return {ErrorCode::unsupported,
              "zncc normalization needs valid mode (template inside a search window)"};
    }
    if (request.output == Output::peak) {
      return {ErrorCode::unsupported,
              "peak output needs valid mode (template inside a search window)"};
    }
  } else if (left.rows > right.rows || left.cols > right.cols) {
    return {ErrorCode::size_mismatch, "the template (left, " + to_string(left.shape()) +
                                          ") is larger than the search window (right, " +
                                          to_string(right.shape()) + ")"};
  }
  return Status::ok();
}

Status check_finite(StackView<const float> s, std::string_view name) {
  // One image: first whether every value is finite (all_finite); then, only if not, where the
  // first one is.
  if (s.count == 1 && all_finite(s[0])) return Status::ok();
  for (Index i = 0; i < s.count; ++i) {
    const MatrixView<const float> m = s[i];
    for (Index r = 0; r < m.rows; ++r) {
      const float* row = m.row(r);
      bool finite = true;  // the whole row at once (vectorised), then where, only if needed
      for (Index c = 0; c < m.cols; ++c) finite &= std::isfinite(row[c]);
      if (finite) continue;
      for (Index c = 0; c < m.cols; ++c) {
        if (!std::isfinite(row[c])) {
          return {ErrorCode::invalid_argument,
                  std::string(name) + " matrix " + std::to_string(i) + " has a " +
                      (std::isnan(row[c]) ? "NaN" : "infinite value") + " at row " +
                      std::to_string(r) + ", column " + std::to_string(c)};
        }
      }
    }
  }
  return Status::ok();
}

Displacement output_position_to_displacement(const CorrelationProblem& p, double row, double col) {
  if (p.request.mode == Mode::full) {
    return {row - static_cast<double>(p.left.rows - 1), col - static_cast<double>(p.left.cols - 1)};
  }
  return {row, col};
}

}  // namespace xcorr
