// xcorr bench-dic: the DIC speed benchmark on a synthetic pair rendered in-process (no image
// files, so it runs from an engine-only build): a size x size 16-bit-range speckle reference and
// the same stretched by 0.2 % along x, -0.1 % along y and moved by (0.7, 0.3) px; subset, step,
// first-order IC-GN, independent points. Reports points per second: for the GPU the registrar's
// device-resident time (images on the device to results in host memory; several --devices: the
// whole frame call, uploads included), for the CPU the wall time of run_dic; and the
// displacement error against the known field. --frames N > 1 runs a stack of N frames instead
// (4 distinct deformed frames in turn, each frame's results dropped as a batch run streams them)
// and reports frames per second over the stack's wall time.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/commands.hpp"
#include "app/option_flags.hpp"
#include "core/dic/dic.hpp"
#include "core/dic/session.hpp"
#include "core/engine/engine.hpp"
#include "core/engine/summed_times.hpp"
#include "core/io/atomic_write.hpp"
#include "core/synth/speckle.hpp"

namespace xcorr::app {
namespace {

struct BenchDicOptions {
  int size = 2048, repeats = 3, frames = 1;
  // --frames: each frame's results taken before the next starts, no frame handed over early
  bool sequential = false;
  dic::DicOptions dic;
  std::string out;
  std::string points;  // one frame: the last run's points (write_points)
};

// Every point's result with every bit of its doubles (%.17g): two builds' files are equal
// exactly when their results are.
Status write_points(const std::string& path, const std::vector<dic::PointResult>& points) {
  std::string text = "x,y,u,v,zncc,sigma_u,sigma_v,iterations,status\n";
  char line[400];
  for (const dic::PointResult& p : points) {
    std::snprintf(line, sizeof line, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%d\n", p.x, p.y,
                  p.u, p.v, p.zncc, p.sigma_u, p.sigma_v, p.iterations, static_cast<int>(p.status));
    text += line;
  }
  return io::write_text_atomically(path, text);
}

Status run_bench_dic(BenchDicOptions o) {
  XCORR_RETURN_IF_ERROR(o.dic.check());
  synth::SpeckleOptions s;
  s.rows = s.cols = o.size;
  s.speckle_radius = 3;
  s.noise_sigma = 200;
  s.seed = 3;
  const double c = (o.size - 1) / 2.0;
  const auto field = synth::affine_field(0.7, 0.3, 0.002, 0, 0, -0.001, c, c);
  std::printf("rendering a %dx%d pair ...\n", o.size, o.size);
  const Stack<float> ref = synth::render_speckle_field(s, synth::translation_field(0, 0), 0);
  const Stack<float> def = synth::render_speckle_field(s, field, 1);
  auto registrar = engine::make_dic_registrar(o.dic);
  if (!registrar.is_ok()) return registrar.status();
  nlohmann::json rows = nlohmann::json::array();
  if (o.frames > 1) {
    // Distinct frames: the field at 1/4 .. 4/4 of its motion.
    Stack<float> frames(o.size, o.size, std::min(o.frames, 4));
    for (Index k = 0; k < frames.count(); ++k) {
      const double g = static_cast<double>(k + 1) / static_cast<double>(frames.count());
      const auto fk = synth::affine_field(0.7 * g, 0.3 * g, 0.002 * g, 0, 0, -0.001 * g, c, c);
      const Stack<float> d = synth::render_speckle_field(s, fk, static_cast<std::uint64_t>(k + 1));
      std::copy(d.values().begin(), d.values().end(), frames[k].data);
    }
    for (int rep = 0; rep < o.repeats; ++rep) {
      engine::SummedTimes timed(*registrar.value());  // GPU timings over the stack's calls
      auto session = dic::DicSession::create(timed, ref[0], dic::Roi{}, o.dic);
      if (!session.is_ok()) return session.status();
      const auto t0 = std::chrono::steady_clock::now();
      std::size_t points = 0;
      dic::FrameTimes sum;  // the session's phases (session.hpp), summed over the frames
      double wait_s = 0;    // waiting for a frame's finishing (the pipeline's bubble)
      // A stack pipeline as a batch run's: frame f's results are taken after frame f + 1 has
      // started.
      std::optional<dic::PendingFrame> pending;
      const auto take = [&] {
        const auto w0 = std::chrono::steady_clock::now();
        points = pending->get().points.size();
        wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      };
      for (int f = 0; f < o.frames; ++f) {
        // The next frame handed to the registrar while the host checks this one (pipelined).
        dic::UpcomingFrame upcoming;
        if (!o.sequential && f + 1 < o.frames) {
          upcoming = [&frames, f]() -> dic::Upcoming {
            return {f + 2, frames[(f + 1) % frames.count()]};
          };
        }
        auto r = session.value().start(frames[f % frames.count()], f + 1, {}, upcoming);
        if (!r.is_ok()) return r.status();
        sum += session.value().last_times();
        if (pending) take();
        pending = std::move(r).value();
        if (o.sequential) take(), pending.reset();
      }
      if (pending) take();
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double registrar_s = timed.seconds();  // the registrar's own (the file's comment)
      const engine::DicStages stages = timed.stages();
      const double ms = 1e3 / o.frames;
      std::printf(
          "%s, devices %s, %s: %d frames of %zu points in %.3f s = %.2f frames/s "
          "(registrar %.1f ms per frame, the rest %.1f ms)\n"
          "  per frame, ms: %s, waiting for results %.1f\n",
          registrar.value()->device().c_str(), o.dic.devices.c_str(),
          o.sequential ? "sequential" : "pipelined", o.frames, points, wall, o.frames / wall,
          registrar_s * ms, (wall - registrar_s) * ms, dic::per_frame_text(sum, o.frames).c_str(),
          wait_s * ms);
      if (registrar.value()->device() == "gpu") {
        std::printf(
            "  the registrar per frame, ms: waiting for the frame's images %.1f, integer "
            "guess %.1f, IC-GN %.1f, download %.1f, results to the grid %.1f%s",
            stages.images_wait * ms, stages.integer_guess * ms, stages.icgn * ms,
            stages.download * ms, stages.results_host * ms,
            stages.parts > 0 ? " (the first device's); the devices' parts: " : "\n");
        if (stages.parts > 0) {
          std::printf("slowest %.1f, fastest %.1f, the call over them %.1f\n",
                      stages.part_slowest * ms, stages.part_fastest * ms, stages.parts * ms);
        }
      }
      rows.push_back({{"device", registrar.value()->device()},
                      {"devices", o.dic.devices},
                      {"size", o.size},
                      {"subset", o.dic.subset},
                      {"step", o.dic.step},
                      {"frames", o.frames},
                      {"pipelined", !o.sequential},
                      {"points_per_frame", points},
                      {"wall_seconds", wall},
                      {"registrar_seconds", registrar_s},
                      {"frames_per_second", o.frames / wall}});
    }
    if (o.out.empty()) return Status::ok();
    return io::write_text_atomically(o.out, rows.dump(1) + "\n");
  }
  for (int rep = 0; rep < o.repeats; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = dic::run_dic(*registrar.value(), ref[0], def.view(), dic::Roi{}, o.dic);
    if (!r.is_ok()) return r.status();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double device_s = engine::last_gpu_frame_seconds(*registrar.value());
    std::size_t points = 0, converged = 0;
    double max_err = 0, iterations = 0;  // IC-GN iterations, the mean over converged points
    for (const dic::PointResult& p : r.value().frames[0].points) {
      if (p.status == dic::PointStatus::outside_roi) continue;
      ++points;
      if (p.status != dic::PointStatus::converged) continue;
      ++converged;
      iterations += p.iterations;
      const auto t = field(p.x, p.y);
      max_err = std::max({max_err, std::abs(p.u - t.u), std::abs(p.v - t.v)});
    }
    if (converged > 0) iterations /= static_cast<double>(converged);
    const double timed = device_s > 0 ? device_s : wall;
    std::printf(
        "%s: %zu points (%zu converged, max |error| %.4f px, %.2f IC-GN iterations), integer "
        "guess by %s: %.4f s %s (wall %.3f s) = %.0f points/s\n",
        r.value().device.c_str(), points, converged, max_err, iterations,
        r.value().guess_variant.c_str(), timed, device_s > 0 ? "device-resident" : "wall", wall,
        static_cast<double>(points) / timed);
    const engine::DicStages st = engine::last_gpu_stage_seconds(*registrar.value());
    if (device_s > 0)
      std::printf(
          "  stages (s): coefficients %.4f, integer guess %.4f (gather %.4f, search %.4f), IC-GN "
          "%.4f, download %.4f; before them, the reference %.4f\n",
          st.coefficients, st.integer_guess, st.guess_gather, st.guess_search, st.icgn, st.download,
          st.reference);
    if (st.waves > 0 || st.propagation > 0)
      std::printf(
          "  reliability-guided: %.4f s after the independent pass, %d waves, %lld points\n",
          st.propagation, st.waves, st.wave_points);
    rows.push_back({{"device", r.value().device},
                    {"devices", o.dic.devices},
                    {"stage_coefficients_s", st.coefficients},
                    {"stage_reference_s", st.reference},
                    {"stage_integer_guess_s", st.integer_guess},
                    {"stage_guess_gather_s", st.guess_gather},
                    {"stage_guess_search_s", st.guess_search},
                    {"stage_icgn_s", st.icgn},
                    {"stage_download_s", st.download},
                    {"stage_propagation_s", st.propagation},
                    {"waves", st.waves},
                    {"wave_points", st.wave_points},
                    {"size", o.size},
                    {"subset", o.dic.subset},
                    {"step", o.dic.step},
                    {"search_radius", o.dic.search_radius},
                    {"points", points},
                    {"converged", converged},
                    {"max_error_px", max_err},
                    {"mean_iterations", iterations},
                    {"guess_variant", r.value().guess_variant},
                    {"seconds", timed},
                    {"wall_seconds", wall},
                    {"points_per_second", static_cast<double>(points) / timed}});
    if (!o.points.empty() && rep + 1 == o.repeats)
      XCORR_RETURN_IF_ERROR(write_points(o.points, r.value().frames[0].points));
  }
  if (o.out.empty()) return Status::ok();
  return io::write_text_atomically(o.out, rows.dump(1) + "\n");
}

}  // namespace

Command add_bench_dic_command(CLI::App& app) {
  auto o = std::make_shared<BenchDicOptions>();
  o->dic.step = 4;
  CLI::App* c = app.add_subcommand("bench-dic", "DIC speed on a synthetic speckle pair");
  c->add_option("--size", o->size, "Image size (px)")->capture_default_str();
  add_option_flags(c, dic::dic_option_table(), o->dic);
  c->add_option("--repeats", o->repeats, "Runs (the first includes warm-up)")
      ->capture_default_str();
  c->add_option("--frames", o->frames,
                "Frames of a stack to time as a whole (1: one frame, points per second)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  c->add_flag("--sequential", o->sequential,
              "--frames: take each frame's results before starting the next, and hand no frame "
              "over early (no stack pipeline)");
  c->add_option("--out", o->out, "JSON rows");
  c->add_option(
      "--points", o->points,
      "One frame: the last run's points as CSV, every bit of each number (to compare builds)");
  return {c, [o] { return run_bench_dic(*o); }};
}

}  // namespace xcorr::app
