// Status and Result<T>: how expected failures travel through the engine.
// A Status carries a specific code and a message a user can act on ("left.csv:3: ...").
// Programmer errors use XCORR_CHECK (check.hpp) instead.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "core/check.hpp"

namespace xcorr {

enum class ErrorCode {
  ok,
  invalid_argument,  // a value or combination of options that cannot work
  not_found,         // a file or folder that does not exist
  io_error,          // reading or writing failed (permissions, disk, corrupt or truncated file)
  parse_error,       // a text file that does not follow its format
  size_mismatch,     // inputs whose sizes or counts do not fit together
  unsupported,       // valid request that this build or variant cannot do
  out_of_memory,     // not enough host or device memory
  cancelled,         // stopped by the user
  internal,          // a bug: reported, never expected
};

const char* to_string(ErrorCode code);  // labels: EnumLabels<ErrorCode> in status.cpp

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return {}; }

  bool is_ok() const { return code_ == ErrorCode::ok; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  ErrorCode code_ = ErrorCode::ok;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Status error) : v_(std::move(error)) {  // NOLINT: implicit by design
    XCORR_CHECK(!std::get<Status>(v_).is_ok(), "a Result needs a value or an error");
  }

  bool is_ok() const { return std::holds_alternative<T>(v_); }
  const T& value() const& { return checked(); }
  T& value() & { return checked(); }
  T&& value() && { return std::move(checked()); }
  Status status() const { return is_ok() ? Status::ok() : std::get<Status>(v_); }

 private:
  T& checked() const {
    XCORR_CHECK(is_ok(), "value() on a failed Result: " + std::get<Status>(v_).message());
    return const_cast<T&>(std::get<T>(v_));
  }
  std::variant<T, Status> v_;
};

}  // namespace xcorr

// Returns early from a function returning Status or Result<T> when `expr` fails.
#define XCORR_RETURN_IF_ERROR(expr)                 \
  do {                                              \
    if (::xcorr::Status s_ = (expr); !s_.is_ok()) { \
      return s_;                                    \
    }                                               \
  } while (false)
