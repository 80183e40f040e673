// The DIC pipeline on synthetic speckle with known fields (fresh random sub-pixel amounts per run,
// seed printed): translations in [-5, 5] px and affine strains up to 2 % to <= 0.01 px, strain
// from the plane fit, reliability-guided propagation, incremental stacks, statuses, cancellation,
// and clear errors for bad input.
#include "core/dic/dic.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/dic/frame_registrar.hpp"
#include "core/dic/session.hpp"
#include "core/synth/speckle.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/pipeline_testing.hpp"

namespace xcorr::dic {
namespace {

synth::SpeckleOptions pattern(Index size, std::uint32_t seed) {
  synth::SpeckleOptions o;
  o.rows = o.cols = size;
  o.speckle_radius = 2.2;
  o.seed = seed;
  return o;
}

struct Errors {
  double max_u = 0, max_v = 0;
  int converged = 0, valid = 0;
  int lost = 0;  // reported outside_roi although the truly moved subset stays in the image
};

// Points whose truly moved subset leaves the image cannot be measured (any status is fine); every
// other grid point in the ROI must converge (valid == converged, lost == 0) within the tolerance.
// "Stays in the image" with a 2 px margin: the fields' gradients (up to 5 %) move a subset's
// corners up to ~0.8 px further than its centre. The border itself: tests/core/dic/border_test.cpp.
Errors compare(const FrameResult& f, const synth::DisplacementField& truth, double size,
               int subset = 31) {
  Errors e;
  const double h = subset / 2 + 2;
  auto fits = [&](double x, double y) {
    return x - h >= 0 && y - h >= 0 && x + h <= size - 1 && y + h <= size - 1;
  };
  for (const PointResult& p : f.points) {
    const synth::FieldSample t = truth(p.x, p.y);
    if (!fits(p.x, p.y) || !fits(p.x + t.u, p.y + t.v)) continue;
    if (p.status == PointStatus::outside_roi) {
      ++e.lost;
      continue;
    }
    ++e.valid;
    if (p.status != PointStatus::converged) continue;
    ++e.converged;
    e.max_u = std::max(e.max_u, std::abs(p.u - t.u));
    e.max_v = std::max(e.max_v, std::abs(p.v - t.v));
  }
  return e;
}

// A frame's points in parts (several GPUs, MPI ranks): contiguous grid ranges that cover the
// grid in order, part k holding active points points * k / parts to points * (k + 1) / parts.
TEST(Dic, SplitPointsGivesContiguousPartsWithEqualActivePoints) {
  std::mt19937 rng(static_cast<std::uint32_t>(testing::run_seed()));
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<char> active(rng() % 60);
    const unsigned density = 1 + rng() % 4;  // 1: every point active ... 4: a quarter
    for (char& a : active) a = rng() % density == 0 ? 1 : 0;
    const std::size_t parts = 1 + rng() % 5;
    const std::vector<std::size_t> b = split_points(active, parts);
    ASSERT_EQ(b.size(), parts + 1);
    EXPECT_EQ(b.front(), 0u);
    EXPECT_EQ(b.back(), active.size());
    const auto points = static_cast<Index>(std::count(active.begin(), active.end(), char{1}));
    for (std::size_t k = 0; k < parts; ++k) {
      ASSERT_LE(b[k], b[k + 1]);
      const auto in_part = static_cast<Index>(
          std::count(active.begin() + static_cast<std::ptrdiff_t>(b[k]),
                     active.begin() + static_cast<std::ptrdiff_t>(b[k + 1]), char{1}));
      const auto P = static_cast<Index>(parts), K = static_cast<Index>(k);
      EXPECT_EQ(in_part, points * (K + 1) / P - points * K / P)
          << "part " << k << " of " << parts << ", " << active.size() << " grid points";
    }
  }
  EXPECT_EQ(split_points({}, 3), (std::vector<std::size_t>{0, 0, 0, 0}));
}

TEST(Dic, RecoversTranslationsToAHundredthOfAPixel) {
  std::mt19937_64 rng(testing::run_seed());
  std::uniform_real_distribution<double> shift(-5.0, 5.0);
  const auto o = pattern(160, 11);
  const Stack<float> ref = synth::render_speckle_field(o, synth::translation_field(0, 0));
  DicOptions opt;
  opt.step = 12;
  for (int trial = 0; trial < 4; ++trial) {
    const double u = shift(rng), v = shift(rng);
    const auto field = synth::translation_field(u, v);
    const Stack<float> def = synth::render_speckle_field(o, field);
    auto r = run_dic(testing::cpu_registry(), ref[0], def.view(), Roi{}, opt);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    const Errors e = compare(r.value().frames[0], field, 160);
    EXPECT_EQ(e.lost, 0) << "u=" << u << " v=" << v;
    EXPECT_EQ(e.converged, e.valid) << "u=" << u << " v=" << v;
    EXPECT_GT(e.valid, 50);
    EXPECT_LE(e.max_u, 0.01) << "u=" << u << " v=" << v;
    EXPECT_LE(e.max_v, 0.01) << "u=" << u << " v=" << v;
  }
}

TEST(Dic, RecoversAffineFieldsAndTheirStrain) {
  std::mt19937_64 rng(testing::run_seed() + 1);
  std::uniform_real_distribution<double> strain(-0.02, 0.02), shift(-3.0, 3.0);
  const auto o = pattern(200, 12);
  const Stack<float> ref = synth::render_speckle_field(o, synth::translation_field(0, 0));
  const double ux = strain(rng), uy = strain(rng) / 2, vx = strain(rng) / 2, vy = strain(rng);
  const auto field = synth::affine_field(shift(rng), shift(rng), ux, uy, vx, vy, 100, 100);
  const Stack<float> def = synth::render_speckle_field(o, field);
  for (const Propagation prop : {Propagation::independent, Propagation::reliability_guided}) {
    DicOptions opt;
    opt.step = 10;
    opt.propagation = prop;
    auto r = run_dic(testing::cpu_registry(), ref[0], def.view(), Roi{}, opt);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    const FrameResult& f = r.value().frames[0];
    const Errors e = compare(f, field, 200);
    EXPECT_EQ(e.lost, 0) << to_string(prop);
    EXPECT_EQ(e.converged, e.valid) << to_string(prop);
    EXPECT_LE(e.max_u, 0.01) << to_string(prop) << " ux=" << ux << " uy=" << uy;
    EXPECT_LE(e.max_v, 0.01) << to_string(prop) << " vx=" << vx << " vy=" << vy;
    // Green-Lagrange strain of the affine field, from the plane fit.
    const double exx = ux + 0.5 * (ux * ux + vx * vx), eyy = vy + 0.5 * (uy * uy + vy * vy),
                 exy = 0.5 * (uy + vx + ux * uy + vx * vy);
    // Points whose plane fit (strain_window points each way) takes in only points whose
    // subsets stay 2 px inside the image, moved too (as compare() checks displacements).
    const double reach = (opt.strain_window / 2) * opt.step, h = opt.subset / 2 + 2;
    const auto inner = [&](double x, double y) {
      const synth::FieldSample t = field(x, y);
      for (const double px : {x, x + t.u})
        for (const double py : {y, y + t.v})
          if (px - reach - h < 0 || py - reach - h < 0 || px + reach + h > 199 ||
              py + reach + h > 199)
            return false;
      return true;
    };
    int with_strain = 0;
    for (const PointResult& p : f.points) {
      if (std::isnan(p.exx) || !inner(p.x, p.y)) continue;
      ++with_strain;
      EXPECT_NEAR(p.exx, exx, 2e-4);
      EXPECT_NEAR(p.eyy, eyy, 2e-4);
      EXPECT_NEAR(p.exy, exy, 2e-4);
      EXPECT_NEAR(p.ux, ux, 2e-3);
      EXPECT_NEAR(p.vy, vy, 2e-3);
    }
    EXPECT_GT(with_strain, 100);
  }
}

// A field with curvature: the second-order shape function follows it to <= 0.01 px where the
// first-order one is biased by the curvature over the subset (~uxx <xi^2> / 2).
TEST(Dic, SecondOrderShapeFunctionFollowsCurvedFields) {
  std::mt19937_64 rng(testing::run_seed() + 3);
  std::uniform_real_distribution<double> k(3e-4, 5e-4), t(-2.0, 2.0);
  const double a = k(rng), b = k(rng), u0 = t(rng), v0 = t(rng);
  const synth::DisplacementField field = [=](double x, double y) {
    const double dx = x - 100, dy = y - 100;
    // u = u0 + a dx^2 / 2;  v = v0 - b dy^2 / 2 + a dx dy / 4; and their gradients.
    return synth::FieldSample{
        u0 + a * dx * dx / 2, v0 - b * dy * dy / 2 + a * dx * dy / 4, a * dx, 0.0, a * dy / 4,
        -b * dy + a * dx / 4};
  };
  const auto o = pattern(200, 17);
  const Stack<float> ref = synth::render_speckle_field(o, synth::translation_field(0, 0));
  const Stack<float> def = synth::render_speckle_field(o, field);
  double worst[2] = {0, 0};
  for (const ShapeFunction shape : {ShapeFunction::first_order, ShapeFunction::second_order}) {
    DicOptions opt;
    opt.step = 12;
    opt.shape = shape;
    auto r = run_dic(testing::cpu_registry(), ref[0], def.view(), Roi{}, opt);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    const Errors e = compare(r.value().frames[0], field, 200);
    EXPECT_EQ(e.lost, 0) << to_string(shape);
    EXPECT_EQ(e.converged, e.valid) << to_string(shape);
    worst[shape == ShapeFunction::second_order] = std::max(e.max_u, e.max_v);
  }
  std::printf(
      "[ curved   ] uxx=%.2e vyy=%.2e: max error first order %.4f px, second order %.4f px\n", a,
      -b, worst[0], worst[1]);
  EXPECT_LE(worst[1], 0.01);
  EXPECT_LT(worst[1], worst[0]);
}

// The generator's sinusoid field (u = a sin(2 pi x / period), v = 0), as in DIC Challenge
// sample 14 but with a known period: second order recovers it to <= 0.01 px.
TEST(Dic, RecoversASinusoidalField) {
  std::mt19937_64 rng(testing::run_seed() + 4);
  std::uniform_real_distribution<double> amp(0.2, 0.5), period(160, 240);
  const double a = amp(rng), T = period(rng);
  const auto field = synth::sinusoid_field(a, T);
  const auto o = pattern(200, 18);
  const Stack<float> ref = synth::render_speckle_field(o, synth::translation_field(0, 0));
  const Stack<float> def = synth::render_speckle_field(o, field);
  DicOptions opt;
  opt.step = 10;
  opt.shape = ShapeFunction::second_order;
  auto r = run_dic(testing::cpu_registry(), ref[0], def.view(), Roi{}, opt);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const Errors e = compare(r.value().frames[0], field, 200);
  EXPECT_EQ(e.lost, 0);
  EXPECT_EQ(e.converged, e.valid);
  EXPECT_LE(e.max_u, 0.01) << "amplitude " << a << " px, period " << T << " px";
  EXPECT_LE(e.max_v, 0.01) << "amplitude " << a << " px, period " << T << " px";
}

TEST(Dic, IncrementalStackAccumulatesDisplacements) {
  const auto o = pattern(128, 13);
  Stack<float> frames(128, 128, 4);
  const Stack<float> ref = synth::render_speckle_field(o, synth::translation_field(0, 0));
  for (Index k = 0; k < 4; ++k) {
    const Stack<float> f = synth::render_speckle_field(
        o, synth::translation_field(0.7 * static_cast<double>(k + 1),
                                    -0.45 * static_cast<double>(k + 1)));
    std::copy(f.values().begin(), f.values().end(), frames[k].data);
  }
  for (const int update : {1, 2}) {
    DicOptions opt;
    opt.step = 16;
    opt.stack_mode = StackMode::incremental;
    opt.reference_update = update;
    auto r = run_dic(testing::cpu_registry(), ref[0], frames.view(), Roi{}, opt);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    ASSERT_EQ(r.value().frames.size(), 4u);
    for (Index k = 0; k < 4; ++k) {
      const auto truth = synth::translation_field(0.7 * static_cast<double>(k + 1),
                                                  -0.45 * static_cast<double>(k + 1));
      const Errors e = compare(r.value().frames[static_cast<std::size_t>(k)], truth, 128);
      EXPECT_EQ(e.lost, 0) << "frame " << k + 1 << " update " << update;
      EXPECT_EQ(e.converged, e.valid) << "frame " << k + 1 << " update " << update;
      EXPECT_LE(e.max_u, 0.02) << "frame " << k + 1 << " update " << update;
      EXPECT_LE(e.max_v, 0.02) << "frame " << k + 1 << " update " << update;
    }
  }
}

TEST(Dic, ReportsEveryGridPointWithItsStatus) {
  const auto o = pattern(120, 14);
  Stack<float> ref = synth::render_speckle_field(o, synth::translation_field(0, 0));
  Stack<float> def = synth::render_speckle_field(o, synth::translation_field(0.3, 0.2));
  for (Index y = 60; y < 120; ++y) {
    for (Index x = 0; x < 60; ++x) ref[0](y, x) = def[0](y, x) = 1000.0f;  // flat: no texture
  }
  Roi roi;
  roi.shapes.push_back(parse_roi_shape("rect:0,0,120,120").value());
  roi.shapes.push_back(parse_roi_shape("-rect:80,0,40,40").value());
  DicOptions opt;
  opt.step = 10;
  auto r = run_dic(testing::cpu_registry(), ref[0], def.view(), roi, opt);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const Grid& g = r.value().grid;
  const auto& pts = r.value().frames[0].points;
  ASSERT_EQ(pts.size(), static_cast<std::size_t>(g.rows * g.cols));
  int low = 0, outside = 0, converged = 0;
  for (const PointResult& p : pts) {
    if (p.status == PointStatus::low_texture) {
      ++low;
      EXPECT_TRUE(std::isnan(p.u));
      EXPECT_LE(p.x, 60 + 15);
      EXPECT_GE(p.y, 60 - 15);
    }
    if (p.status == PointStatus::outside_roi) {
      ++outside;
      EXPECT_TRUE(std::isnan(p.u) && std::isnan(p.exx));
    }
    if (p.status == PointStatus::converged) {
      ++converged;
      const bool clear_of_flat = p.x - 16 > 60 || p.y + 16 < 60;  // subset misses the flat patch
      if (clear_of_flat) {
        EXPECT_NEAR(p.u, 0.3, 0.01) << p.x << "," << p.y;
      }
    }
  }
  EXPECT_GT(low, 5);
  EXPECT_GT(outside, 5);
  EXPECT_GT(converged, 30);
}

TEST(Dic, CancelStopsAfterTheCurrentFrame) {
  const auto o = pattern(96, 15);
  const Stack<float> ref = synth::render_speckle(o, 0, 0);
  const Stack<float> frames = synth::render_translation_stack(o, 3, 0.2, 0.1);
  Index seen = 0;
  auto r = run_dic(testing::cpu_registry(), ref[0], frames.view(), Roi{}, DicOptions{},
                   [&](Index done, Index) {
                     seen = done;
                     return false;
                   });
  EXPECT_EQ(r.status().code(), ErrorCode::cancelled);
  EXPECT_EQ(seen, 1);
}

// With an ROI the work covers a window around it (DicSession); points that move far make the
// window grow before their search could reach past it. The results must equal the whole image's:
// an ROI with the same mask whose bounding box spans the image (a 2 px corner added and taken away
// again at two corners) runs on the whole image (320 px). 8 frames moving 7.5 px and -2 px each
// (60 px in all, more than the first window's margin of 10 + 2 x 8 + 24 = 50 px: subset half,
// twice the search radius 8, spline_reach) in both stack modes.
// Points that fail may fail differently (an IC-GN that wanders off reads outside_roi at the
// window's edge, diverged inside the image): only converged points are compared.
TEST(Dic, AnRoiWindowGivesTheWholeImagesResults) {
  const auto o = pattern(320, 21);
  const Stack<float> ref = synth::render_speckle_field(o, synth::translation_field(0, 0));
  constexpr Index kFrames = 8;
  Stack<float> frames(320, 320, kFrames);
  for (Index k = 0; k < kFrames; ++k) {
    const double t = static_cast<double>(k + 1);
    const Stack<float> f =
        synth::render_speckle_field(o, synth::translation_field(7.5 * t, -2.0 * t));
    std::copy(f.values().begin(), f.values().end(), frames[k].data);
  }
  const Roi small{{parse_roi_shape("rect:60,70,50,40").value()}};
  Roi spanning = small;
  for (const char* s : {"rect:0,0,2,2", "-rect:0,0,2,2", "rect:317,317,2,2", "-rect:317,317,2,2"})
    spanning.shapes.push_back(parse_roi_shape(s).value());
  for (const StackMode mode : {StackMode::reference, StackMode::incremental}) {
    DicOptions opt;
    opt.subset = 21;
    opt.step = 6;
    opt.search_radius = 8;
    opt.stack_mode = mode;
    auto windowed = run_dic(testing::cpu_registry(), ref[0], frames.view(), small, opt);
    auto whole = run_dic(testing::cpu_registry(), ref[0], frames.view(), spanning, opt);
    ASSERT_TRUE(windowed.is_ok()) << windowed.status().message();
    ASSERT_TRUE(whole.is_ok()) << whole.status().message();
    EXPECT_LT(windowed.value().grid.points.size(), whole.value().grid.points.size() / 3);
    for (std::size_t f = 0; f < static_cast<std::size_t>(kFrames); ++f) {
      std::map<std::pair<double, double>, const PointResult*> by_position;
      for (const PointResult& p : whole.value().frames[f].points) by_position[{p.x, p.y}] = &p;
      int compared = 0;
      for (const PointResult& p : windowed.value().frames[f].points) {
        const auto it = by_position.find({p.x, p.y});
        ASSERT_NE(it, by_position.end()) << "off the image's grid: " << p.x << "," << p.y;
        const PointResult& q = *it->second;
        const std::string where = "frame " + std::to_string(f + 1) + " at " + std::to_string(p.x) +
                                  "," + std::to_string(p.y);
        ASSERT_EQ(p.status == PointStatus::converged, q.status == PointStatus::converged) << where;
        if (p.status != PointStatus::converged) continue;
        ++compared;
        EXPECT_NEAR(p.u, q.u, 1e-6) << where;
        EXPECT_NEAR(p.v, q.v, 1e-6) << where;
        EXPECT_NEAR(p.exx, q.exx, 1e-6) << where;
        EXPECT_NEAR(p.zncc, q.zncc, 1e-6) << where;
        EXPECT_NEAR(p.u, 7.5 * static_cast<double>(f + 1), 0.02) << where;
      }
      EXPECT_GE(compared, 40) << "frame " << f + 1;
    }
  }
}

// A run resumed from the state after frame 4 (its window grew at frame 3) continues exactly as
// the uninterrupted run: the state carries its window.
TEST(Dic, AGrownWindowResumesExactly) {
  const auto o = pattern(200, 21);
  const Stack<float> ref = synth::render_speckle_field(o, synth::translation_field(0, 0));
  auto frame = [&](int k) {
    return synth::render_speckle_field(o, synth::translation_field(4.5 * k, -2.0 * k));
  };
  const Roi roi{{parse_roi_shape("rect:60,70,50,40").value()}};
  DicOptions opt;
  opt.subset = 21;
  opt.step = 6;
  opt.search_radius = 5;
  auto registrar = make_cpu_registrar(testing::cpu_registry());
  auto whole = DicSession::create(*registrar, ref[0], roi, opt);
  ASSERT_TRUE(whole.is_ok());
  const Window first = whole.value().window();
  std::vector<FrameResult> expected;
  DicState after4;
  for (int k = 1; k <= 8; ++k) {
    auto r = whole.value().next(frame(k)[0], k);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    expected.push_back(r.value());
    if (k == 4) after4 = whole.value().state();
  }
  ASSERT_NE(after4.window, first) << "the test needs a grown window";
  auto resumed = DicSession::create(*registrar, ref[0], roi, opt);
  ASSERT_TRUE(resumed.is_ok());
  ASSERT_TRUE(resumed.value().restore(after4).is_ok());
  for (int k = 5; k <= 8; ++k) {
    auto r = resumed.value().next(frame(k)[0], k);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    const FrameResult& e = expected[static_cast<std::size_t>(k - 1)];
    ASSERT_EQ(r.value().points.size(), e.points.size());
    for (std::size_t i = 0; i < e.points.size(); ++i) {
      const PointResult &a = r.value().points[i], &b = e.points[i];
      ASSERT_EQ(a.x, b.x);
      ASSERT_EQ(a.status, b.status);
      if (b.status == PointStatus::converged) {
        ASSERT_EQ(a.u, b.u) << "frame " << k;
      }
    }
  }
}

// The stack pipeline (DicSession::start, results taken later) gives next()'s results bit for bit,
// also with every frame started before any result is taken, with each next frame handed over
// early (the session prepares it; frames are taken from it unless the window grew), and across a
// window that grows, in both stack modes (fresh random motion).
TEST(Dic, APipelinedStackEqualsTheSequentialOneBitForBit) {
  testing::TravellingStack t = testing::travelling_stack(23, 2.2);
  for (const StackMode mode : {StackMode::reference, StackMode::incremental}) {
    SCOPED_TRACE(mode == StackMode::reference ? "reference" : "incremental");
    t.options.stack_mode = mode;
    auto registrar = make_cpu_registrar(testing::cpu_registry());
    const testing::PipelineRun run = testing::expect_pipeline_equals_sequential(
        *registrar, t.reference[0], t.frames, t.roi, t.options);
    EXPECT_NE(run.first, run.last) << "the test needs a grown window";
    EXPECT_GE(run.preloaded, 1) << "no frame came from its preparation";
    EXPECT_LT(run.preloaded, static_cast<int>(t.frames.size()) - 1)
        << "the window grew, and the frame after it cannot come from its preparation";
    EXPECT_EQ(run.ahead, 0u) << "the CPU's registrar does not run ahead";
  }
  // A consistency check tight enough for the camera noise: frames register suspects a second
  // time while the next frame is prepared (reference mode keeps every point followed).
  t.options.stack_mode = StackMode::reference;
  t.options.max_deviation = 0.015;
  auto registrar = make_cpu_registrar(testing::cpu_registry());
  const testing::PipelineRun run = testing::expect_pipeline_equals_sequential(
      *registrar, t.reference[0], t.frames, t.roi, t.options, {}, 5);
  EXPECT_GT(run.suspects, 0u) << "no suspects registered";
  EXPECT_GE(run.preloaded, 1);
}

// The next frame registered ahead (DicSession, a registrar that may run ahead: here the CPU's,
// allowed to) gives next()'s results bit for bit: the points whose prediction the check of the
// frame before changed (missing pixels every frame; suspects with a tight check, registered
// again from their neighbours while the next frame registers ahead) are registered again; frames
// after a grown window, and frames after a reference move (incremental mode), register after
// the check instead.
TEST(Dic, TheNextFrameRegisteredAheadEqualsTheSequentialOneBitForBit) {
  testing::TravellingStack t = testing::travelling_stack(29, 2.2);
  const DicOptions defaults = t.options;
  const auto frames = t.frames.size();
  for (const int variant : {0, 1, 2}) {
    t.options = defaults;
    if (variant == 1) t.options.max_deviation = 0.015;
    if (variant == 2) {
      t.options.stack_mode = StackMode::incremental;
      t.options.reference_update = 3;  // frames 3 and 6 move it
    }
    SCOPED_TRACE("variant " + std::to_string(variant));
    auto registrar = make_cpu_registrar(testing::cpu_registry());
    const testing::PipelineRun run = testing::expect_pipeline_equals_sequential(
        *registrar, t.reference[0], t.frames, t.roi, t.options, {}, variant == 1 ? 5 : 20, true);
    EXPECT_NE(run.first, run.last) << "the test needs a grown window";
    EXPECT_GE(run.ahead, 1u) << "no frame registered ahead";
    EXPECT_LT(run.ahead, frames - 1) << "the frame after the grown window registered ahead";
    EXPECT_GT(run.again, 0u) << "no point registered again (the missing pixels move)";
    if (variant == 1) {
      EXPECT_GT(run.suspects, 0u) << "no suspects registered";
    }
    if (variant == 2) {
      EXPECT_LE(run.ahead, frames - 1 - 2) << "a frame after a reference move registered ahead";
    }
  }
}

// frame_guess = reference: every frame's search starts at no displacement, so in reference mode
// a frame's results are those of the same frame registered alone against the reference, bit for
// bit, whatever came before it (here a frame of another pattern, where nothing converges); and
// the next frame registered ahead never has points registered again (no check changes a
// prediction). Translations within the search radius, fresh random sub-pixel parts (seed printed).
TEST(Dic, SearchesFromTheReferenceMakeEachFrameItsOwn) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  const Index size = 101;  // odd, not a multiple of 32
  const auto o = pattern(size, 17);
  const Stack<float> ref = synth::render_speckle_field(o, synth::translation_field(0, 0));
  const double whole[4][2] = {{1, -1}, {4, 2}, {-3, 4}, {0, 0}};
  std::vector<Stack<float>> frames;
  for (const auto& w : whole)
    frames.push_back(synth::render_speckle_field(
        o, synth::translation_field(w[0] + frac(rng), w[1] - frac(rng))));
  std::vector<Stack<float>> damaged = frames;  // frame 2: another speckle pattern
  damaged[1] = synth::render_speckle_field(pattern(size, 99), synth::translation_field(0, 0));
  DicOptions opt;
  opt.step = 9;
  opt.subset = 21;
  opt.frame_guess = FrameGuess::reference;
  auto registrar = make_cpu_registrar(testing::cpu_registry());
  auto expect_same = [](const FrameResult& a, const FrameResult& b, std::size_t k) {
    ASSERT_EQ(a.points.size(), b.points.size());
    for (std::size_t i = 0; i < a.points.size(); ++i) {
      const PointResult &p = a.points[i], &q = b.points[i];
      ASSERT_EQ(p.status, q.status) << "frame " << k << " point " << i;
      if (q.status != PointStatus::converged) continue;
      ASSERT_EQ(p.u, q.u) << "frame " << k << " point " << i;
      ASSERT_EQ(p.v, q.v) << "frame " << k << " point " << i;
      ASSERT_EQ(p.zncc, q.zncc) << "frame " << k << " point " << i;
      ASSERT_EQ(p.iterations, q.iterations) << "frame " << k << " point " << i;
    }
  };
  for (const auto* stack : {&frames, &damaged}) {
    auto session = DicSession::create(*registrar, ref[0], Roi{}, opt);
    ASSERT_TRUE(session.is_ok()) << session.status().message();
    for (std::size_t k = 0; k < stack->size(); ++k) {
      auto got = session.value().next((*stack)[k][0], static_cast<Index>(k + 1));
      ASSERT_TRUE(got.is_ok()) << got.status().message();
      auto alone = DicSession::create(*registrar, ref[0], Roi{}, opt);
      ASSERT_TRUE(alone.is_ok());
      auto one = alone.value().next((*stack)[k][0], 1);
      ASSERT_TRUE(one.is_ok());
      one.value().frame = got.value().frame;
      expect_same(got.value(), one.value(), k + 1);
      int converged = 0;
      for (const PointResult& p : got.value().points)
        converged += p.status == PointStatus::converged ? 1 : 0;
      if (stack == &damaged && k == 1) {
        EXPECT_LT(converged, 5) << "the damaged frame must not match";
      } else {
        EXPECT_GE(converged, 40) << "frame " << k + 1;
      }
    }
  }
  // Registered ahead (the CPU registrar allowed to): the sequential results, nothing again.
  const testing::PipelineRun run = testing::expect_pipeline_equals_sequential(
      *registrar, ref[0], damaged, Roi{}, opt, {}, 0, true);
  EXPECT_EQ(run.ahead, damaged.size() - 1);
  EXPECT_EQ(run.again, 0u) << "a prediction changed";
}

TEST(Dic, BadInputGetsAClearError) {
  const auto o = pattern(64, 16);
  const Stack<float> ref = synth::render_speckle(o, 0, 0);
  Stack<float> def = synth::render_speckle(o, 0.5, 0.5);
  const Stack<float> small(50, 64, 1, 1.0f);
  auto msg = [&](StackView<const float> frames, const Roi& roi, const DicOptions& opt) {
    auto r = run_dic(testing::cpu_registry(), ref[0], frames, roi, opt);
    return r.is_ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(msg(small.view(), {}, {}),
            "the frames are 64 x 50 px (width x height) but the reference is 64 x 64 px (width x "
            "height)");
  DicOptions even;
  even.subset = 30;
  EXPECT_EQ(msg(def.view(), {}, even), "subset 30 px: must be odd and at least 5");
  Roi empty{{parse_roi_shape("rect:0,0,5,5").value()}};
  EXPECT_NE(msg(def.view(), empty, {}).find("the ROI holds no point of interest"),
            std::string::npos);
  Stack<float> nan_frame(64, 64, 1, std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(msg(nan_frame.view(), {}, {}),
            "frame 1 has no finite pixel where the ROI's points are measured (every pixel NaN or "
            "Inf)");
}

// Non-finite pixels are missing data: only the points whose reference subset or match touches
// one are missing_data (no displacement); the others measure the known shift as without them.
// Failed before: one NaN anywhere in the frame refused it whole.
TEST(Dic, MissingPixelsMarkOnlyTheSubsetsThatTouchThem) {
  const auto o = pattern(96, 21);
  const Stack<float> ref = synth::render_speckle(o, 0, 0);
  const Stack<float> def = synth::render_speckle(o, 0.4, -0.3);
  Stack<float> holes = def, ref_holes = ref;
  holes[0](30, 60) = std::numeric_limits<float>::quiet_NaN();      // x 60, y 30
  ref_holes[0](70, 25) = -std::numeric_limits<float>::infinity();  // x 25, y 70
  DicOptions opt;
  opt.subset = 21;
  opt.step = 8;
  auto clean = run_dic(testing::cpu_registry(), ref[0], def.view(), {}, opt);
  auto r = run_dic(testing::cpu_registry(), ref_holes[0], holes.view(), {}, opt);
  ASSERT_TRUE(clean.is_ok()) << clean.status().message();
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const auto& a = clean.value().frames[0].points;
  const auto& b = r.value().frames[0].points;
  ASSERT_EQ(a.size(), b.size());
  // Half the subset and the spline's support at the defaults (quintic, prefilter 0.6: 5 + 2 px).
  const double reach = 10 + 7;
  int missing = 0, same = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].status != PointStatus::converged) continue;
    const bool near_frame_hole = std::abs(a[k].x + a[k].u - 60) <= reach + 0.5 &&
                                 std::abs(a[k].y + a[k].v - 30) <= reach + 0.5;
    const bool near_ref_hole = std::abs(a[k].x - 25) <= reach && std::abs(a[k].y - 70) <= reach;
    const bool far = std::abs(a[k].x + a[k].u - 60) > reach + 1.5 &&
                     std::abs(a[k].y + a[k].v - 30) > reach + 1.5 &&
                     (std::abs(a[k].x - 25) > reach + 1 || std::abs(a[k].y - 70) > reach + 1);
    if (b[k].status == PointStatus::missing_data) {
      ++missing;
      EXPECT_TRUE(near_frame_hole || near_ref_hole) << "point " << a[k].x << "," << a[k].y;
      EXPECT_TRUE(std::isnan(b[k].u) && std::isnan(b[k].zncc));
    } else if (far) {
      ++same;
      EXPECT_EQ(b[k].status, PointStatus::converged) << a[k].x << "," << a[k].y;
      EXPECT_NEAR(b[k].u, a[k].u, 1e-3) << a[k].x << "," << a[k].y;
      EXPECT_NEAR(b[k].v, a[k].v, 1e-3) << a[k].x << "," << a[k].y;
    }
  }
  EXPECT_GE(missing, 4);  // each hole lies under a few subsets at step 8
  EXPECT_GE(same, 10);
}

}  // namespace
}  // namespace xcorr::dic
