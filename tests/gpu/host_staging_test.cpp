// Pinned host staging (gpu/host_staging.cuh) round trips: host -> device -> host gives every value
// back bit for bit, for contiguous stacks (packed by several host threads, chunk by chunk) of one
// value, a few, exactly one 8 MiB chunk, one more, and several chunks whose 1 MiB pieces do not
// divide them; for strided stacks (rows narrower than their stride, matrices apart); fresh random
// values each run, and the device buffer poisoned: nothing past the stack's values is written.
// CTest label gpu; skips without a device.
#include "gpu/host_staging.cuh"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::gpu {
namespace {

// `s` up and back down into a fresh host stack of its shape, through a device buffer with
// `margin` poisoned floats after it: whether every value came back and the margin is untouched.
void round_trip(StackView<const float> s, const std::string& what) {
  const std::size_t n = static_cast<std::size_t>(s.count * s.rows * s.cols), margin = 4096;
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, (n + margin) * sizeof(float)), cudaSuccess) << what;
  ASSERT_EQ(cudaMemset(d, 0xff, (n + margin) * sizeof(float)), cudaSuccess) << what;
  ASSERT_TRUE(upload_staged(s, d, nullptr).is_ok()) << what;
  Stack<float> back(s.rows, s.cols, s.count, -1.0f);
  ASSERT_TRUE(download_staged(d, back.view(), nullptr).is_ok()) << what;
  std::vector<std::uint32_t> after(margin);
  ASSERT_EQ(cudaMemcpy(after.data(), d + n, margin * sizeof(float), cudaMemcpyDeviceToHost),
            cudaSuccess);
  cudaFree(d);
  long wrong = 0;
  for (Index t = 0; t < s.count; ++t)
    for (Index r = 0; r < s.rows; ++r)
      wrong += std::memcmp(back[t].row(r), s[t].row(r), sizeof(float) * s.cols) != 0;
  EXPECT_EQ(wrong, 0) << what << ": rows that differ";
  long touched = 0;
  for (const std::uint32_t v : after) touched += v != 0xffffffffu;
  EXPECT_EQ(touched, 0) << what << ": values written past the stack";
}

TEST(HostStaging, ContiguousStacksOfAnySizeComeBackBitForBit) {
  XCORR_SKIP_WITHOUT_GPU();
  constexpr Index kChunk = Index{1} << 21;  // floats per 8 MiB staging buffer
  struct Case {
    Index rows, cols, count;
  };
  const Case cases[] = {{1, 1, 1},          {3, 7, 2},       {1024, 2048, 1}, {2048, 2048, 2},
                        {1, kChunk + 1, 1}, {2047, 2049, 3}, {777, 1031, 5}};
  std::uint64_t stream = 1;
  for (const Case& c : cases) {
    const Stack<float> s = testing::random_stack(c.rows, c.cols, c.count, stream++);
    round_trip(s.view(), std::to_string(c.count) + " x " + std::to_string(c.rows) + " x " +
                             std::to_string(c.cols));
  }
}

TEST(HostStaging, StridedStacksComeBackBitForBit) {
  XCORR_SKIP_WITHOUT_GPU();
  // 3 matrices of 601 x 1500 inside rows of 1537 and matrices 700 rows apart: 2.7 M values.
  const Stack<float> whole = testing::random_stack(700, 1537, 3, 9);
  StackView<const float> s = whole.view();
  s.rows = 601;
  s.cols = 1500;
  round_trip(s, "strided");
}

}  // namespace
}  // namespace xcorr::gpu
