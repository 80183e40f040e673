#include "core/io/matrix_csv.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "tests/support/matrix_testing.hpp"
#include "tests/support/temp_dir.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

class MatrixCsv : public testing::TempDirTest {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  std::string error_of(const std::string& text) {
    const auto r = read_matrix_csv(write("m.csv", text));
    EXPECT_FALSE(r.is_ok());
    return r.is_ok() ? "" : r.status().message();
  }
};

TEST_F(MatrixCsv, RoundTripsFloat32BitForBit) {
  Stack<float> s = testing::random_stack(7, 5, 3, 1, -1e6f, 1e6f);
  s[0](0, 0) = std::numeric_limits<float>::denorm_min();
  s[0](0, 1) = std::numeric_limits<float>::max();
  s[0](0, 2) = -0.0f;
  s[1](3, 3) = 1.0f / 3.0f;
  ASSERT_TRUE(write_matrix_csv(dir_ / "s.csv", s.view()).is_ok());
  const auto back = read_matrix_csv(dir_ / "s.csv");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  ASSERT_EQ(back.value().count(), 3);
  ASSERT_EQ(back.value().shape(), (Shape{7, 5}));
  EXPECT_EQ(std::memcmp(back.value().data(), s.data(), s.values().size() * sizeof(float)), 0);
}

TEST_F(MatrixCsv, ReadsTheThesisLayoutWithOrWithoutCount) {
  const auto a = read_matrix_csv(write("a.csv", "# 2,3\n1,2,3\n4,5,6\n"));
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  EXPECT_EQ(a.value().count(), 1);
  EXPECT_EQ(a.value()[0](1, 2), 6.0f);
  const auto b = read_matrix_csv(write("b.csv", "# 1,2,2\r\n1.5, -2e-3\r\n3,+4\r\n\r\n"));
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(b.value()[1](0, 1), 4.0f);
  EXPECT_EQ(b.value()[0](0, 1), -2e-3f);
}

TEST_F(MatrixCsv, EachBadInputGetsItsOwnMessage) {
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("2,3\n1,2,3\n4,5,6\n").find("m.csv:1: header must be"), std::string::npos);
  EXPECT_NE(error_of("# 2,x\n1,2\n").find("header must be"), std::string::npos);
  EXPECT_NE(error_of("# 0,3\n").find("header must be"), std::string::npos);
  EXPECT_NE(error_of("# 2,3\n1,2,3\n4,5\n").find("m.csv:3: expected 3 values, found 2"),
            std::string::npos);
  EXPECT_NE(error_of("# 2,3\n1,2,3,4\n4,5,6\n").find("m.csv:2: expected 3 values, found more"),
            std::string::npos);
  EXPECT_NE(error_of("# 2,3\n1,2,3\n4,abc,6\n").find("m.csv:3: value 2 'abc' is not a number"),
            std::string::npos);
  EXPECT_NE(
      error_of("# 2,3,2\n1,2,3\n4,5,6\n").find("ends after 2 data rows, the header announces 4"),
      std::string::npos);
  EXPECT_NE(error_of("# 1,1\n1\n2\n").find("unexpected data"), std::string::npos);
  const auto missing = read_matrix_csv(dir_ / "nope.csv");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::not_found);
  EXPECT_NE(missing.status().message().find("does not exist"), std::string::npos);
}

TEST_F(MatrixCsv, AFailedWriteLeavesNothingBehind) {
  const Stack<float> s(2, 2, 1, 1.0f);
  const Status st = write_matrix_csv(dir_ / "missing_folder" / "x.csv", s.view());
  EXPECT_EQ(st.code(), ErrorCode::not_found);
  EXPECT_FALSE(fs::exists(dir_ / "missing_folder"));
  ASSERT_TRUE(write_matrix_csv(dir_ / "ok.csv", s.view()).is_ok());
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u) << "no temporary file may stay";
}

}  // namespace
}  // namespace xcorr::io
