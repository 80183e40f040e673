// write_atomically: the target appears only when the writer succeeded; a failing writer leaves
// the old target (or none) and no temporary file; errors name the target.
#include "core/io/atomic_write.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/support/temp_dir.hpp"

namespace xcorr::io {
namespace {

namespace fs = std::filesystem;

class AtomicWrite : public testing::TempDirTest {
 protected:
  std::string read(const std::string& p) const {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  int files() const {
    int n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
    return n;
  }
};

TEST_F(AtomicWrite, ReplacesTheTargetOnlyOnSuccess) {
  ASSERT_TRUE(write_text_atomically(path("a.csv"), "first\n").is_ok());
  EXPECT_EQ(read(path("a.csv")), "first\n");
  const Status failed = write_atomically(path("a.csv"), [](const fs::path& tmp) {
    std::ofstream(tmp) << "half of it";
    EXPECT_EQ(tmp.extension(), ".csv") << "same extension, for format-by-extension writers";
    return Status{ErrorCode::io_error, "disk full"};
  });
  EXPECT_EQ(failed.code(), ErrorCode::io_error);
  EXPECT_EQ(read(path("a.csv")), "first\n") << "the old target stays";
  EXPECT_EQ(files(), 1) << "no temporary file left";
  ASSERT_TRUE(write_text_atomically(path("a.csv"), "second\n").is_ok());
  EXPECT_EQ(read(path("a.csv")), "second\n");
}

TEST_F(AtomicWrite, AMissingFolderIsNamed) {
  const Status s = write_text_atomically(path("no/such/b.csv"), "x");
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("b.csv"), std::string::npos) << s.message();
  EXPECT_EQ(files(), 0);
}

// Bad input (docs/reliability.md): a folder as the target said "cannot write 'isdir.csv': Success"
// (the clean-up's error code overwrote the rename's) after the writer had run; it is now refused
// first, by name.
TEST_F(AtomicWrite, AFolderAsTheTargetIsRefusedBeforeWriting) {
  fs::create_directories(path("isdir.csv"));
  bool wrote = false;
  const Status s = write_atomically(path("isdir.csv"), [&](const fs::path&) {
    wrote = true;
    return Status::ok();
  });
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("isdir.csv': it is a folder"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("Success"), std::string::npos) << s.message();
  EXPECT_FALSE(wrote);
  EXPECT_EQ(files(), 1) << "only the folder";
}

// Several files are one step (per-frame CSVs): when one cannot be written, none is.
TEST_F(AtomicWrite, SeveralFilesAreWrittenAllOrNone) {
  ASSERT_TRUE(write_text_atomically(path("f1.csv"), "old\n").is_ok());
  const Status s = write_texts_atomically(
      {{path("f1.csv"), "new 1\n"}, {path("f2.csv"), "new 2\n"}, {path("no/f3.csv"), "3\n"}});
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("f3.csv"), std::string::npos) << s.message();
  EXPECT_EQ(read(path("f1.csv")), "old\n") << "an earlier file of the step is untouched";
  EXPECT_FALSE(fs::exists(path("f2.csv")));
  EXPECT_EQ(files(), 1) << "no temporary file left";
  ASSERT_TRUE(
      write_texts_atomically({{path("f1.csv"), "new 1\n"}, {path("f2.csv"), "2\n"}}).is_ok());
  EXPECT_EQ(read(path("f1.csv")), "new 1\n");
  EXPECT_EQ(read(path("f2.csv")), "2\n");
}

TEST_F(AtomicWrite, NamesTooLongForTheTemporaryCopyAreRefused) {
  const std::string name(kMaxOutputNameBytes + 1, 'n');
  const Status s = write_text_atomically(path(name), "x");
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("bytes long"), std::string::npos) << s.message();
  EXPECT_TRUE(write_text_atomically(path(std::string(kMaxOutputNameBytes, 'n')), "x").is_ok());
}

}  // namespace
}  // namespace xcorr::io
