// The rule for every output of every command and front end (CLI, batch, MPI, window): an output
// is never an input, another output of the same run, a path inside (or equal to) a resume folder
// of the run, or an existing file that is not a regular file (a device, FIFO, socket or folder).
// Paths are compared as files, however spelled: relative or absolute, through symbolic links,
// and hard links of one file. Front ends call check_outputs before any work; write_atomically
// refuses a non-regular target again when it writes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace xcorr::io {

// A path and the role it plays, as the user named it: "the stack", "--out", "job 2 ('a') drift".
struct PathRole {
  std::string role;
  std::string path;  // empty: the role is not used (skipped)
};

struct RunPaths {
  std::vector<PathRole> inputs;          // files or folders read
  std::vector<PathRole> outputs;         // files written
  std::vector<PathRole> resume_folders;  // folders the run writes and removes (".partial")
};

// The rule over a run whose inputs and resume folders are known; outputs are claimed in order
// (a batch: job by job, so that its first problem in job order is reported), each against the
// inputs, the outputs claimed before and the resume folders.
class OutputRule {
 public:
  explicit OutputRule(const RunPaths& paths);  // its inputs and resume_folders
  // invalid_argument naming both roles and both paths when an output breaks the rule, e.g.
  // "--out 's.tif' is the stack 's.tif': an output is never an input"; the outputs are claimed
  // either way.
  Status claim(const std::vector<PathRole>& outputs);
  // Claimed unchecked: outputs whose own problems another process reports (xcorr-mpi's slices).
  void add(const std::vector<PathRole>& outputs);

 private:
  struct Resolved {
    PathRole role;
    std::filesystem::path file;  // absolute, links resolved as far as it exists
  };
  std::vector<Resolved> inputs_, outputs_, folders_;
};

// OutputRule(paths).claim(paths.outputs).
Status check_outputs(const RunPaths& paths);

// invalid_argument when `target` exists and is not a regular file (or a link to one).
Status check_regular_or_absent(const std::filesystem::path& target, const std::string& role);

}  // namespace xcorr::io
