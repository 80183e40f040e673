// Integer-pixel initial guess through the correlation engine: one n_to_mn peak request (valid
// mode, ZNCC, the maximum per pair without refinement; core/correlation.hpp), whose templates are
// the reference subsets and whose windows are (subset + 2 R)^2 regions of the deformed image
// around each predicted position (clamped into the image). The engine's dispatcher picks the
// variant (the GPU when present; fused peak search where a variant has one); batches of at most
// 8192 points.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/registry.hpp"

namespace xcorr::dic {

struct GuessRequest {
  Index x = 0, y = 0;    // px, subset centre in the reference image (integer)
  Index px = 0, py = 0;  // px, predicted displacement (search window centre offset)
};

struct IntegerGuess {
  Index u = 0, v = 0;  // px
  double zncc = 0;     // peak value
};

struct GuessOutput {
  std::vector<IntegerGuess> guesses;  // one per request
  std::string variant;                // the correlation variant that ran
};

// Subsets must lie inside the reference; the deformed image must be at least subset + 2 R in
// both directions (R is reduced to fit otherwise).
// `accuracy`: what the method's auto may pick (core/correlation.hpp).
Result<GuessOutput> integer_guess(const Registry& r, std::string_view method, Accuracy accuracy,
                                  MatrixView<const float> ref, MatrixView<const float> def,
                                  const std::vector<GuessRequest>& requests, int subset,
                                  int radius);

}  // namespace xcorr::dic
