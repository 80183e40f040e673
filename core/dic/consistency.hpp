// The consistency check of independent points (docs/dic.md): each converged grid neighbour
// (8-neighbourhood, at least one) predicts the point's displacement with its own warp
// (u + ux dx + uy dy at the offset); a converged point further than max_deviation px in u or v
// from the median prediction is a suspect. DicSession registers the suspects again,
// started from their neighbours' median warp with a 1 px integer search (as reliability-guided
// propagation starts from a neighbour); a suspect that then converges within max_deviation of
// that median keeps the new result, one whose match leaves the image is outside_image, the
// others are `inconsistent`. Every neighbour predicts a field linear over the neighbourhood
// exactly, at the grid's edges too, so strain alone never makes a suspect.
#pragma once

#include <vector>

#include "core/dic/grid.hpp"
#include "core/dic/icgn.hpp"

namespace xcorr::dic {

struct Suspect {
  std::size_t index = 0;  // grid point
  Warp median{};          // the neighbours' median prediction (u, v) and gradients
};

// Converged points none of whose registered grid neighbours (8-neighbourhood, at least one)
// converged: nothing confirms them, and a lone match among failures is where a search window
// clamped into the image finds a wrong peak (its true match past the border). Reported
// inconsistent.
std::vector<std::size_t> find_isolated(const Grid& grid, const std::vector<char>& active,
                                       const std::vector<IcgnResult>& points);

// Converged points whose ZNCC is an outlier for the frame: 1 - ZNCC above both
// kZnccOutlierFactor x the median of the active converged points' 1 - ZNCC and kZnccOutlierFloor.
// A false match can pass min_zncc (smoothed speckle correlates by chance: two adjacent false
// matches at ZNCC 0.62 confirmed each other on the consistency test's seed
// 12109977308375779237, where the median 1 - ZNCC was about 0.003); reported inconsistent.
constexpr double kZnccOutlierFactor = 10, kZnccOutlierFloor = 0.05;
// The k-th smallest of `values` (k < size, no NaN): std::nth_element's value, found over
// the host's threads for large inputs (a bucket count of the values' top bits, then the k-th
// value's bucket alone).
double kth_smallest(std::vector<double> values, std::size_t k);
std::vector<std::size_t> find_zncc_outliers(const std::vector<char>& active,
                                            const std::vector<IcgnResult>& points);

// cx, cy: the points' positions in the current reference (px); active: the points registered.
// Whether a converged point's match lies outside its integer search range (radius px around the
// rounded prediction, with 1.5 px for IC-GN's own travel): only where the search window reached
// past the image and was moved into it, so the peak came from the part the range did not ask
// for. Such a point is reported outside_image (its true match is beyond the image, or hidden by
// the wrong peak); the window is never trusted where it was clamped.
bool beyond_search(const IcgnResult& r, const Warp& predicted, int radius);

std::vector<Suspect> find_suspects(const Grid& grid, const std::vector<double>& cx,
                                   const std::vector<double>& cy, const std::vector<char>& active,
                                   const std::vector<IcgnResult>& points, double max_deviation);

}  // namespace xcorr::dic
