// The host's share of a DIC frame, stage by stage: a 2048^2 reference, step 4, subset 31 (255,025
// points), through a DicSession whose registrar does no registration (it returns each point's
// prediction + 0.1 px), then the session's stages alone on the same grid. What docs/perf/dic.md's
// "rest" of a frame is made of (docs/scale-out.md, run 83). Not part of the build:
//   g++ -O2 -std=c++20 -I. scripts/perf/dic_host_stages.cpp -Wl,--start-group \
//       build/ci/core/*.a -Wl,--end-group -lpthread -lfftw3f -lfftw3f_threads \
//       -o dic_host_stages && ./dic_host_stages
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "core/correlation.hpp"
#include "core/dic/consistency.hpp"
#include "core/dic/session.hpp"
#include "core/dic/strain.hpp"
#include "core/parallel.hpp"
#include "core/synth/speckle.hpp"
using namespace xcorr;
using clk = std::chrono::steady_clock;
static double ms(clk::time_point t0) {
  return std::chrono::duration<double, std::milli>(clk::now() - t0).count();
}
struct Null : dic::FrameRegistrar {
  dic::FrameRegistration reg;
  std::string device() const override { return "gpu"; }
  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions&) override {
    auto t0 = clk::now();
    reg.points.resize(in.active->size());
    parallel_for((Index)reg.points.size(), 16384, [&](Index a, Index b) {
      for (Index k = a; k < b; ++k) {
        dic::IcgnResult q;
        q.p = (*in.predicted)[k];
        q.p[0] += 0.1;
        q.zncc = 0.99;
        q.status = (*in.active)[k] ? dic::PointStatus::converged : dic::PointStatus::outside_roi;
        q.sigma_u = q.sigma_v = 0.01;
        q.iterations = 3;
        reg.points[k] = q;
      }
    });
    reg.variant = "null";
    reg_ms += ms(t0);
    return &reg;
  }
  Result<std::string> guess_method(const dic::DicOptions&, Index, Index, Index) const override {
    return std::string("null");
  }
  double reg_ms = 0;
};
int main() {
  synth::SpeckleOptions s;
  s.rows = s.cols = 2048;
  s.speckle_radius = 3;
  s.seed = 3;
  auto ref = synth::render_speckle_field(s, synth::translation_field(0, 0), 0);
  Null n;
  dic::DicOptions o;
  o.step = 4;
  o.subset = 31;
  auto session = dic::DicSession::create(n, ref[0], dic::Roi{}, o);
  const int F = 20;
  auto t0 = clk::now();
  for (int f = 0; f < F; ++f) {
    auto r = session.value().next(ref[0], f + 1);
    if (!r.is_ok()) return 2;
  }
  const double total = ms(t0);
  std::printf("threads %d: session %.1f ms/frame (null registrar %.1f) -> host %.1f ms/frame\n",
              hardware_threads(), total / F, n.reg_ms / F, (total - n.reg_ms) / F);
  // Stages alone, on the same data.
  const dic::Grid& g = session.value().grid();
  const std::size_t np = g.points.size();
  std::vector<double> u(np, 0.1), v(np, 0.2), cx(np), cy(np);
  for (std::size_t k = 0; k < np; ++k) {
    cx[k] = g.points[k].x;
    cy[k] = g.points[k].y;
  }
  std::vector<char> active(np, 1);
  // Values like a real frame's (random, not all equal: sorting equal values never mispredicts a
  // branch, and hid the neighbours' medians' cost on real frames, docs/perf/dic.md).
  std::vector<dic::IcgnResult> pts(np);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 1);
  for (std::size_t k = 0; k < np; ++k) {
    dic::IcgnResult& q = pts[k];
    q.status = dic::PointStatus::converged;
    q.zncc = 1 - 0.003 * std::exp(0.5 * noise(rng));
    q.p = {0.7 + 0.01 * noise(rng), 0.002 + 1e-4 * noise(rng), 1e-4 * noise(rng),
           0.3 + 0.01 * noise(rng), 1e-4 * noise(rng),         -0.001 + 1e-4 * noise(rng)};
  }
  auto time = [&](const char* what, auto f) {
    f();
    auto t = clk::now();
    for (int i = 0; i < 5; ++i) f();
    std::printf("  %-28s %7.2f ms\n", what, ms(t) / 5);
  };
  time("copy 16 MB", [&] {
    Stack<float> w(2048, 2048, 1);
    std::memcpy(w[0].data, ref[0].data, 2048 * 2048 * 4);
  });
  time("check_finite", [&] { (void)check_finite(ref.view(), "x"); });
  time("compute_strain",
       [&] { (void)dic::compute_strain(g, u, v, 5, dic::StrainKind::green_lagrange); });
  time("find_zncc_outliers", [&] { (void)dic::find_zncc_outliers(active, pts); });
  time("find_isolated", [&] { (void)dic::find_isolated(g, active, pts); });
  time("find_suspects", [&] { (void)dic::find_suspects(g, cx, cy, active, pts, 1.0); });
  time("vector<PointResult>(n)", [&] { std::vector<dic::PointResult> r(np); });
  time("copy IcgnResult vector", [&] { std::vector<dic::IcgnResult> c = pts; });
  time("empty parallel_for x10", [&] {
    for (int i = 0; i < 10; ++i) parallel_for(16, 1, [](Index, Index) {});
  });
}
