#include "core/io/peaks_csv.hpp"

#include <cstdio>

#include "core/io/atomic_write.hpp"
#include "core/peak.hpp"
#include "core/version.hpp"

namespace xcorr::io {

Status write_peaks_csv(const std::filesystem::path& path, const CorrelationProblem& p,
                       StackView<const float> records, const std::string& variant) {
  XCORR_CHECK(records.cols == kPeakFields && records.count == p.output_count(),
              "write_peaks_csv: one peak record per result");
  std::string text = std::string("# xcorr peaks\n# software: xcorr ") + kVersion +
                     "\n# request: " + to_string(p.request.form) + ", " +
                     to_string(p.request.mode) + " mode, " + to_string(p.request.norm) +
                     ", refinement " + to_string(p.request.subpixel) + ", variant " + variant +
                     "\n# units: row, col = integer maximum (template top-left in the window, px); "
                     "sub_row, sub_col = refined (px); value = surface value there\n"
                     "result,left,right,row,col,value,sub_row,sub_col,fit\n";
  char buf[200];
  for (Index t = 0; t < records.count; ++t) {
    const Peak k = decode_peak(records[t].row(0));
    const auto [li, ri] = p.pair(t);
    std::snprintf(buf, sizeof buf, "%ld,%ld,%ld,%ld,%ld,%.9g,%.6f,%.6f,%s\n", static_cast<long>(t),
                  static_cast<long>(li), static_cast<long>(ri), static_cast<long>(k.row),
                  static_cast<long>(k.col), k.value, k.sub_row(), k.sub_col(),
                  k.refined ? to_string(k.used) : "none");
    text += buf;
  }
  return write_text_atomically(path, text);
}

}  // namespace xcorr::io
