// xcorr register STACK: stack registration (drift correction, docs/registration.md). The drift of
// every frame from the reference (phase correlation with DFT sub-pixel refinement, or the
// engine's ZNCC peak search), the drift table as CSV and the corrected stack as a multi-page TIFF
// of the input's bit depth with its scale kept. The flags come from register_option_table();
// --crop and --pad stand for --border crop / pad. Exit status 2 when a frame failed (the others
// are written).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "app/option_flags.hpp"
#include "app/progress_bar.hpp"
#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/register/register_stack.hpp"

namespace xcorr::app {
namespace {

struct RegisterCommandOptions {
  reg::RegisterJob job;
  std::string save_job;  // write the job file instead of running it
  bool quiet = false;
};

Status run_register(RegisterCommandOptions o) {
  if (!o.save_job.empty()) {  // a job for batch files and `xcorr run`
    XCORR_RETURN_IF_ERROR(o.job.check());
    XCORR_RETURN_IF_ERROR(io::write_text_atomically(o.save_job, reg::to_json(o.job)));
    if (!o.quiet)
      std::printf("wrote %s (run it with: xcorr run %s)\n", o.save_job.c_str(), o.save_job.c_str());
    return Status::ok();
  }
  ProgressBar bar("[register]", o.quiet);
  const auto start = std::chrono::steady_clock::now();
  auto r = reg::register_stack(o.job, engine::register_engines(), [&](double done, double total) {
    bar.update(done, static_cast<Index>(total));
    return true;
  });
  bar.finish();
  if (!r.is_ok()) return r.status();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const reg::RegisterReport& rep = r.value();
  const long frames = static_cast<long>(rep.drift.size());
  if (!o.quiet) {
    double largest = 0;
    for (const reg::DriftRow& d : rep.drift)
      if (d.failed.empty()) largest = std::max(largest, std::hypot(d.dx, d.dy));
    // Where the time went (not measured for volumes: dims 3).
    const std::string parts = rep.times.total_s() > 0 ? "; " + parts_text(rep.times) : "";
    std::printf(
        "registered %ld frame(s) in %.2f s (%.1f frames/s, measured on the %s%s); largest "
        "drift %.3f px; %s\n",
        frames - rep.failed, seconds, static_cast<double>(frames) / seconds,
        rep.device == "engine" ? "engine's choice" : rep.device.c_str(), parts.c_str(), largest,
        io::describe(rep.scale).c_str());
    if (rep.resumed > 0)
      std::printf("resumed the drift of %ld frame(s) measured by an interrupted run\n",
                  rep.resumed);
    for (const std::string& w : rep.written) std::printf("wrote %s\n", w.c_str());
  }
  for (const reg::DriftRow& d : rep.drift)
    if (!d.failed.empty()) std::printf("frame %ld failed: %s\n", d.frame, d.failed.c_str());
  if (rep.failed > 0)
    return Status{ErrorCode::invalid_argument,
                  std::to_string(rep.failed) +
                      " frame(s) failed (listed above); the others are "
                      "written"};
  return Status::ok();
}

}  // namespace

Command add_register_command(CLI::App& app) {
  auto o = std::make_shared<RegisterCommandOptions>();
  CLI::App* c = app.add_subcommand(
      "register", "Stack registration (drift correction): drift table and corrected stack");
  c->footer(
      "dx, dy follow the DIC convention: a feature at (x, y) in the reference is at (x + dx, "
      "y + dy) in the frame. Drift CSV columns: frame,time_s,dx,dy,dx_<unit>,dy_<unit>,peak "
      "(time and unit columns when the scale is known; docs/registration.md).");
  c->add_option("stack", o->job.stack, "Multi-page TIFF, hyperstack or folder")->required();
  c->add_option("--out", o->job.out, "Corrected stack (.tif), the input's bit depth");
  c->add_option("--drift", o->job.drift, "Drift table (CSV)");
  c->add_option("--apply", o->job.apply,
                "Apply this saved drift table (of as many frames) instead of measuring: writes "
                "--out, the stack moved by it (another channel's file, the raw acquisition)");
  add_option_flags(c, reg::register_option_table(), o->job.options);
  c->add_option("--save-job", o->save_job,
                "Write these settings as a register job file (for `xcorr run` and batch files) "
                "instead of running them");
  c->add_flag("--quiet", o->quiet, "Print only failures");
  return {c, [o] { return run_register(*o); }};
}

}  // namespace xcorr::app
