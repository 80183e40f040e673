// The thesis' matrix CSV ("Accelerating cross-correlation with GPUs"):
//   # rows,cols,count          (count may be omitted: 1)
//   then rows*count lines of `cols` comma-separated numbers: the matrices stacked vertically.
// Values are written as the shortest decimal that reads back to the same float32 (round trip).
// Errors name the file, the line and the problem.
#pragma once

#include <filesystem>

#include "core/matrix.hpp"
#include "core/status.hpp"

namespace xcorr::io {

Result<Stack<float>> read_matrix_csv(const std::filesystem::path& path);
Status write_matrix_csv(const std::filesystem::path& path, StackView<const float> stack);

}  // namespace xcorr::io
