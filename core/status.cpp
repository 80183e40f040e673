#include "core/status.hpp"

namespace xcorr {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::ok:
      return "ok";
    case ErrorCode::invalid_argument:
      return "invalid argument";
    case ErrorCode::not_found:
      return "not found";
    case ErrorCode::io_error:
      return "I/O error";
    case ErrorCode::parse_error:
      return "parse error";
    case ErrorCode::size_mismatch:
      return "size mismatch";
    case ErrorCode::unsupported:
      return "unsupported";
    case ErrorCode::out_of_memory:
      return "out of memory";
    case ErrorCode::cancelled:
      return "cancelled";
    case ErrorCode::internal:
      return "internal error";
  }
  return "unknown";
}

}  // namespace xcorr
