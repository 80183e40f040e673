// A registration job: the stack, the outputs and the options, as `xcorr register` takes them and
// as a job in a batch file ({"type": "register", "name", "stack", "out", "drift", options...};
// docs/registration.md). Parsing is strict: unknown keys, wrong types and bad values are refused
// with the key named. Relative paths are resolved against the file's folder.
#pragma once

#include <filesystem>
#include <string>

#include "core/io/output_rules.hpp"
#include "core/register/options.hpp"

namespace xcorr::reg {

struct RegisterJob {
  std::string name;   // shown in batch progress (optional)
  std::string stack;  // a multi-page TIFF, hyperstack or folder
  std::string out;    // the corrected stack (.tif); empty: not written
  std::string drift;  // the drift CSV; empty: not written
  // A saved drift table to apply (nothing measured): the corrected stack `out` of `stack` moved
  // by it; its frame count must be the stack's.
  std::string apply;
  RegisterOptions options;
  // Options, at least one output, and the output rule (core/io/output_rules.hpp) for its stack,
  // outputs and resume folder.
  Status check() const;
};

// Where an interrupted run's measured frames are kept: <drift or out>.partial.
std::string partial_folder(const RegisterJob& job);
// The job's identity in that folder: its settings and the stack file's size and modification
// time (a run resumes only the commits of the same job on the same file).
std::string job_identity(const RegisterJob& job);

// The job's paths and their roles for io::check_outputs, each role prefixed by `label` (a job's
// label in a batch, or empty).
io::RunPaths run_paths(const RegisterJob& job, const std::string& label = "");

Result<RegisterJob> parse_register_job(const std::string& json_text,
                                       const std::filesystem::path& base);
std::string to_json(const RegisterJob& job);  // what parse_register_job reads back

}  // namespace xcorr::reg
