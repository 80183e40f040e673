#include "core/dic/result_writers.hpp"

#include "core/io/extension.hpp"

namespace xcorr::dic {

const std::vector<ResultWriter>& result_writers() {
  static const std::vector<ResultWriter> writers{
      {"CSV", {".csv"}, &write_dic_csv, &write_dic_csv_per_frame}};
  return writers;
}

Result<const ResultWriter*> writer_for(const std::string& path) {
  const std::string ext = io::lowercase_extension(path);
  std::string accepted;
  for (const ResultWriter& w : result_writers()) {
    for (const std::string& e : w.extensions) {
      if (e == ext) return &w;
      accepted += (accepted.empty() ? "" : ", ") + e;
    }
  }
  return Status{ErrorCode::invalid_argument,
                "output '" + path + "' must end in " + accepted + " (the result formats)"};
}

Result<std::vector<std::string>> write_results(const std::string& path, bool per_frame,
                                               const DicResult& r, const CsvContext& c) {
  auto writer = writer_for(path);
  if (!writer.is_ok()) return writer.status();
  std::vector<std::string> written;
  if (per_frame) {
    auto files = writer.value()->write_per_frame(path, r, c);
    if (!files.is_ok()) return files.status();
    for (const auto& f : files.value()) written.push_back(f.string());
  } else {
    XCORR_RETURN_IF_ERROR(writer.value()->write(path, r, c));
    written.push_back(path);
  }
  return written;
}

}  // namespace xcorr::dic
