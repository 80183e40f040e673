// Phase correlation shared among GPUs (reg::make_split_phase_engine with GPU phase engines, as
// engine::make_phase_engine makes for `xcorr register --devices`) against one GPU engine: the same
// shifts bit for bit, on fresh random images (odd and prime sizes), with one reference and with
// one per frame (`previous`), for frame counts below, at and above the 32-frame block on each
// lane. A one-GPU machine lists device 0 two and three times (each lane its own engine, buffers
// and host thread, so the split itself is tested); with two GPUs or more every GPU is listed too,
// in both orders, and the facade's own "0,1". Unknown devices are refused by name. CTest label
// gpu; skips without a device.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/engine/engine.hpp"
#include "core/register/split_phase_engine.hpp"
#include "gpu/phase_gpu.hpp"
#include "tests/support/fourier_shift.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/split_engines.hpp"

namespace xcorr::reg {
namespace {

using testing::frame_views;
using testing::same_shift_bits;

// GPU phase engines on `list`'s devices (each made there), split.
Result<std::unique_ptr<PhaseEngine>> split_on(const std::vector<int>& list, Shape shape,
                                              const PhaseOptions& o, int iterations) {
  std::vector<std::unique_ptr<PhaseEngine>> lanes(list.size());
  const LaneRunner run = [list](std::size_t lane, std::function<Status()> work) {
    return gpu::on_device(list[lane], std::move(work));
  };
  for (std::size_t l = 0; l < list.size(); ++l) {
    XCORR_RETURN_IF_ERROR(run(l, [&]() -> Status {
                            auto e = gpu::make_gpu_phase_engine(shape, o, iterations);
                            if (!e.is_ok()) return e.status();
                            lanes[l] = std::move(e).value();
                            return Status::ok();
                          }).get());
  }
  return make_split_phase_engine(std::move(lanes), run);
}

std::string text(const std::vector<int>& list) {
  std::string s;
  for (const int d : list) s += (s.empty() ? "" : ",") + std::to_string(d);
  return s;
}

TEST(GpuPhaseSplit, SharedAmongDevicesEqualsOneGpuBitForBit) {
  XCORR_SKIP_WITHOUT_GPU();
  const auto seed = static_cast<unsigned>(testing::run_seed());
  const Shape shapes[] = {{37, 41}, {61, 47}};
  const PhaseOptions options[] = {{100, true, false}, {20, false, true}};
  for (std::size_t s = 0; s < 2; ++s) {
    const Shape shape = shapes[s];
    const PhaseOptions o = options[s];
    const Stack<float> reference = test::random_image(shape.rows, shape.cols, seed + s);
    std::mt19937_64 g(seed + 7 * s);
    std::uniform_real_distribution<double> d(-5, 5);
    std::vector<Stack<float>> frames;
    for (int k = 0; k < 70; ++k) frames.push_back(test::fourier_shift(reference, d(g), d(g)));
    std::vector<MatrixView<const float>> refs{reference[0]};  // previous: frame k - 1
    for (std::size_t k = 0; k + 1 < frames.size(); ++k) refs.push_back(frames[k][0]);
    auto one = gpu::make_gpu_phase_engine(shape, o, 2);
    ASSERT_TRUE(one.is_ok()) << one.status().message();
    ASSERT_TRUE(one.value()->set_reference(reference[0]).is_ok());
    const Index block = one.value()->frames_per_call();
    ASSERT_GT(block, 0);
    for (const std::vector<int>& list : testing::split_device_lists()) {
      auto split = split_on(list, shape, o, 2);
      ASSERT_TRUE(split.is_ok()) << split.status().message();
      EXPECT_EQ(split.value()->frames_per_call(), block * static_cast<Index>(list.size()));
      ASSERT_TRUE(split.value()->set_reference(reference[0]).is_ok());
      for (const std::size_t n : {std::size_t{1}, static_cast<std::size_t>(block),
                                  static_cast<std::size_t>(block) + 5, frames.size()}) {
        const std::vector<Stack<float>> part(frames.begin(), frames.begin() + static_cast<long>(n));
        const auto fv = frame_views(part);
        const std::vector<MatrixView<const float>> rv(refs.begin(),
                                                      refs.begin() + static_cast<long>(n));
        for (const bool previous : {false, true}) {
          const std::string what = to_string(shape) + " devices " + text(list) + " frames " +
                                   std::to_string(n) + (previous ? " previous" : " first");
          // One GPU measures the call as registration hands it: whole blocks, in order.
          std::vector<Shift> want;
          for (std::size_t b = 0; b < n; b += static_cast<std::size_t>(block)) {
            const std::size_t e = std::min(n, b + static_cast<std::size_t>(block));
            const std::vector<MatrixView<const float>> f(fv.begin() + static_cast<long>(b),
                                                         fv.begin() + static_cast<long>(e));
            const std::vector<MatrixView<const float>> r(rv.begin() + static_cast<long>(b),
                                                         rv.begin() + static_cast<long>(e));
            auto w = one.value()->measure(f, previous ? &r : nullptr);
            ASSERT_TRUE(w.is_ok()) << what;
            want.insert(want.end(), w.value().begin(), w.value().end());
          }
          auto got = split.value()->measure(fv, previous ? &rv : nullptr);
          ASSERT_TRUE(got.is_ok()) << what << ": " << got.status().message();
          ASSERT_EQ(got.value().size(), n) << what;
          for (std::size_t k = 0; k < n; ++k)
            EXPECT_TRUE(same_shift_bits(got.value()[k], want[k]))
                << what << " frame " << k << ": " << got.value()[k].dx << " " << want[k].dx;
        }
      }
    }
  }
}

TEST(GpuPhaseSplit, TheFacadeSplitsTheListedDevicesAndRefusesUnknownOnes) {
  XCORR_SKIP_WITHOUT_GPU();
  engine::install_gpu();
  const auto devices = gpu::list_devices();
  ASSERT_TRUE(devices.is_ok());
  const auto count = static_cast<Index>(devices.value().size());
  auto one = engine::make_phase_engine({40, 50}, {}, 2, "gpu", "0");
  ASSERT_TRUE(one.is_ok()) << one.status().message();
  const Index block = one.value()->frames_per_call();
  auto all = engine::make_phase_engine({40, 50}, {}, 2, "gpu", "all");
  ASSERT_TRUE(all.is_ok()) << all.status().message();
  EXPECT_EQ(all.value()->frames_per_call(), block * count);
  const std::string beyond = std::to_string(count);
  auto unknown = engine::make_phase_engine({40, 50}, {}, 2, "gpu", "0," + beyond);
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_NE(unknown.status().message().find(beyond), std::string::npos)
      << unknown.status().message();
  if (count < 2) GTEST_SKIP() << "one GPU: the facade's own 0,1 needs two";
  // Two GPUs through the facade, as `xcorr register --devices 0,1` makes them: the same bits.
  const Shape shape{53, 59};
  const Stack<float> reference =
      test::random_image(shape.rows, shape.cols, static_cast<unsigned>(testing::run_seed()));
  std::vector<Stack<float>> frames;
  for (int k = 0; k < 75; ++k)
    frames.push_back(test::fourier_shift(reference, 0.37 * k - 9, 4 - 0.21 * k));
  auto two = engine::make_phase_engine(shape, {}, 2, "gpu", "0,1");
  auto single = engine::make_phase_engine(shape, {}, 2, "gpu", "0");
  ASSERT_TRUE(two.is_ok() && single.is_ok());
  ASSERT_TRUE(two.value()->set_reference(reference[0]).is_ok());
  ASSERT_TRUE(single.value()->set_reference(reference[0]).is_ok());
  const auto fv = frame_views(frames);
  auto got = two.value()->measure(fv);
  ASSERT_TRUE(got.is_ok()) << got.status().message();
  for (std::size_t b = 0; b < fv.size(); b += static_cast<std::size_t>(block)) {
    const std::size_t e = std::min(fv.size(), b + static_cast<std::size_t>(block));
    auto w = single.value()->measure(
        {fv.begin() + static_cast<long>(b), fv.begin() + static_cast<long>(e)});
    ASSERT_TRUE(w.is_ok());
    for (std::size_t k = b; k < e; ++k)
      EXPECT_TRUE(same_shift_bits(got.value()[k], w.value()[k - b])) << "frame " << k;
  }
}

}  // namespace
}  // namespace xcorr::reg
