#include "core/check.hpp"

namespace xcorr {

void fail_check(const char* file, int line, const char* condition, const std::string& message) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": check failed (" +
                      condition + "): " + message);
}

}  // namespace xcorr
