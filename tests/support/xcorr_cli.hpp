// Runs the real `xcorr` executable (XCORR_EXE, set by CMake) through the shell and keeps its
// exit code and its combined stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace xcorr::testing {

struct CliRun {
  int code = -1;       // exit code; -1 when killed by a signal
  std::string output;  // stdout and stderr
};

// Any shell command, its output and exit code.
inline CliRun run_command(const std::string& command) {
  CliRun r;
  const std::string cmd = command + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p) != nullptr) r.output += buf.data();
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline CliRun run_xcorr(const std::string& args) {
  return run_command(std::string(XCORR_EXE) + " " + args);
}

}  // namespace xcorr::testing
