// XCORR_CHECK: for programmer errors (broken invariants), never for bad user input.
// Throws xcorr::InternalError naming file:line, which the CLI maps to exit code 1.
#pragma once

#include <stdexcept>
#include <string>

namespace xcorr {

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_check(const char* file, int line, const char* condition,
                             const std::string& message);

}  // namespace xcorr

#define XCORR_CHECK(cond, msg)                               \
  do {                                                       \
    if (!(cond)) {                                           \
      ::xcorr::fail_check(__FILE__, __LINE__, #cond, (msg)); \
    }                                                        \
  } while (false)
