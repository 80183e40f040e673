// The bank-conflict model against the 80 warp access patterns measured with Nsight Compute on an
// H200 (../shared/data/h200-smem): every row's wavefronts and conflicts reproduced exactly; and
// the classic stride degree and the padding that removes conflicts.
#include "core/profiling/smem_model.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace xcorr::profiling {
namespace {

const std::filesystem::path kData =
    std::filesystem::path(XCORR_SOURCE_DIR) / ".." / "shared" / "data" / "h200-smem";

TEST(SmemModel, ReproducesEveryMeasuredH200Pattern) {
  if (!std::filesystem::exists(kData)) GTEST_SKIP() << "no " << kData << " (shared data)";
  std::map<std::string, std::pair<int, std::array<std::uint32_t, kWarp>>> patterns;
  std::ifstream pf(kData / "patterns.txt");
  for (std::string line; std::getline(pf, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string name;
    int width = 0;
    std::array<std::uint32_t, kWarp> a{};
    ss >> name >> width;
    for (auto& v : a) ss >> v;
    ASSERT_TRUE(ss) << line;
    patterns[name] = {width, a};
  }
  std::ifstream mf(kData / "measured.json");
  const auto rows = nlohmann::json::parse(mf);
  ASSERT_EQ(rows.size(), 80u);
  int matched = 0;
  for (const auto& row : rows) {
    const std::string name = row[0];
    ASSERT_TRUE(patterns.count(name)) << name;
    const auto& [width, addresses] = patterns[name];
    ASSERT_EQ(width, row[1].get<int>()) << name;
    const SmemCost c = smem_cost(width, addresses);
    EXPECT_EQ(c.wavefronts, static_cast<int>(std::lround(row[4].get<double>()))) << name;
    EXPECT_EQ(c.conflicts, static_cast<int>(std::lround(row[5].get<double>()))) << name;
    EXPECT_EQ(c.ideal, row[3].get<int>()) << name;
    matched += c.wavefronts == static_cast<int>(std::lround(row[4].get<double>()));
  }
  std::printf("[ smem     ] %d of %zu measured H200 patterns reproduced\n", matched, rows.size());
}

TEST(SmemModel, StrideDegreeIsTheGcdWith32) {
  for (int s = 0; s < 70; ++s) {
    std::array<std::uint32_t, kWarp> a{};
    for (int l = 0; l < kWarp; ++l)
      a[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(4 * s * l);
    EXPECT_EQ(smem_cost(4, a).wavefronts, stride_conflict_degree(s)) << "stride " << s;
  }
  EXPECT_EQ(stride_conflict_degree(8), 8);
  EXPECT_EQ(stride_conflict_degree(33), 1);
}

TEST(SmemModel, PaddingRemovesColumnConflicts) {
  // A 32 x 32 float tile read down a column: 32-way conflict; one float of padding removes it.
  const Padding p = conflict_free_padding(32, 4);
  EXPECT_EQ(p.pad_elements, 1);
  EXPECT_EQ(p.cost.conflicts, 0);
  EXPECT_EQ(conflict_free_padding(33, 4).pad_elements, 0);
  // 8-byte elements: 16 lanes per phase; a pitch of 16 doubles conflicts, 17 does not.
  EXPECT_EQ(conflict_free_padding(16, 8).pad_elements, 1);
  EXPECT_EQ(conflict_free_padding(16, 8).cost.conflicts, 0);
  // Inactive lanes are not counted.
  std::array<std::uint32_t, kWarp> a{};
  for (int l = 0; l < kWarp; ++l)
    a[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(128 * l);
  EXPECT_EQ(smem_cost(4, a, 0x1u).wavefronts, 1);
}

}  // namespace
}  // namespace xcorr::profiling
