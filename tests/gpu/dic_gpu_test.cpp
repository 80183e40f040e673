// The GPU DIC path against the CPU path on synthetic speckle (fresh random fields each run):
// the same statuses and displacements within 1e-4 px (the bound), reference and
// incremental stacks, two integer-guess variants; reliability-guided propagation is refused.
// CTest label gpu; skips without a device.
#include "gpu/dic_gpu.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/dic/dic.hpp"
#include "core/dic/session.hpp"
#include "core/synth/speckle.hpp"
#include "gpu/device.hpp"
#include "gpu/engine.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/pipeline_testing.hpp"

namespace xcorr::dic {
namespace {

const Registry& engine() {
  return testing::cpu_and_gpu_registry();
}

struct Pair {
  Stack<float> reference, frames;
};

Pair affine_stack(std::uint64_t stream, Index size, int frames) {
  std::mt19937_64 rng(testing::run_seed() + stream);
  std::uniform_real_distribution<double> g(-0.01, 0.01), t(-2.0, 2.0);
  synth::SpeckleOptions s;
  s.rows = s.cols = size;
  s.speckle_radius = 2.5;
  s.noise_sigma = 150;
  s.seed = static_cast<std::uint32_t>(stream + 5);
  Pair p{synth::render_speckle_field(s, synth::translation_field(0, 0), 0),
         Stack<float>(size, size, frames)};
  const double ux = g(rng), uy = g(rng), vx = g(rng), vy = g(rng), u = t(rng), v = t(rng);
  const double c = (static_cast<double>(size) - 1) / 2;
  for (int k = 0; k < frames; ++k) {
    const double f = k + 1;
    const Stack<float> d = synth::render_speckle_field(
        s, synth::affine_field(f * u, f * v, f * ux, f * uy, f * vx, f * vy, c, c),
        static_cast<std::uint64_t>(k + 1));
    std::copy(d.values().begin(), d.values().end(), p.frames[k].data);
  }
  return p;
}

void expect_gpu_equals_cpu(const Pair& p, const DicOptions& o, const Roi& roi = {}) {
  auto gpu = gpu::make_gpu_registrar(engine());
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
  const auto cpu = make_cpu_registrar(engine());
  auto rg = run_dic(*gpu.value(), p.reference[0], p.frames.view(), roi, o);
  auto rc = run_dic(*cpu, p.reference[0], p.frames.view(), roi, o);
  ASSERT_TRUE(rg.is_ok()) << rg.status().message();
  ASSERT_TRUE(rc.is_ok()) << rc.status().message();
  EXPECT_EQ(rg.value().device, "gpu");
  ASSERT_EQ(rg.value().frames.size(), rc.value().frames.size());
  int compared = 0, status_differs = 0;
  double worst = 0;
  for (std::size_t f = 0; f < rg.value().frames.size(); ++f) {
    const auto& a = rg.value().frames[f].points;
    const auto& b = rc.value().frames[f].points;
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a[k].status != b[k].status) {
        ++status_differs;
        continue;
      }
      if (a[k].status != PointStatus::converged) continue;
      ++compared;
      worst = std::max({worst, std::abs(a[k].u - b[k].u), std::abs(a[k].v - b[k].v)});
      EXPECT_NEAR(a[k].u, b[k].u, 1e-4) << "frame " << f + 1 << " point " << k;
      EXPECT_NEAR(a[k].v, b[k].v, 1e-4) << "frame " << f + 1 << " point " << k;
      EXPECT_NEAR(a[k].zncc, b[k].zncc, 1e-5);
      // sigma goes with sqrt(1 - zncc): the same formula (math::noise_sigma) on the GPU's
      // float-rounded subset agrees within 5 %, or within 2e-4 px where the pair is nearly
      // noise-free (1 - zncc ~ 1e-9: the float rounding of the moments decides it, times the
      // prefilter's correlation factor; run 27 on the H200: GPU 1.16e-4 px where the CPU's
      // float64 sums give exactly 0).
      EXPECT_NEAR(a[k].sigma_u, b[k].sigma_u, std::max(0.05 * b[k].sigma_u, 2e-4)) << k;
      EXPECT_NEAR(a[k].sigma_v, b[k].sigma_v, std::max(0.05 * b[k].sigma_v, 2e-4)) << k;
      EXPECT_TRUE(std::isfinite(a[k].sigma_u) && std::isfinite(a[k].sigma_v)) << k;
    }
  }
  std::printf(
      "[ dic gpu ] %d converged points compared, max |gpu - cpu| %.2e px, %d statuses differ\n",
      compared, worst, status_differs);
  EXPECT_GT(compared, 100);
  EXPECT_EQ(status_differs, 0);
}

// The border case of docs/dic.md on the GPU: motion of 8-12 px toward a border with a 4 % stretch
// (fresh each run); the consistency check runs on the GPU's results (its second pass on the GPU
// too): no converged point further than 0.1 px from the truth, and the same statuses and values as
// the CPU path.
TEST(DicGpu, NoConvergedPointIsAGrossErrorWhenTheMotionLeavesTheImage) {
  XCORR_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(testing::run_seed() + 77);
  std::uniform_real_distribution<double> amount(8, 12), angle(0, 6.283185307179586);
  synth::SpeckleOptions s;
  s.rows = 200, s.cols = 240;
  s.speckle_radius = 2.5;
  s.noise_sigma = 150;
  s.seed = static_cast<std::uint32_t>(rng());
  const double a = angle(rng), d = amount(rng);
  const auto field = synth::affine_field(d * std::cos(a), d * std::sin(a), 0.04, 0, 0, 0.04,
                                         (s.cols - 1) / 2.0, (s.rows - 1) / 2.0);
  Pair p{synth::render_speckle_field(s, synth::translation_field(0, 0), 1), Stack<float>()};
  p.frames = synth::render_speckle_field(s, field, 2);
  DicOptions o;
  o.search_radius = 18;
  auto gpu = gpu::make_gpu_registrar(engine());
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
  auto r = run_dic(*gpu.value(), p.reference[0], p.frames.view(), Roi{}, o);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  int converged = 0;
  for (const PointResult& q : r.value().frames[0].points) {
    if (q.status != PointStatus::converged) continue;
    ++converged;
    const synth::FieldSample t = field(q.x, q.y);
    EXPECT_LE(std::max(std::abs(q.u - t.u), std::abs(q.v - t.v)), 0.1)
        << "(" << q.x << ", " << q.y << ") ZNCC " << q.zncc;
  }
  EXPECT_GT(converged, 100);
  expect_gpu_equals_cpu(p, o);
}

TEST(DicGpu, MatchesTheCpuPathInReferenceMode) {
  XCORR_SKIP_WITHOUT_GPU();
  DicOptions o;
  o.step = 9;
  expect_gpu_equals_cpu(affine_stack(1, 203, 2), o);
}

TEST(DicGpu, MatchesTheCpuPathInIncrementalModeWithAnotherGuessVariant) {
  XCORR_SKIP_WITHOUT_GPU();
  DicOptions o;
  o.subset = 25;
  o.step = 11;
  o.stack_mode = StackMode::incremental;
  o.method = "gpu_basic";
  expect_gpu_equals_cpu(affine_stack(2, 160, 3), o);
}

// An ROI's work window on the device, growing as the points travel 36 px over 8 frames
// (DicSession): the GPU registrar gets windows of changing size and must still match the CPU.
TEST(DicGpu, MatchesTheCpuPathInAGrowingRoiWindow) {
  XCORR_SKIP_WITHOUT_GPU();
  synth::SpeckleOptions s;
  s.rows = s.cols = 200;
  s.speckle_radius = 2.5;
  s.seed = 21;
  Pair p{synth::render_speckle_field(s, synth::translation_field(0, 0), 0),
         Stack<float>(200, 200, 8)};
  for (int k = 0; k < 8; ++k) {
    const Stack<float> d =
        synth::render_speckle_field(s, synth::translation_field(4.5 * (k + 1), -2.0 * (k + 1)),
                                    static_cast<std::uint64_t>(k + 1));
    std::copy(d.values().begin(), d.values().end(), p.frames[k].data);
  }
  DicOptions o;
  o.subset = 21;
  o.step = 6;
  o.search_radius = 5;
  expect_gpu_equals_cpu(p, o, Roi{{parse_roi_shape("rect:60,70,50,40").value()}});
}

// The stack pipeline on the device: frames started before their results are taken, and frames
// handed over early (preloaded: uploaded, their coefficients made while the host checks the
// frame before) and registered ahead (reference mode), give the sequential run's results bit for
// bit, over a growing ROI window, in both stack modes, with one GPU and with the points shared by
// every GPU there is (two lanes on one GPU where it is alone); and with a consistency check tight
// enough that frames register suspects a second time while the next frame registers ahead.
TEST(DicGpu, APipelinedStackEqualsTheSequentialOneBitForBit) {
  XCORR_SKIP_WITHOUT_GPU();
  testing::TravellingStack t = testing::travelling_stack(22, 2.5);
  const auto listed = gpu::list_devices();
  ASSERT_TRUE(listed.is_ok());
  // Shared: every GPU there is, or two lanes on the one GPU (the same path: a frame split in two,
  // each lane preloading it).
  std::vector<int> all;
  for (std::size_t d = 0; d < listed.value().size(); ++d) all.push_back(static_cast<int>(d));
  if (all.size() < 2) all = {0, 0};
  const DicOptions defaults = t.options;
  for (const bool every : {false, true}) {
    // Both stack modes; then reference mode with a consistency check tight enough for the
    // camera noise (suspects registered a second time while the next frame is preloaded).
    for (const int variant : {0, 1, 2}) {
      t.options = defaults;
      t.options.stack_mode = variant == 1 ? StackMode::incremental : StackMode::reference;
      if (variant == 2) t.options.max_deviation = 0.015;
      SCOPED_TRACE(std::string(every ? "shared" : "one GPU") + ", variant " +
                   std::to_string(variant));
      auto registrar =
          every ? gpu::make_multi_gpu_registrar(all) : gpu::make_gpu_registrar(engine());
      ASSERT_TRUE(registrar.is_ok()) << registrar.status().message();
      dic::FrameRegistrar& r = *registrar.value();
      const testing::PipelineRun run = testing::expect_pipeline_equals_sequential(
          r, t.reference[0], t.frames, t.roi, t.options,
          [&r] { return gpu::last_gpu_stage_seconds(r).preloaded; }, variant == 2 ? 5 : 20);
      EXPECT_NE(run.first, run.last) << "the test needs a grown window";
      EXPECT_GE(run.preloaded, 1) << "no frame came from its preload";
      EXPECT_EQ(run.taken, run.preloaded) << "the registrar dropped a preload it was given";
      if (variant == 1) {
        EXPECT_EQ(run.ahead, 0u) << "a frame after a reference move registered ahead";
      } else {
        EXPECT_GE(run.ahead, 1u) << "no frame registered ahead";
        EXPECT_GT(run.again, 0u) << "no point registered again (the missing pixels move)";
      }
      if (variant == 2) {
        EXPECT_GT(run.suspects, 0u) << "no suspects registered";
      }
    }
  }
}

// Progress inside a frame (dic::PointProgress): the GPU registrar reports after the guess (half
// the units) and at the end; false after the guess cancels the frame, and the session goes on
// to give the uninterrupted result.
TEST(DicGpu, ReportsProgressInsideAFrameAndCancels) {
  XCORR_SKIP_WITHOUT_GPU();
  auto gpu = gpu::make_gpu_registrar(engine());
  ASSERT_TRUE(gpu.is_ok());
  const Pair p = affine_stack(4, 160, 1);
  DicOptions o;
  o.step = 6;
  auto session = DicSession::create(*gpu.value(), p.reference[0], Roi{}, o);
  ASSERT_TRUE(session.is_ok()) << session.status().message();
  std::vector<std::pair<Index, Index>> seen;
  auto stop = session.value().next(p.frames[0], 1, [&](Index done, Index total) {
    seen.push_back({done, total});
    return false;
  });
  EXPECT_EQ(stop.status().code(), ErrorCode::cancelled);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(2 * seen[0].first, seen[0].second) << "after the guess: half";
  seen.clear();
  auto whole = session.value().next(p.frames[0], 1, [&](Index done, Index total) {
    seen.push_back({done, total});
    return true;
  });
  ASSERT_TRUE(whole.is_ok()) << whole.status().message();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].first, seen[1].second);
  auto fresh = run_dic(*gpu.value(), p.reference[0], p.frames.view(), Roi{}, o);
  ASSERT_TRUE(fresh.is_ok());
  ASSERT_EQ(fresh.value().frames[0].points.size(), whole.value().points.size());
  for (std::size_t k = 0; k < whole.value().points.size(); ++k) {
    const PointResult &a = whole.value().points[k], &b = fresh.value().frames[0].points[k];
    EXPECT_EQ(a.status, b.status);
    if (a.status == PointStatus::converged) {
      EXPECT_EQ(a.u, b.u) << k;
    }
  }
}

// Reliability-guided work on the GPU (an independent pass, then waves from the converged
// neighbours): a field whose displacement grows to +-4.6 px across the image (6.5-7.2 % stretch
// about the centre, fresh amount each run; on the CPU at 7 %: 289 of 484 points converge
// independently, 400 with propagation, the rest leave the image) with a search radius of 2 px, so
// the integer search of the outer points misses their match and only propagation reaches them.
// The GPU must converge the points the CPU's propagation converges, each within 0.015 px of the
// truth (noise 150 grey values), and agree with the CPU within 1e-3 px (both stop at
// |dp| < 1e-3 from different starts); the independent pass alone loses the outer points. A wave
// starts a failed point from its best converged neighbour only, where the CPU's growth may reach
// it from another: at most 1 % of the CPU's converged points may diverge on the GPU (measured in
// run 92: one point of 400 in 1 of 60 runs, at the image's edge; docs/perf/runs).
TEST(DicGpu, ReliabilityGuidedReachesWhatTheIntegerSearchMisses) {
  XCORR_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(testing::run_seed() + 91);
  std::uniform_real_distribution<double> stretch(0.065, 0.072);
  synth::SpeckleOptions s;
  s.rows = s.cols = 160;
  s.speckle_radius = 2.5;
  s.noise_sigma = 150;
  s.seed = static_cast<std::uint32_t>(rng());
  const double e = stretch(rng), c = (s.cols - 1) / 2.0;
  const auto field = synth::affine_field(0, 0, e, 0, 0, e, c, c);
  const Stack<float> ref = synth::render_speckle_field(s, synth::translation_field(0, 0), 1);
  const Stack<float> def = synth::render_speckle_field(s, field, 2);
  DicOptions o;
  o.search_radius = 2;
  o.step = 6;
  o.propagation = Propagation::reliability_guided;
  auto gpu = gpu::make_gpu_registrar(engine());
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
  const auto cpu = make_cpu_registrar(engine());
  auto rg = run_dic(*gpu.value(), ref[0], def.view(), Roi{}, o);
  auto rc = run_dic(*cpu, ref[0], def.view(), Roi{}, o);
  DicOptions independent = o;
  independent.propagation = Propagation::independent;
  auto ri = run_dic(*gpu.value(), ref[0], def.view(), Roi{}, independent);
  ASSERT_TRUE(rg.is_ok()) << rg.status().message();
  ASSERT_TRUE(rc.is_ok()) << rc.status().message();
  ASSERT_TRUE(ri.is_ok()) << ri.status().message();
  EXPECT_EQ(rg.value().device, "gpu");
  const auto& a = rg.value().frames[0].points;
  const auto& b = rc.value().frames[0].points;
  int gpu_converged = 0, cpu_converged = 0, independent_converged = 0, cpu_only = 0;
  double worst = 0, worst_truth = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    independent_converged += ri.value().frames[0].points[k].status == PointStatus::converged;
    cpu_converged += b[k].status == PointStatus::converged;
    if (a[k].status != PointStatus::converged) {
      if (b[k].status == PointStatus::converged) {
        ++cpu_only;
        std::printf("[ dic gpu ] point %zu (%g, %g): CPU converged (u, v %.4f, %.4f), GPU %s\n", k,
                    a[k].x, a[k].y, b[k].u, b[k].v, to_string(a[k].status));
      }
      continue;
    }
    ++gpu_converged;
    const synth::FieldSample t = field(a[k].x, a[k].y);
    worst_truth = std::max({worst_truth, std::abs(a[k].u - t.u), std::abs(a[k].v - t.v)});
    EXPECT_LE(std::max(std::abs(a[k].u - t.u), std::abs(a[k].v - t.v)), 0.015) << k;
    if (b[k].status != PointStatus::converged) continue;
    worst = std::max({worst, std::abs(a[k].u - b[k].u), std::abs(a[k].v - b[k].v)});
    EXPECT_NEAR(a[k].u, b[k].u, 1e-3) << k;
    EXPECT_NEAR(a[k].v, b[k].v, 1e-3) << k;
  }
  std::printf(
      "[ dic gpu ] reliability, stretch %.4f: converged GPU %d, CPU %d, GPU independent pass "
      "alone %d of %zu; max |gpu - cpu| %.2e px, max |gpu - truth| %.4f px\n",
      e, gpu_converged, cpu_converged, independent_converged, a.size(), worst, worst_truth);
  EXPECT_LE(cpu_only * 100, cpu_converged) << "CPU-converged points the GPU lost";
  EXPECT_LT(independent_converged, gpu_converged) << "the field must need propagation";
}

// Second-order IC-GN on the GPU (icgn2_kernel) against the CPU's: an affine stack (second-order
// terms 0) and a curved field (u = a sin(2 pi x / period), fresh amount each run), reference and
// incremental mode; within 1e-4 px and the same statuses (expect_gpu_equals_cpu).
TEST(DicGpu, SecondOrderMatchesTheCpuPath) {
  XCORR_SKIP_WITHOUT_GPU();
  DicOptions o;
  o.shape = ShapeFunction::second_order;
  o.step = 9;
  expect_gpu_equals_cpu(affine_stack(11, 128, 2), o);
  std::mt19937_64 rng(testing::run_seed() + 13);
  std::uniform_real_distribution<double> amplitude(0.3, 0.6), period(100, 160);
  synth::SpeckleOptions s;
  s.rows = s.cols = 160;
  s.speckle_radius = 2.5;
  s.noise_sigma = 150;
  s.seed = static_cast<std::uint32_t>(rng());
  Pair p{synth::render_speckle_field(s, synth::translation_field(0, 0), 1), Stack<float>()};
  p.frames = synth::render_speckle_field(s, synth::sinusoid_field(amplitude(rng), period(rng)), 2);
  expect_gpu_equals_cpu(p, o);
  o.stack_mode = StackMode::incremental;
  expect_gpu_equals_cpu(affine_stack(12, 128, 3), o);
}

}  // namespace
}  // namespace xcorr::dic
