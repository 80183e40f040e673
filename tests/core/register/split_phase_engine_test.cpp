// Phase correlation split among lanes (reg::make_split_phase_engine) against one engine measuring
// every frame: the same shifts bit for bit, on fresh random images of odd and prime sizes, with
// one reference and with one per frame (`previous`), for frame counts around the chunks (none,
// one, a chunk, a chunk and one, several rounds of every lane); each lane's call brings exactly
// its chunks (chunk c to lane c % lanes); a failing lane fails the call with its message; one
// reference per frame or none.
#include "core/register/split_phase_engine.hpp"

#include <gtest/gtest.h>

#include "tests/support/fourier_shift.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/split_engines.hpp"

namespace xcorr::reg {
namespace {

using testing::frame_views;
using testing::same_shift_bits;

TEST(SplitPhase, EqualsOneEngineBitForBitWithEachLaneGivenItsChunks) {
  const auto seed = static_cast<unsigned>(testing::run_seed());
  const Shape shapes[] = {{31, 37}, {23, 64}};
  for (const Shape shape : shapes) {
    const Stack<float> reference = test::random_image(shape.rows, shape.cols, seed);
    std::vector<Stack<float>> frames, refs;
    std::mt19937_64 g(seed + 1);
    std::uniform_real_distribution<double> d(-4, 4);
    for (int k = 0; k < 17; ++k) {
      frames.push_back(test::fourier_shift(reference, d(g), d(g)));
      refs.push_back(test::fourier_shift(reference, d(g), d(g)));
    }
    const PhaseOptions o;
    auto one = make_cpu_phase_engine(shape, o, 2);
    ASSERT_TRUE(one.is_ok());
    ASSERT_TRUE(one.value()->set_reference(reference[0]).is_ok());
    for (const int lanes : {1, 2, 3}) {
      for (const Index chunk : {1, 3, 5}) {
        std::vector<testing::ChunkedCpuEngine*> made;
        auto split = testing::split_cpu_engine(lanes, chunk, shape, o, 2, &made);
        ASSERT_TRUE(split.is_ok());
        PhaseEngine& e = *split.value();
        EXPECT_EQ(e.frames_per_call(), chunk * lanes);
        EXPECT_EQ(e.device(), "cpu");
        ASSERT_TRUE(e.set_reference(reference[0]).is_ok());
        for (const std::size_t n : {std::size_t{0}, std::size_t{1}, static_cast<std::size_t>(chunk),
                                    static_cast<std::size_t>(chunk) + 1, std::size_t{17}}) {
          const std::vector<Stack<float>> f(frames.begin(), frames.begin() + static_cast<long>(n));
          const std::vector<Stack<float>> r(refs.begin(), refs.begin() + static_cast<long>(n));
          const auto fv = frame_views(f), rv = frame_views(r);
          for (const bool previous : {false, true}) {
            const std::string what = to_string(shape) + " lanes " + std::to_string(lanes) +
                                     " chunk " + std::to_string(chunk) + " frames " +
                                     std::to_string(n) + (previous ? " previous" : " first");
            std::vector<std::vector<Index>> before;
            for (const auto* m : made) before.push_back(m->calls());
            auto want = one.value()->measure(fv, previous ? &rv : nullptr);
            auto got = e.measure(fv, previous ? &rv : nullptr);
            ASSERT_TRUE(want.is_ok() && got.is_ok()) << what;
            ASSERT_EQ(got.value().size(), n) << what;
            for (std::size_t k = 0; k < n; ++k)
              EXPECT_TRUE(same_shift_bits(got.value()[k], want.value()[k]))
                  << what << " frame " << k;
            // Lane l was called once, with chunks l, l + lanes, ... (the last one short).
            for (std::size_t l = 0; l < made.size(); ++l) {
              Index mine = 0;
              for (Index c = static_cast<Index>(l); c * chunk < static_cast<Index>(n); c += lanes)
                mine += std::min(chunk, static_cast<Index>(n) - c * chunk);
              const std::vector<Index> calls = made[l]->calls();
              const std::size_t added = calls.size() - before[l].size();
              EXPECT_EQ(added, mine > 0 ? 1U : 0U) << what << " lane " << l;
              if (added == 1) {
                EXPECT_EQ(calls.back(), mine) << what << " lane " << l;
              }
            }
          }
        }
      }
    }
  }
}

TEST(SplitPhase, AFailingLaneFailsTheCallWithItsMessage) {
  const Shape shape{19, 29};
  const Stack<float> reference =
      test::random_image(shape.rows, shape.cols, static_cast<unsigned>(testing::run_seed()));
  std::vector<testing::ChunkedCpuEngine*> made;
  auto split = testing::split_cpu_engine(2, 2, shape, {}, 1, &made);
  ASSERT_TRUE(split.is_ok());
  ASSERT_TRUE(split.value()->set_reference(reference[0]).is_ok());
  const std::vector<Stack<float>> frames(5, reference);
  auto fine = split.value()->measure(frame_views(frames));
  ASSERT_TRUE(fine.is_ok());
  for (const Shift& s : fine.value()) EXPECT_NEAR(std::hypot(s.dx, s.dy), 0, 1e-9);
  made[1]->fail();
  auto failed = split.value()->measure(frame_views(frames));
  ASSERT_FALSE(failed.is_ok());
  EXPECT_EQ(failed.status().message(), "this lane fails");
  const std::vector<Stack<float>> two(2, reference);  // lane 1 has no chunk: not called
  EXPECT_TRUE(split.value()->measure(frame_views(two)).is_ok());
  const auto mismatched = frame_views(two);
  EXPECT_EQ(split.value()->measure(frame_views(frames), &mismatched).status().message(),
            "one reference per frame is needed");
}

}  // namespace
}  // namespace xcorr::reg
