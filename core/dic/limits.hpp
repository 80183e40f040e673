// Upper bounds of a DIC job, derived from its images and checked before any work (every front
// end, through DicSession::create): a size option past them would run for hours or for ever
// (a 99999-point strain window costs window^2 cells per point) and is refused with a message
// that names the option, its value and its bound.
#pragma once

#include "core/dic/grid.hpp"
#include "core/dic/options.hpp"
#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr::dic {

// The integer guess of one frame may cost at most this many multiply-adds (points x (2R+1)^2
// x subset^2): about 90 s on an H200 at 11 T/s and hours on a desktop CPU.
inline constexpr double kMaxGuessMultiplyAdds = 1e15;

// search_radius <= the image's larger side; strain_window <= the grid's larger side (at least
// 3, the smallest window); the guess's work <= kMaxGuessMultiplyAdds.
Status check_size_limits(const DicOptions& o, Shape image, const Grid& grid);

}  // namespace xcorr::dic
