#include "core/status.hpp"

#include "core/enum_labels.hpp"

namespace xcorr {

template <>
struct EnumLabels<ErrorCode> {
  static constexpr std::pair<ErrorCode, const char*> table[] = {
      {ErrorCode::ok, "ok"},
      {ErrorCode::invalid_argument, "invalid argument"},
      {ErrorCode::not_found, "not found"},
      {ErrorCode::io_error, "I/O error"},
      {ErrorCode::parse_error, "parse error"},
      {ErrorCode::size_mismatch, "size mismatch"},
      {ErrorCode::unsupported, "unsupported"},
      {ErrorCode::out_of_memory, "out of memory"},
      {ErrorCode::cancelled, "cancelled"},
      {ErrorCode::internal, "internal error"}};
};

const char* to_string(ErrorCode code) {
  return label(code);
}

}  // namespace xcorr
