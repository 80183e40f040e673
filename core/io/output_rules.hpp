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
  std::string path;     // empty: the role is not used (skipped)
  bool checked = true;  // outputs: false to compare later outputs with it, but not check it (a
                        // job another process checks)
};

struct RunPaths {
  std::vector<PathRole> inputs;          // files or folders read
  std::vector<PathRole> outputs;         // files written
  std::vector<PathRole> resume_folders;  // folders the run writes and removes (".partial")
};

// invalid_argument naming both roles and both paths when the rule is broken, e.g.
// "--out 's.tif' is the stack 's.tif': an output is never an input"; Status::ok() otherwise.
// Outputs are checked in order, each against the inputs, the earlier outputs and the resume
// folders, so the first problem in the caller's order is reported.
Status check_outputs(const RunPaths& paths);

// invalid_argument when `target` exists and is not a regular file (or a link to one).
Status check_regular_or_absent(const std::filesystem::path& target, const std::string& role);

}  // namespace xcorr::io
