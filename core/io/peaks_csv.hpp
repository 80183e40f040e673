// Peak output as CSV (`xcorr correlate --output peak`): '#' header lines (software, request,
// units), then one row per result: result,left,right,row,col,value,sub_row,sub_col,fit
// (row, col: the integer maximum of the valid-mode surface, the template's top-left corner in
// the window, px; sub_row, sub_col: refined position, px; fit: the refinement used, or "none"
// when not refined). Written atomically.
#pragma once

#include <filesystem>
#include <string>

#include "core/correlation.hpp"

namespace xcorr::io {

Status write_peaks_csv(const std::filesystem::path& path, const CorrelationProblem& p,
                       StackView<const float> records, const std::string& variant);

}  // namespace xcorr::io
