// xcorr bench-register: the speed and accuracy of the phase method's drift estimate on synthetic
// frames rendered in-process (no image files, so it runs from an engine-only build): a size x
// size speckle reference (radius 3 px, 16-bit range, Gaussian noise) and `distinct` frames of it
// moved along a random walk (steps of sd 0.5 px in x and y; the truth is known exactly, the
// speckles are rendered analytically), each with its own noise. `frames` frames are measured,
// cycling through the distinct ones. GPU: the frames are put on the device first, and the time
// runs from the first launch to every shift in host memory (engine::time_phase_on_gpu); CPU: the
// wall time of the CPU engine on the host's threads, frames in memory. Reports frames/s and the
// RMS error against the truth.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "app/commands.hpp"
#include "app/option_flags.hpp"
#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/parallel.hpp"
#include "core/register/options.hpp"
#include "core/synth/speckle.hpp"

namespace xcorr::app {
namespace {

struct BenchRegisterOptions {
  int size = 2048, frames = 1000, distinct = 64, seed = 5;
  double noise = 200;  // grey values (the speckle spans 2,000-52,000)
  reg::RegisterOptions reg;
  std::string out;
};

Status run_bench_register(const BenchRegisterOptions& o) {
  XCORR_RETURN_IF_ERROR(o.reg.check());
  if (o.size < 8 || o.frames < 1 || o.distinct < 1)
    return Status{ErrorCode::invalid_argument, "size >= 8, frames >= 1 and distinct >= 1"};
  synth::SpeckleOptions s;
  s.rows = s.cols = o.size;
  s.speckle_radius = 3;
  s.noise_sigma = o.noise;
  s.seed = static_cast<std::uint32_t>(o.seed);
  std::mt19937_64 rng(static_cast<std::uint64_t>(o.seed));
  std::normal_distribution<double> step(0, 0.5);
  std::vector<double> dx(static_cast<std::size_t>(o.distinct)), dy(dx.size());
  double x = 0, y = 0;
  for (std::size_t k = 0; k < dx.size(); ++k) dx[k] = x += step(rng), dy[k] = y += step(rng);
  std::printf("rendering a %dx%d reference and %d frames ...\n", o.size, o.size, o.distinct);
  const Stack<float> ref = synth::render_speckle_field(s, synth::translation_field(0, 0), 0);
  Stack<float> frames(o.size, o.size, o.distinct);
  parallel_for(o.distinct, 1, [&](Index b, Index e) {
    for (Index k = b; k < e; ++k) {
      const auto i = static_cast<std::size_t>(k);
      const Stack<float> f = synth::render_speckle_field(s, synth::translation_field(dx[i], dy[i]),
                                                         static_cast<std::uint64_t>(k) + 1);
      std::copy_n(f.data(), f.rows() * f.cols(), frames[k].data);
    }
  });
  const reg::PhaseOptions phase{o.reg.upsample, o.reg.window == reg::Window::tukey,
                                o.reg.whiten == reg::Whiten::on};
  std::vector<reg::Shift> shifts;
  double seconds = 0;
  int block = 0;
  std::string device =
      o.reg.device == "auto" ? (engine::built_with_cuda() ? "gpu" : "cpu") : o.reg.device;
  if (device == "gpu") {
    auto t = engine::time_phase_on_gpu(ref[0], frames.view(), o.frames, phase, o.reg.iterations);
    if (!t.is_ok()) return t.status();
    shifts = t.value().shifts;
    seconds = t.value().seconds;
    block = t.value().batch;
  } else {
    auto e = engine::make_phase_engine(ref.shape(), phase, o.reg.iterations, "cpu");
    if (!e.is_ok()) return e.status();
    XCORR_RETURN_IF_ERROR(e.value()->set_reference(ref[0]));
    block = std::max(2, static_cast<int>(hardware_threads()) * 2);
    const auto t0 = std::chrono::steady_clock::now();
    for (int first = 0; first < o.frames; first += block) {
      std::vector<MatrixView<const float>> part;
      for (int k = first; k < std::min(o.frames, first + block); ++k)
        part.push_back(std::as_const(frames)[k % o.distinct]);
      auto r = e.value()->measure(part);
      if (!r.is_ok()) return r.status();
      shifts.insert(shifts.end(), r.value().begin(), r.value().end());
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  double sq = 0;
  for (std::size_t k = 0; k < shifts.size(); ++k) {
    const std::size_t t = k % dx.size();
    sq += std::pow(shifts[k].dx - dx[t], 2) + std::pow(shifts[k].dy - dy[t], 2);
  }
  const double rms = std::sqrt(sq / (2.0 * static_cast<double>(shifts.size())));
  const double fps = static_cast<double>(o.frames) / seconds;
  std::printf(
      "%s: %d frames of %dx%d in %.3f s = %.0f frames/s (blocks of %d%s); RMS error %.4f px "
      "(upsample %d, window %s, whiten %s, iterations %d)\n",
      device.c_str(), o.frames, o.size, o.size, seconds, fps, block,
      device == "gpu" ? ", frames on the device" : ", host threads", rms, o.reg.upsample,
      label(o.reg.window), label(o.reg.whiten), o.reg.iterations);
  if (o.out.empty()) return Status::ok();
  const nlohmann::json row = {{"device", device},
                              {"size", o.size},
                              {"frames", o.frames},
                              {"distinct_frames", o.distinct},
                              {"block", block},
                              {"noise_sigma", o.noise},
                              {"upsample", o.reg.upsample},
                              {"window", label(o.reg.window)},
                              {"whiten", label(o.reg.whiten)},
                              {"iterations", o.reg.iterations},
                              {"seconds", seconds},
                              {"frames_per_second", fps},
                              {"rms_error_px", rms}};
  return io::write_text_atomically(o.out, row.dump(1) + "\n");
}

}  // namespace

Command add_bench_register_command(CLI::App& app) {
  auto o = std::make_shared<BenchRegisterOptions>();
  CLI::App* c = app.add_subcommand(
      "bench-register", "Drift estimate (phase method) speed and accuracy on synthetic frames");
  c->add_option("--size", o->size, "Frame size (px)")->capture_default_str();
  c->add_option("--frames", o->frames, "Frames measured")->capture_default_str();
  c->add_option("--distinct", o->distinct, "Frames rendered (measured in turn)")
      ->capture_default_str();
  c->add_option("--noise", o->noise, "Noise sd (grey values)")->capture_default_str();
  c->add_option("--seed", o->seed, "Random walk and speckle seed")->capture_default_str();
  add_option_flags(c, reg::register_option_table(), o->reg);
  c->add_option("--out", o->out, "JSON row");
  return {c, [o] { return run_bench_register(*o); }};
}

}  // namespace xcorr::app
