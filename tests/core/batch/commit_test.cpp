// A batch run's commits (core/batch/commit.hpp): the bytes of the format every earlier version
// wrote (XCF4: resumes read commits of an earlier run), the parts written as they are (no copy)
// give the same file, and it reads back to the same values.
#include "core/batch/commit.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/io/atomic_write.hpp"
#include "tests/support/temp_dir.hpp"

namespace xcorr::batch {
namespace {

// A commit of n points, every value from its point's index.
void make(std::size_t n, dic::FrameResult& fr, dic::DicState& st) {
  fr.frame = 7;
  fr.points.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    dic::PointResult& p = fr.points[i];
    p = dic::PointResult{};
    p.x = static_cast<double>(i);
    p.y = 0.5 * static_cast<double>(i);
    p.u = 0.25 + static_cast<double>(i);
    p.v = -1.0 / static_cast<double>(i + 1);
    p.zncc = 0.9;
    p.iterations = static_cast<int>(i % 7);
    p.status = dic::PointStatus::converged;
    p.sigma_u = 1e-3;
  }
  st.ref_frame = 2;
  st.guess_variant = "gpu_zncc_tiled";
  st.cx.assign(n, 3.5);
  st.cy.resize(n);
  for (std::size_t i = 0; i < n; ++i) st.cy[i] = static_cast<double>(i);
  st.ref_u.assign(n, 0.125);
  st.ref_v.assign(n, -0.125);
  st.active.assign(n, 1);
  st.predicted.assign(n, dic::Warp{1, 2, 3, 4, 5, 6});
  st.window = {10, 20, 300, 400};
}

std::uint32_t trailing_crc(const std::string& bytes) {
  std::uint32_t crc = 0;
  std::memcpy(&crc, bytes.data() + bytes.size() - sizeof crc, sizeof crc);
  return crc;
}

// Sizes and CRC-32s of the encoder before commits were written in parts (5230ff4..fc6adfb): the
// 100,000-point commit's 12 MB of points take the CRC's parallel path (8 MiB and more); the
// empty one has empty arrays between its fields.
TEST(Commit, TheBytesAreTheFormatsOfEarlierVersions) {
  const struct {
    std::size_t points, size;
    std::uint32_t crc;
  } cases[] = {{0, 142, 0x391f98f1}, {3, 745, 0x0cd43cd3}, {100000, 20100142, 0xcc9e8f99}};
  for (const auto& c : cases) {
    dic::FrameResult fr;
    dic::DicState st;
    make(c.points, fr, st);
    const std::string bytes = encode_commit(fr, st);
    EXPECT_EQ(bytes.size(), c.size) << c.points << " points";
    EXPECT_EQ(trailing_crc(bytes), c.crc) << c.points << " points";
  }
}

class CommitFile : public testing::TempDirTest {};

TEST_F(CommitFile, ThePartsWrittenAreTheEncodedBytesAndReadBack) {
  dic::FrameResult fr;
  dic::DicState st;
  make(100000, fr, st);
  const std::filesystem::path file = path("frame_0007.bin");
  ASSERT_TRUE(io::write_parts_atomically(file, CommitParts(fr, st).parts(), io::Durability::system)
                  .is_ok());
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(bytes == encode_commit(fr, st));
  dic::FrameResult fr2;
  dic::DicState st2;
  ASSERT_TRUE(decode_commit(bytes, fr2, st2));
  EXPECT_EQ(fr2.frame, 7);
  ASSERT_EQ(fr2.points.size(), fr.points.size());
  EXPECT_EQ(
      std::memcmp(fr2.points.data(), fr.points.data(), fr.points.size() * sizeof(dic::PointResult)),
      0);
  EXPECT_EQ(st2.cy, st.cy);
  EXPECT_EQ(st2.predicted, st.predicted);
  EXPECT_EQ(st2.guess_variant, "gpu_zncc_tiled");
  EXPECT_EQ(st2.window, st.window);
  // One bit flipped anywhere in the 12 MB of points: the CRC finds it.
  std::string flipped = bytes;
  flipped[9'000'001] = static_cast<char>(flipped[9'000'001] ^ 0x10);
  EXPECT_FALSE(decode_commit(flipped, fr2, st2));
}

}  // namespace
}  // namespace xcorr::batch
