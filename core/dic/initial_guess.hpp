// Initial guess through the correlation engine: one n_to_mn peak request (valid mode, ZNCC, the
// maximum per pair without refinement; core/correlation.hpp), whose templates are the reference
// subsets and whose windows are (subset + 2 R)^2 regions of the deformed image around each
// predicted position (clamped into the image). The engine's dispatcher picks the variant (the
// GPU when present; fused peak search where a variant has one); batches of at most 8192 points.
// Each integer maximum is then refined to IC-GN's sub-pixel start (core/dic/guess_fit.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/correlation.hpp"
#include "core/registry.hpp"

namespace xcorr::dic {

struct GuessRequest {
  Index x = 0, y = 0;    // px, subset centre in the reference image (integer)
  Index px = 0, py = 0;  // px, predicted displacement (search window centre offset)
};

struct IntegerGuess {
  Index u = 0, v = 0;     // px, the ZNCC's integer maximum
  double du = 0, dv = 0;  // px, fit_guess's offsets from it (|du|, |dv| <= 1; 0: not refined)
  double zncc = 0;        // the value at (u, v)
};

struct GuessOutput {
  std::vector<IntegerGuess> guesses;  // one per request
  std::string variant;                // the correlation variant that ran
};

// The search window's side (px) in images of rows x cols px: the subset plus the search radius
// each way, the radius reduced to fit.
int guess_window(int subset, int radius, Index rows, Index cols);

// The shape of one engine call of the guess, `count` points (what the dispatcher looks at).
CorrelationProblem guess_shape(Index count, int subset, int window, Accuracy accuracy);

// The method a frame's guess runs with, for `points` points in images of rows x cols px, in
// engine calls of at most `batch` points: `method` with `auto` resolved for one full call, as
// "name" or "name:param=value,..." (one variant for the whole frame, whatever part of it a
// registrar is given). `device`: restricts auto to "cpu" or "gpu" variants ("": either).
Result<std::string> frame_guess_method(const Registry& r, std::string_view method,
                                       Accuracy accuracy, Index rows, Index cols, int subset,
                                       int radius, Index points, Index batch,
                                       std::string_view device = {});

// Points per engine call of integer_guess.
inline constexpr Index kGuessCallPoints = 8192;

// `method`: auto, a variant's name, or a configured one ("name:param=value,...").
// Subsets must lie inside the reference; the deformed image must be at least subset + 2 R in
// both directions (R is reduced to fit otherwise).
// `accuracy`: what the method's auto may pick (core/correlation.hpp).
Result<GuessOutput> integer_guess(const Registry& r, std::string_view method, Accuracy accuracy,
                                  MatrixView<const float> ref, MatrixView<const float> def,
                                  const std::vector<GuessRequest>& requests, int subset,
                                  int radius);

}  // namespace xcorr::dic
