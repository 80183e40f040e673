// DIC frames shared among several devices (gpu::make_multi_gpu_registrar) against one device:
// every point of every frame bit for bit the same (positions, displacements, gradients, strain,
// ZNCC, uncertainties, iterations, statuses), on fresh speckle each run. A one-GPU machine lists
// device 0 two and three times (each listing its own registry, buffers and host thread, so the
// split, the shared variant choice and the merge are what is tested); with two devices or more
// every device is listed too. Reference, incremental and reliability-guided runs (the waves
// cross the parts' boundaries), first and second order, a ROI smaller than the number of parts,
// progress and cancelling, bad device numbers. CTest label gpu; skips without a device.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/dic/roi.hpp"
#include "core/dic/session.hpp"
#include "core/synth/speckle.hpp"
#include "gpu/device.hpp"
#include "gpu/dic_gpu.hpp"
#include "gpu/engine.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr::dic {
namespace {

const Registry& engine() {
  return testing::cpu_and_gpu_registry();
}

std::string text(const std::vector<int>& list) {
  std::string s;
  for (const int d : list) s += (s.empty() ? "" : ",") + std::to_string(d);
  return s;
}

struct Frames {
  Stack<float> reference, frames;
};

// A stretching, moving field over `count` frames (fresh amounts each run); odd image size.
Frames stretching(std::uint64_t stream, Index size, int count, double max_stretch) {
  std::mt19937_64 rng(testing::run_seed() + stream);
  std::uniform_real_distribution<double> e(max_stretch / 2, max_stretch), t(-1.5, 1.5);
  synth::SpeckleOptions s;
  s.rows = s.cols = size;
  s.speckle_radius = 2.5;
  s.noise_sigma = 150;
  s.seed = static_cast<std::uint32_t>(rng());
  Frames f{synth::render_speckle_field(s, synth::translation_field(0, 0), 0),
           Stack<float>(size, size, count)};
  const double ex = e(rng), ey = -e(rng), u = t(rng), v = t(rng), c = (size - 1) / 2.0;
  for (int k = 0; k < count; ++k) {
    const double g = k + 1.0;
    const Stack<float> d = synth::render_speckle_field(
        s, synth::affine_field(g * u, g * v, g * ex, 0, 0, g * ey, c, c),
        static_cast<std::uint64_t>(k + 1));
    std::copy(d.values().begin(), d.values().end(), f.frames[k].data);
  }
  return f;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Every point of every frame bit for bit; returns the converged points compared.
int expect_same_bits(const DicResult& one, const DicResult& many, const std::string& what) {
  EXPECT_EQ(one.guess_variant, many.guess_variant) << what;
  EXPECT_EQ(many.device, "gpu") << what;
  if (one.frames.size() != many.frames.size()) {
    ADD_FAILURE() << what << ": " << one.frames.size() << " vs " << many.frames.size() << " frames";
    return 0;
  }
  int converged = 0, differ = 0;
  for (std::size_t f = 0; f < one.frames.size(); ++f) {
    const auto& a = one.frames[f].points;
    const auto& b = many.frames[f].points;
    if (a.size() != b.size()) {
      ADD_FAILURE() << what << ": frame " << f << " point counts";
      return 0;
    }
    for (std::size_t k = 0; k < a.size(); ++k) {
      const PointResult &p = a[k], &q = b[k];
      converged += p.status == PointStatus::converged ? 1 : 0;
      const bool same = p.status == q.status && p.iterations == q.iterations &&
                        same_bits(p.x, q.x) && same_bits(p.y, q.y) && same_bits(p.u, q.u) &&
                        same_bits(p.v, q.v) && same_bits(p.ux, q.ux) && same_bits(p.uy, q.uy) &&
                        same_bits(p.vx, q.vx) && same_bits(p.vy, q.vy) && same_bits(p.exx, q.exx) &&
                        same_bits(p.eyy, q.eyy) && same_bits(p.exy, q.exy) &&
                        same_bits(p.zncc, q.zncc) && same_bits(p.sigma_u, q.sigma_u) &&
                        same_bits(p.sigma_v, q.sigma_v);
      if (!same && ++differ <= 5) {
        ADD_FAILURE() << what << ": frame " << f << " point " << k << " differs: u " << p.u
                      << " vs " << q.u << ", status " << to_string(p.status) << " vs "
                      << to_string(q.status);
      }
    }
  }
  EXPECT_EQ(differ, 0) << what;
  return converged;
}

void expect_split_is_exact(const Frames& f, const DicOptions& o, const Roi& roi,
                           const std::string& what) {
  auto single = gpu::make_gpu_registrar(engine());
  ASSERT_TRUE(single.is_ok()) << single.status().message();
  auto one = run_dic(*single.value(), f.reference[0], f.frames.view(), roi, o);
  if (!one.is_ok() &&
      one.status().message().find("KiB of shared memory per block") != std::string::npos) {
    GTEST_SKIP() << what << ": " << one.status().message();  // e.g. an emulated T4
  }
  ASSERT_TRUE(one.is_ok()) << one.status().message();
  for (const std::vector<int>& list : testing::split_device_lists()) {
    auto multi = gpu::make_multi_gpu_registrar(list);
    ASSERT_TRUE(multi.is_ok()) << multi.status().message();
    auto many = run_dic(*multi.value(), f.reference[0], f.frames.view(), roi, o);
    ASSERT_TRUE(many.is_ok()) << many.status().message();
    const int converged = expect_same_bits(one.value(), many.value(), what + " on " + text(list));
    std::printf("[ dic multi-gpu ] %s on devices %s: %zu frames, %d converged points identical\n",
                what.c_str(), text(list).c_str(), many.value().frames.size(), converged);
    EXPECT_GT(converged, 0) << what;
  }
}

// One split case: the frames (stream, image size, count, largest stretch), the options beyond
// the defaults, the ROI.
struct SplitCase {
  std::string name;
  std::uint64_t stream;
  Index size;
  int frames;
  double stretch;
  std::function<void(DicOptions&)> options;
  std::string roi;  // "" for none
};

std::vector<SplitCase> split_cases() {
  return {
      {"reference mode", 1, 203, 3, 0.004,
       [](DicOptions& o) {
         o.subset = 21;
         o.step = 5;
       },
       ""},
      {"incremental, second order", 2, 181, 3, 0.004,
       [](DicOptions& o) {
         o.subset = 19;
         o.step = 7;
         o.stack_mode = StackMode::incremental;
         o.shape = ShapeFunction::second_order;
         o.interpolation = Interpolation::cubic;
       },
       ""},
      // An FFT guess variant: its ZNCC surfaces round with the batch each device transforms, but
      // the integer guess keeps only each surface's peak position, so the results are still
      // expected bit for bit (two peaks within rounding could resolve differently:
      // docs/scale-out.md).
      {"gpu_fft_fused guess", 6, 171, 2, 0.004,
       [](DicOptions& o) {
         o.subset = 25;
         o.step = 6;
         o.search_radius = 12;
         o.method = "gpu_fft_fused";
       },
       ""},
      // A stretch the integer search (radius 2 px) misses at the edges: the waves start those
      // points from converged neighbours, which may lie in another device's part.
      {"reliability-guided", 3, 161, 1, 0.07,
       [](DicOptions& o) {
         o.search_radius = 2;
         o.step = 6;
         o.propagation = Propagation::reliability_guided;
       },
       ""},
      // Two points for three parts: some devices get none.
      {"two points", 4, 97, 2, 0.004,
       [](DicOptions& o) {
         o.subset = 15;
         o.step = 10;
         o.roi_only = OnOff::off;
       },
       "rect:35,35,15,8"},
  };
}

class DicMultiGpuSplit : public ::testing::TestWithParam<SplitCase> {};

TEST_P(DicMultiGpuSplit, IsBitForBitOneDevice) {
  XCORR_SKIP_WITHOUT_GPU();
  const SplitCase& c = GetParam();
  const Frames f = stretching(c.stream, c.size, c.frames, c.stretch);
  DicOptions o;
  c.options(o);
  Roi roi;
  if (!c.roi.empty()) roi.shapes.push_back(parse_roi_shape(c.roi).value());
  expect_split_is_exact(f, o, roi, c.name);
}

INSTANTIATE_TEST_SUITE_P(Cases, DicMultiGpuSplit, ::testing::ValuesIn(split_cases()),
                         [](const auto& param_info) {
                           std::string n = param_info.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(DicMultiGpu, ReportsProgressAndCancels) {
  XCORR_SKIP_WITHOUT_GPU();
  const Frames f = stretching(5, 151, 1, 0.004);
  auto multi = gpu::make_multi_gpu_registrar({0, 0});
  ASSERT_TRUE(multi.is_ok()) << multi.status().message();
  DicOptions o;
  o.step = 6;
  auto session = DicSession::create(*multi.value(), f.reference[0], Roi{}, o);
  ASSERT_TRUE(session.is_ok()) << session.status().message();
  std::vector<std::pair<Index, Index>> seen;
  auto stop = session.value().next(f.frames[0], 1, [&](Index done, Index total) {
    seen.push_back({done, total});
    return false;
  });
  EXPECT_EQ(stop.status().code(), ErrorCode::cancelled);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(2 * seen[0].first, seen[0].second);
  seen.clear();
  auto whole = session.value().next(f.frames[0], 1, [&](Index done, Index total) {
    seen.push_back({done, total});
    return true;
  });
  ASSERT_TRUE(whole.is_ok()) << whole.status().message();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].first, seen[1].second);
  EXPECT_GT(gpu::last_gpu_frame_seconds(*multi.value()), 0);
}

TEST(DicMultiGpu, RefusesDevicesThatDoNotExist) {
  XCORR_SKIP_WITHOUT_GPU();
  const auto devices = gpu::list_devices();
  const int beyond = static_cast<int>(devices.value().size());
  auto bad = gpu::make_multi_gpu_registrar({0, beyond});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("GPU " + std::to_string(beyond) + " does not exist"),
            std::string::npos)
      << bad.status().message();
  EXPECT_FALSE(gpu::make_multi_gpu_registrar({}).is_ok());
}

}  // namespace
}  // namespace xcorr::dic
