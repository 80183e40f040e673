// Non-finite pixels (NaN, +-Inf: after background subtraction, flat-fielding or stitching) are
// missing data, not numbers. Registration measures on the finite pixels: the missing ones take
// the mean of the finite ones, so that once each image loses its mean (phase_correlation.hpp)
// they add nothing to the cross-power spectrum; the corrected stack keeps them missing (NaN at
// the moved place). An image that cannot be registered is named with the reason.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/matrix.hpp"
#include "core/register/phase_correlation.hpp"
#include "core/status.hpp"

namespace xcorr::reg {

// Finite values of larger magnitude overflow the float32 transforms (their squares pass 1e38).
inline constexpr double kMaxRegistrableValue = 1e18;
// An image needs at least this share of finite pixels to be registered.
inline constexpr double kMinFiniteShare = 0.5;

struct MissingPixels {
  long missing = 0;  // non-finite pixels, now holding the finite mean
  std::string why;   // why the image cannot be registered; "" when it can
};

// Says whether `image` can be registered: at least kMinFiniteShare of its pixels finite, not
// flat (max > min), every finite value within kMaxRegistrableValue. `why` reads after "frame 3 ",
// e.g. "is flat (every pixel 0)".
MissingPixels check_missing(MatrixView<const float> image);

// check_missing, then (when it can be registered) the non-finite pixels take the mean of the
// finite ones.
MissingPixels fill_missing(MatrixView<float> image);

// How far (px) the weight of lack_alike rises from 0 to 1 beyond a missing pixel.
inline constexpr double kHoleTaper = 4;

// A measured pair made to lack the same content (symmetric masking): `frame`'s content lies at
// `reference`'s moved by (dx, dy) px, the measured drift (frame(x + dx, y + dy) = reference(x,
// y)). Both images' deviations from their finite means are weighed by one weight W of the
// content's position c (reference pixel c, frame pixel c + d): 0 within 1 px of a missing pixel
// of either (the frame's taken back by d), rising as a raised cosine to 1 at 1 + kHoleTaper px.
// W is sampled exactly at each image's pixels, so the pair stays one content moved by d (a hard
// edge at whole pixels would pull the peak towards whole shifts) and a hole in one no longer pulls
// the peak towards where the other's content is left whole (0.062 px on a real 128^2 channel
// with a 10 x 10 px hole, docs/registration.md). Missing pixels come out as the mean. False,
// with both left as they were, when either has under kMinFiniteShare of its pixels finite.
bool lack_alike(MatrixView<float> reference, MatrixView<float> frame, double dx, double dy);

// The mean of `image`'s finite pixels (0 when none); `missing` says whether any pixel is not.
float finite_mean(MatrixView<const float> image, char& missing);

// Marks as NaN the pixels of row r of the moved image (shift_image(original, dx, dy)) whose
// source point (x + dx, r + dy) lies within 1 px along both axes of a non-finite pixel of
// `original`: what the filled values were interpolated from is missing there.
void mark_missing_row(MatrixView<const float> original, double dx, double dy, Index r, float* row);

// Rounds of lack_alike: how many at most, and the change (px, along each axis) under which a
// shift has settled. Each round places the weight with the shift the last one found, so a hole's
// pull shrinks round by round to what the content allows. The pull shrinks by a steady factor
// (up to about 0.7 a round where the filled start was pixels off), so when two steps in a row
// point the same way the next round starts from where that geometric series ends (Aitken's
// extrapolation), and the result is always a round's measurement, never an extrapolation
// (missing_pixels_test, 16 cases: a 16 x 16 px hole in 80 x 80 px of smooth content; a start
// 2.7 px off took more than the 4 rounds allowed before 2026-11-28 and ended 0.6 px off).
inline constexpr int kLackAlikeRounds = 10;
inline constexpr double kLackAlikeSettled = 0.005;

// Measures finite pairs: shift k of frames[k] against references[k].
using MeasurePairs =
    std::function<Result<std::vector<Shift>>(const std::vector<const Stack<float>*>& frames,
                                             const std::vector<const Stack<float>*>& references)>;

// The pairs (frames[k] against references[k], as read: missing pixels NaN) of which either lacks
// pixels, measured again lacking alike (lack_alike with shifts[k]) until each shift settles:
// shifts[k] (found on the filled pair) is replaced by each round's finite shift with a peak.
// Pairs that lack nothing, or whose shift is not finite, are left as they are.
Status measure_lacking_alike(const std::vector<const Stack<float>*>& frames,
                             const std::vector<const Stack<float>*>& references,
                             std::vector<Shift>& shifts, const MeasurePairs& measure);

}  // namespace xcorr::reg
