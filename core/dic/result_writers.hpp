// DIC result writers, chosen by the output file's extension: a new output format is one writer
// file plus one entry in result_writers() (today: CSV, core/dic/results_csv.hpp). Every front end
// (xcorr dic, xcorr run, the desktop app's export and batch dialog) checks and writes through
// these functions, so the accepted extensions are named in one place.
#pragma once

#include <string>
#include <vector>

#include "core/dic/results_csv.hpp"

namespace xcorr::dic {

struct ResultWriter {
  std::string name;                     // e.g. "CSV"
  std::vector<std::string> extensions;  // lower case with the dot, e.g. ".csv"
  // The whole result in one file at `path`.
  Status (*write)(const std::filesystem::path& path, const DicResult& r, const CsvContext& c);
  // One file per frame next to `path` (<stem>_frame0001<ext>, ...); the paths written.
  Result<std::vector<std::filesystem::path>> (*write_per_frame)(const std::filesystem::path& path,
                                                                const DicResult& r,
                                                                const CsvContext& c);
};

// Every registered writer.
const std::vector<ResultWriter>& result_writers();

// The writer for an output path by its extension (case-insensitive); invalid_argument naming
// the path and the extensions that are accepted otherwise.
Result<const ResultWriter*> writer_for(const std::string& path);

// Writes `r` to `path` (one file, or one per frame) through its writer; the files written.
Result<std::vector<std::string>> write_results(const std::string& path, bool per_frame,
                                               const DicResult& r, const CsvContext& c);

}  // namespace xcorr::dic
