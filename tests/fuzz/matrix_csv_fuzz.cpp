// libFuzzer target: the matrix CSV reader. A file it accepts is written and read back unchanged.
#include <cstring>

#include "core/io/matrix_csv.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xcorr;
  const auto path = fuzz::input_file(data, size, ".csv");
  const auto m = io::read_matrix_csv(path);
  if (!m.is_ok()) return 0;
  const auto again_path = path.string() + ".again.csv";
  if (!io::write_matrix_csv(again_path, m.value().view()).is_ok()) __builtin_trap();
  const auto again = io::read_matrix_csv(again_path);
  std::remove(again_path.c_str());
  if (!again.is_ok() || again.value().shape() != m.value().shape() ||
      again.value().count() != m.value().count() ||
      std::memcmp(again.value().data(), m.value().data(),
                  m.value().values().size() * sizeof(float)) != 0)
    __builtin_trap();  // a value does not survive a round trip
  return 0;
}
