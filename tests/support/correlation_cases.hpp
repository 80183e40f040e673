// The correctness case list shared by the CPU and GPU variant tests, and its data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/correlation.hpp"

namespace xcorr::testing {

struct Case {
  Form form;
  Mode mode;
  Normalization norm;
  Shape left, right;
  Index n_left, n_right;
  Output output = Output::surface;
  SubpixelMethod subpixel = SubpixelMethod::quadratic2d;  // peak output
};

std::string case_name(const Case& c);

// Every form x mode/normalisation x size: 1x1, 1xN, Nx1, odd, prime, non-square, 10x10, 64x64,
// 128x128 (full); templates from 1x1 to 31x31 in windows up to 200x170 (valid, none and zncc).
std::vector<Case> all_cases();
// all_cases() plus sizes the GPU is for: up to 511x511, not multiples of 32.
std::vector<Case> gpu_cases();
std::vector<Case> zncc_only(const std::vector<Case>& cases);
// The valid-mode cases of `cases` as peak requests, the refinement cycling through every method.
std::vector<Case> as_peak_cases(const std::vector<Case>& cases);

// Fresh seeded data for a case, and its problem.
struct CaseData {
  Stack<float> left, right;
  CorrelationProblem problem(const Case& c) const {
    return {{c.form, c.mode, c.norm, c.output, c.subpixel}, left.view(), right.view()};
  }
};
CaseData make_case_data(const Case& c);

}  // namespace xcorr::testing
