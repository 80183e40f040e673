// xcorr bench-register: the speed and accuracy of the phase method's drift estimate on synthetic
// frames rendered in-process (no image files, so it runs from an engine-only build): a size x
// size speckle reference (radius 3 px, 16-bit range, Gaussian noise) and `distinct` frames of it
// moved along a random walk (steps of sd 0.5 px in x and y; the truth is known exactly, the
// speckles are rendered analytically), each with its own noise. `frames` frames are measured,
// cycling through the distinct ones. GPU: the frames are put on the device first, and the time
// runs from the first launch to every shift in host memory (engine::time_phase_on_gpu), or with
// --from-host or several --devices from host memory in the engine's blocks as registration hands
// them (the uploads in the time; the frames split among the GPUs); CPU: the
// wall time of the CPU engine on the host's threads, frames in memory. Reports frames/s and the
// RMS error against the truth. With --depth D > 1, volumes instead: a D x size x size 3-D speckle
// reference (radius 3 px in x and y, 1.5 planes in z) and `distinct` volumes of it moved by random
// shifts up to --drift voxels along each axis, measured by the 3-D phase engine of --device
// from host memory (GPU: the upload is in the time), in blocks as register_volumes hands them, or
// with --resident already on the device (engine::time_volumes_on_gpu, as an anchor whose volumes
// are on the device); volumes/s and the RMS error along each axis. With --transform rigid,
// similarity or affine, frames of the 2-D reference under random maps of that model about the
// centre (rotation +-10 degrees, scale 0.9-1.1 for similarity, linear entries +-2 % beside them
// for affine, translation +-5 px; the speckles are rendered under the map analytically),
// measured by TransformFitter with the IC-GN fitter of --device from host memory in blocks as
// registration hands them (GPU: 128, fitted 32 at a time while the next 32 start on the host's
// threads; the upload in the time);
// frames/s, the RMS angle error (degrees) and the RMS position error over the frame's pixels.
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "app/commands.hpp"
#include "app/option_flags.hpp"
#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/parallel.hpp"
#include "core/register/options.hpp"
#include "core/register/transform_fit.hpp"
#include "core/synth/speckle.hpp"

namespace xcorr::app {
namespace {

struct BenchRegisterOptions {
  int size = 2048, frames = 1000, distinct = 64, seed = 5;
  int depth = 1;          // planes: > 1 measures volumes
  double max_shift = 10;  // voxels (volumes)
  double noise = 200;     // grey values (the speckle spans 2,000-52,000)
  std::string save;       // volumes: a folder for the rendered volumes (the anchor's input)
  bool resident =
      false;  // volumes, GPU: put them on the device first (engine::time_volumes_on_gpu)
  bool from_host = false;  // frames, GPU: from host memory (as with several devices)
  reg::RegisterOptions reg;
  std::string out;
};

// measure(part) on frames[k % distinct] for k = first .. first + count - 1, in blocks of `block`
// frames: the results in order, or the first error.
template <class T, class Measure>
Result<std::vector<T>> in_blocks(const Stack<float>& frames, int first, int count, int block,
                                 const Measure& measure) {
  std::vector<T> out;
  for (int b = first; b < first + count; b += block) {
    std::vector<MatrixView<const float>> part;
    for (int k = b; k < std::min(first + count, b + block); ++k)
      part.push_back(frames[static_cast<Index>(k) % frames.count()]);
    auto r = measure(part);
    if (!r.is_ok()) return r.status();
    out.insert(out.end(), r.value().begin(), r.value().end());
  }
  return out;
}

std::string resolved_device(const std::string& device) {
  return device == "auto" ? (engine::built_with_cuda() ? "gpu" : "cpu") : device;
}

// volume_K.f32 (K = 0: the reference; raw float32, z, y, x order) and truth.json (each volume's
// shift, voxels, x y z; the shape) in o.save, for scripts/bench/volume_anchor_torch.py.
Status save_volumes(const BenchRegisterOptions& o, const std::vector<Stack<float>>& volumes,
                    const std::vector<std::array<double, 3>>& truth) {
  std::error_code ec;
  std::filesystem::create_directories(o.save, ec);
  for (std::size_t k = 0; k < volumes.size(); ++k) {
    const Stack<float>& v = volumes[k];
    const std::string bytes(
        reinterpret_cast<const char*>(v.data()),
        sizeof(float) * static_cast<std::size_t>(v.rows() * v.cols() * v.count()));
    XCORR_RETURN_IF_ERROR(io::write_text_atomically(
        std::filesystem::path(o.save) / ("volume_" + std::to_string(k) + ".f32"), bytes));
  }
  const nlohmann::json t = {{"shape", {o.depth, o.size, o.size}}, {"shifts_xyz", truth}};
  return io::write_text_atomically(std::filesystem::path(o.save) / "truth.json", t.dump() + "\n");
}

Status run_bench_volumes(const BenchRegisterOptions& o) {
  const std::string device = resolved_device(o.reg.device);
  if (o.resident && device != "gpu")
    return Status{ErrorCode::invalid_argument, "--resident times the GPU: use --device gpu"};
  synth::SpeckleOptions s;
  s.rows = s.cols = o.size;
  s.speckle_radius = 3;
  s.density = 0.3;
  s.noise_sigma = o.noise;
  s.seed = static_cast<std::uint32_t>(o.seed);
  constexpr double kRadiusZ = 1.5;
  std::mt19937_64 rng(static_cast<std::uint64_t>(o.seed));
  std::uniform_real_distribution<double> shift(-o.max_shift, o.max_shift);
  std::vector<std::array<double, 3>> truth(static_cast<std::size_t>(o.distinct));
  for (auto& t : truth) t = {shift(rng), shift(rng), shift(rng)};  // x, y, z
  std::printf("rendering a %dx%dx%d reference and %d volumes ...\n", o.size, o.size, o.depth,
              o.distinct);
  std::vector<Stack<float>> volumes(truth.size() + 1);
  parallel_for(static_cast<Index>(volumes.size()), 1, [&](Index b, Index e) {
    for (Index k = b; k < e; ++k) {
      const std::array<double, 3> t = k == 0 ? std::array<double, 3>{} : truth[k - 1];
      volumes[static_cast<std::size_t>(k)] = synth::render_speckle_volume(
          s, o.depth, kRadiusZ, t[2], t[1], t[0], static_cast<std::uint64_t>(k));
    }
  });
  if (!o.save.empty()) XCORR_RETURN_IF_ERROR(save_volumes(o, volumes, truth));
  const reg::VolumeShape shape{o.depth, o.size, o.size};
  // Blocks as register_volumes hands them to the engine.
  int block = device == "gpu" ? 8 : std::max(2, static_cast<int>(hardware_threads()));
  std::vector<reg::Shift3> shifts;
  double seconds = 0;
  if (o.resident) {
    std::vector<const float*> moved;
    for (std::size_t k = 1; k < volumes.size(); ++k) moved.push_back(volumes[k].data());
    auto t = engine::time_volumes_on_gpu(volumes[0].data(), moved, shape, o.frames, o.reg.upsample);
    if (!t.is_ok()) return t.status();
    shifts = t.value().shifts, seconds = t.value().seconds, block = t.value().batch;
  } else {
    auto made = engine::make_volume_engine(shape, o.reg.upsample, device);
    if (!made.is_ok()) return made.status();
    reg::VolumeEngine& e = *made.value();
    XCORR_RETURN_IF_ERROR(e.set_reference(volumes[0].data()));
    const auto run = [&](int count, std::vector<reg::Shift3>* out) -> Status {
      for (int first = 0; first < count; first += block) {
        std::vector<const float*> part;
        for (int k = first; k < std::min(count, first + block); ++k)
          part.push_back(volumes[static_cast<std::size_t>(1 + k % o.distinct)].data());
        auto r = e.measure(part);
        if (!r.is_ok()) return r.status();
        if (out != nullptr) out->insert(out->end(), r.value().begin(), r.value().end());
      }
      return Status::ok();
    };
    XCORR_RETURN_IF_ERROR(run(std::min(block, o.frames), nullptr));  // warm-up: plans, launches
    const auto t0 = std::chrono::steady_clock::now();
    XCORR_RETURN_IF_ERROR(run(o.frames, &shifts));
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  const char* where = o.resident ? "on the device" : "from host memory";
  std::array<double, 3> sq{};
  for (std::size_t k = 0; k < shifts.size(); ++k) {
    const std::array<double, 3>& t = truth[k % truth.size()];
    sq[0] += std::pow(shifts[k].dx - t[0], 2), sq[1] += std::pow(shifts[k].dy - t[1], 2),
        sq[2] += std::pow(shifts[k].dz - t[2], 2);
  }
  std::array<double, 3> rms{};
  for (int a = 0; a < 3; ++a) rms[a] = std::sqrt(sq[a] / static_cast<double>(shifts.size()));
  const double vps = static_cast<double>(o.frames) / seconds;
  std::printf(
      "%s: %d volumes of %dx%dx%d in %.3f s = %.1f volumes/s (blocks of %d, %s); RMS error x "
      "%.4f y %.4f z %.4f voxel (upsample %d)\n",
      device.c_str(), o.frames, o.size, o.size, o.depth, seconds, vps, block, where, rms[0], rms[1],
      rms[2], o.reg.upsample);
  if (o.out.empty()) return Status::ok();
  const nlohmann::json row = {{"device", device},
                              {"size", o.size},
                              {"depth", o.depth},
                              {"volumes", o.frames},
                              {"distinct_volumes", o.distinct},
                              {"max_shift_voxels", o.max_shift},
                              {"block", block},
                              {"volumes_from", where},
                              {"noise_sigma", o.noise},
                              {"upsample", o.reg.upsample},
                              {"seconds", seconds},
                              {"volumes_per_second", vps},
                              {"rms_error_voxels", {{"x", rms[0]}, {"y", rms[1]}, {"z", rms[2]}}}};
  return io::write_text_atomically(o.out, row.dump(1) + "\n");
}

// frame_K.f32 (K = 0: the reference, then the frames; raw float32, rows of size) and truth.json
// (each frame's map, m as reg::Affine; the size and the model) in o.save, for
// scripts/bench/transform_anchor_pystackreg.py.
Status save_frames(const BenchRegisterOptions& o, const Stack<float>& ref,
                   const Stack<float>& frames, const std::vector<reg::Affine>& truth) {
  std::error_code ec;
  std::filesystem::create_directories(o.save, ec);
  const auto bytes = sizeof(float) * static_cast<std::size_t>(ref.rows() * ref.cols());
  for (Index k = 0; k <= frames.count(); ++k) {
    const float* p = k == 0 ? ref.data() : std::as_const(frames)[k - 1].data;
    XCORR_RETURN_IF_ERROR(io::write_text_atomically(
        std::filesystem::path(o.save) / ("frame_" + std::to_string(k) + ".f32"),
        std::string(reinterpret_cast<const char*>(p), bytes)));
  }
  nlohmann::json maps = nlohmann::json::array();
  for (const reg::Affine& t : truth) maps.push_back(t.m);
  const nlohmann::json t = {
      {"size", o.size}, {"transform", label(o.reg.transform)}, {"maps", maps}};
  return io::write_text_atomically(std::filesystem::path(o.save) / "truth.json", t.dump() + "\n");
}

// The fitter of `device` with the wall time of its fit() calls added to *seconds: the IC-GN
// part of a transform fit (the rest: the starts on the host's threads).
reg::LevelFitterFactory timed_fitters(double* seconds) {
  class Timed final : public reg::LevelFitter {
   public:
    Timed(std::unique_ptr<reg::LevelFitter> f, double* seconds)
        : f_(std::move(f)), seconds_(seconds) {}
    std::string device() const override { return f_->device(); }
    Status set_reference(reg::LevelReference r) override { return f_->set_reference(r); }
    Result<std::vector<reg::LevelFit>> fit(
        reg::Transform t, const std::vector<reg::LevelInput>& frames,
        const std::vector<reg::LevelReference>* references) override {
      const auto t0 = std::chrono::steady_clock::now();
      auto r = f_->fit(t, frames, references);
      *seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return r;
    }

   private:
    std::unique_ptr<reg::LevelFitter> f_;
    double* seconds_;
  };
  return [seconds](Shape shape, int bin,
                   const std::string& device) -> Result<std::unique_ptr<reg::LevelFitter>> {
    auto f = engine::make_level_fitter(shape, bin, device);
    if (!f.is_ok()) return f.status();
    return std::unique_ptr<reg::LevelFitter>(
        std::make_unique<Timed>(std::move(f).value(), seconds));
  };
}

// The 2-D benches' speckle: o.size square, radius 3 px, o.noise, o.seed.
synth::SpeckleOptions speckle_options(const BenchRegisterOptions& o) {
  synth::SpeckleOptions s;
  s.rows = s.cols = o.size;
  s.speckle_radius = 3;
  s.noise_sigma = o.noise;
  s.seed = static_cast<std::uint32_t>(o.seed);
  return s;
}

// Frames of a speckle reference under random maps of o.reg.transform; see the file's comment.
Status run_bench_transforms(const BenchRegisterOptions& o) {
  const synth::SpeckleOptions s = speckle_options(o);
  std::mt19937_64 rng(static_cast<std::uint64_t>(o.seed));
  std::uniform_real_distribution<double> unit(-1, 1);
  const double c = (o.size - 1) / 2.0, pi = 3.14159265358979323846;
  std::vector<reg::Affine> truth(static_cast<std::size_t>(o.distinct));
  for (reg::Affine& t : truth) {
    const double angle = 10 * pi / 180 * unit(rng);
    const double scale = o.reg.transform == reg::Transform::rigid ? 1 : 1 + 0.1 * unit(rng);
    std::array<double, 4> l = reg::Affine::rotation(angle, scale);
    if (o.reg.transform == reg::Transform::affine)
      for (double& v : l) v += 0.02 * unit(rng);
    t = reg::Affine::about(c, c, 5 * unit(rng), 5 * unit(rng), l);
  }
  std::printf("rendering a %dx%d reference and %d %s frames ...\n", o.size, o.size, o.distinct,
              label(o.reg.transform));
  const Stack<float> ref = synth::render_speckle_field(s, synth::translation_field(0, 0), 0);
  Stack<float> frames(o.size, o.size, o.distinct);
  parallel_for(o.distinct, 1, [&](Index b, Index e) {
    for (Index k = b; k < e; ++k) {
      const reg::Affine& t = truth[static_cast<std::size_t>(k)];
      // The map p -> t(p) as a displacement about the centre: u = t(c) - c + (L - I)(p - c).
      const Stack<float> f =
          synth::render_speckle_field(s,
                                      synth::affine_field(t.x(c, c) - c, t.y(c, c) - c, t.m[0] - 1,
                                                          t.m[1], t.m[3], t.m[4] - 1, c, c),
                                      static_cast<std::uint64_t>(k) + 1);
      std::copy_n(f.data(), f.rows() * f.cols(), frames[k].data);
    }
  });
  if (!o.save.empty()) XCORR_RETURN_IF_ERROR(save_frames(o, ref, frames, truth));
  const std::string device = resolved_device(o.reg.device);
  double icgn_seconds = 0;
  auto fitter = reg::TransformFitter::create(
      ref.shape(), {o.reg.transform, o.reg.max_rotation, o.reg.smoothing_px()},
      timed_fitters(&icgn_seconds), device);
  if (!fitter.is_ok()) return fitter.status();
  XCORR_RETURN_IF_ERROR(fitter.value()->set_reference(ref[0]));
  const int block = device == "gpu" ? 128 : std::max(2, static_cast<int>(hardware_threads()) * 2);
  const auto measure = [&](const std::vector<MatrixView<const float>>& part) {
    return fitter.value()->measure(part);
  };
  // Warm-up, untimed: first launches (and a JIT compile of the kernels from PTX) and plans.
  auto warm = in_blocks<reg::Fit>(frames, 0, std::min(block, o.distinct), block, measure);
  if (!warm.is_ok()) return warm.status();
  icgn_seconds = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto measured = in_blocks<reg::Fit>(frames, 0, o.frames, block, measure);
  if (!measured.is_ok()) return measured.status();
  const std::vector<reg::Fit>& fits = measured.value();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // RMS over frames of the angle error and of the position error on every 4th pixel.
  double angle_sq = 0, position_sq = 0;
  int failed = 0;
  for (std::size_t k = 0; k < fits.size(); ++k) {
    const reg::Affine& t = truth[k % truth.size()];
    const reg::Fit& f = fits[k];
    if (!f.failed.empty()) {
      ++failed;
      continue;
    }
    angle_sq += std::pow(f.map.angle_degrees() - t.angle_degrees(), 2);
    double sq = 0;
    int n = 0;
    for (int y = 0; y < o.size; y += 4)
      for (int x = 0; x < o.size; x += 4, ++n)
        sq += std::pow(f.map.x(x, y) - t.x(x, y), 2) + std::pow(f.map.y(x, y) - t.y(x, y), 2);
    position_sq += sq / n;
  }
  const double fitted = std::max<double>(1, static_cast<double>(fits.size()) - failed);
  const double angle_rms = std::sqrt(angle_sq / fitted),
               position_rms = std::sqrt(position_sq / fitted);
  const double fps = static_cast<double>(o.frames) / seconds;
  std::printf(
      "%s: %d %s frames of %dx%d in %.3f s = %.1f frames/s (blocks of %d, from host memory; "
      "IC-GN %.3f s); RMS error %.5f degrees, %.5f px; %d failed\n",
      fitter.value()->device().c_str(), o.frames, label(o.reg.transform), o.size, o.size, seconds,
      fps, block, icgn_seconds, angle_rms, position_rms, failed);
  if (o.out.empty()) return Status::ok();
  const nlohmann::json row = {{"device", fitter.value()->device()},
                              {"transform", label(o.reg.transform)},
                              {"size", o.size},
                              {"frames", o.frames},
                              {"distinct_frames", o.distinct},
                              {"block", block},
                              {"noise_sigma", o.noise},
                              {"seconds", seconds},
                              {"icgn_seconds", icgn_seconds},
                              {"frames_per_second", fps},
                              {"failed", failed},
                              {"rms_angle_error_degrees", angle_rms},
                              {"rms_position_error_px", position_rms}};
  return io::write_text_atomically(o.out, row.dump(1) + "\n");
}

Status run_bench_register(const BenchRegisterOptions& o) {
  XCORR_RETURN_IF_ERROR(o.reg.check());
  if (o.size < 8 || o.frames < 1 || o.distinct < 1 || o.depth < 1)
    return Status{ErrorCode::invalid_argument,
                  "size >= 8, frames >= 1, distinct >= 1 and depth >= 1"};
  if (o.depth > 1) return run_bench_volumes(o);
  if (o.reg.transform != reg::Transform::translation) return run_bench_transforms(o);
  const synth::SpeckleOptions s = speckle_options(o);
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
  const std::string device = resolved_device(o.reg.device);
  // GPU from host memory (--from-host, or several --devices): the engine registration makes, in
  // blocks of its frames_per_call() as registration hands them (the uploads in the time), after
  // one block to warm up.
  const bool from_host = device == "gpu" && (o.from_host || o.reg.devices != "0");
  if (from_host) {
    auto e = engine::make_phase_engine(ref.shape(), phase, o.reg.iterations, "gpu", o.reg.devices);
    if (!e.is_ok()) return e.status();
    XCORR_RETURN_IF_ERROR(e.value()->set_reference(ref[0]));
    block = static_cast<int>(e.value()->frames_per_call());
    const auto measure = [&](const std::vector<MatrixView<const float>>& part) {
      return e.value()->measure(part);
    };
    XCORR_RETURN_IF_ERROR(
        in_blocks<reg::Shift>(frames, 0, std::min(block, o.frames), block, measure).status());
    const auto t0 = std::chrono::steady_clock::now();
    auto r = in_blocks<reg::Shift>(frames, 0, o.frames, block, measure);
    if (!r.is_ok()) return r.status();
    shifts = std::move(r).value();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } else if (device == "gpu") {
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
    auto r = in_blocks<reg::Shift>(
        frames, 0, o.frames, block,
        [&](const std::vector<MatrixView<const float>>& part) { return e.value()->measure(part); });
    if (!r.is_ok()) return r.status();
    shifts = std::move(r).value();
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
      from_host         ? (", frames from host memory, devices " + o.reg.devices).c_str()
      : device == "gpu" ? ", frames on the device"
                        : ", host threads",
      rms, o.reg.upsample, label(o.reg.window), label(o.reg.whiten), o.reg.iterations);
  if (o.out.empty()) return Status::ok();
  const nlohmann::json row = {{"device", device},
                              {"devices", device == "gpu" ? o.reg.devices : ""},
                              {"frames_from", from_host || device != "gpu" ? "host" : "device"},
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
  c->add_option("--depth", o->depth, "Planes: above 1, volumes of depth x size x size")
      ->capture_default_str();
  c->add_option("--drift", o->max_shift, "Volumes: largest shift along each axis (voxels)")
      ->capture_default_str();
  add_option_flags(c, reg::register_option_table(), o->reg);
  c->add_option("--save", o->save,
                "Volumes, transforms: folder to write the rendered volumes or frames to");
  c->add_flag("--resident", o->resident, "Volumes, GPU: on the device before the timing starts");
  c->add_flag("--from-host", o->from_host,
              "Frames, GPU: from host memory in the engine's blocks, as registration hands them "
              "(always so with several --devices); without it the frames are on the device first");
  c->add_option("--out", o->out, "JSON row");
  return {c, [o] { return run_bench_register(*o); }};
}

}  // namespace xcorr::app
