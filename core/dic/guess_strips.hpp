// Strips of integer-guess points for the GPU's shared-column search (gpu/dic_guess_strips.cu).
// A strip is a run of consecutive guesses whose subsets share one row of the reference (equal
// centre y, x increasing): their S x S subsets cover one S-row band, so the products of the band
// with the frame, summed down each column, serve every point whose subset holds that column
// (about S / step points at a grid step), where a search per point sums every subset alone.
// The block of a strip keeps in shared memory the band (S x width), the frame's region that
// every point's window lies in (width + ex - 1 columns, S + ey - 1 rows, padded), the column
// sums of one chunk of kStripRows x kStripCols displacements, and the frame's column and window
// sums for kStripRows displacement rows; strip_smem_bytes is that layout's size, which the
// kernel mirrors.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace xcorr::dic {

// The strip search's name as a guess method (`--method`; what `auto` runs on the GPU with the
// fast accuracy). Not a correlation variant of the engine: the GPU DIC path's own.
inline constexpr std::string_view kStripGuessMethod = "gpu_guess_strips";

// One point's search, in pixels: subset centre (x, y) in the reference (integral, the subset
// inside it) and the origin (wx, wy) of its window x window search window in the frame (inside
// it). Its displacements are (wx - (x - S/2), wy - (y - S/2)) + [0, window - S] in each axis.
struct GuessWindow {
  int x = 0, y = 0;
  int wx = 0, wy = 0;
};

// Guesses [first, first + count) (at most kStripMaxPoints); ox, oy: the smallest displacement of
// any of them (px), ex x ey: the displacements that cover all of theirs.
struct GuessStrip {
  int first = 0, count = 0;
  int ox = 0, oy = 0;
  int ex = 0, ey = 0;
};

inline constexpr int kStripMaxPoints = 32;
// Displacements per chunk: rows (registers per thread) and columns; 7 x 7: three chunks cover
// the 21 of the default search radius (10 px) without padding.
inline constexpr int kStripRows = 7;
inline constexpr int kStripCols = 7;
inline constexpr int kStripThreads = 256;
// How many px a strip's displacements may span beyond one window's (plan_strips' max_span).
inline constexpr int kStripSpan = 8;

// Shared memory of a strip block (bytes): subset S px, band width px (last x - first x + S),
// ex x ey displacements.
std::size_t strip_smem_bytes(int subset, int width, int ex, int ey);

// Appends to `out` the strips of guesses g[first, last): a strip grows while the next guess has
// the same y and a larger x, it holds fewer than kStripMaxPoints points, its displacements span
// at most `max_span` px more than one window's (window - subset + 1) in each axis, and its
// shared memory stays within `budget` bytes. Returns false (out unchanged beyond what it had) if
// one point alone does not fit in `budget`.
bool plan_strips(const GuessWindow* g, int first, int last, int subset, int window,
                 std::size_t budget, int max_span, std::vector<GuessStrip>& out);

}  // namespace xcorr::dic
