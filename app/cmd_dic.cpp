// xcorr dic: subset-based 2-D DIC of a reference image and deformed frames, written as CSV
// (docs/dic.md). The DIC flags come from dic_option_table(); --job runs the same from a JSON job
// file, --save-job writes one. Runs through the batch runner, like `xcorr run`.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "app/commands.hpp"
#include "app/option_flags.hpp"
#include "core/batch/batch_run.hpp"
#include "core/dic/job.hpp"
#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/job_times.hpp"

namespace xcorr::app {
namespace {

struct DicCommandOptions {
  dic::DicJob job;
  std::string job_file;
  std::vector<std::string> roi;
  std::string save_job;  // write the job file instead of running it
  bool quiet = false;
  bool timings = false;  // also print the frames' phases (--timings)
};

// Per-frame means of the converged points, and the totals.
void print_table(const dic::DicResult& r, const dic::DicOptions& o, double seconds) {
  std::printf(
      "DIC on the %s: %zu frame(s), grid %ldx%ld (subset %d px, step %d px), integer guess by "
      "%s\n",
      r.device.c_str(), r.frames.size(), static_cast<long>(r.grid.cols),
      static_cast<long>(r.grid.rows), o.subset, o.step, r.guess_variant.c_str());
  std::printf("%6s %9s %9s %12s %12s %9s\n", "frame", "points", "converged", "mean u px",
              "mean v px", "mean zncc");
  std::size_t computed = 0;
  for (const dic::FrameResult& f : r.frames) {
    std::size_t valid = 0, ok = 0;
    double su = 0, sv = 0, sz = 0;
    for (const dic::PointResult& p : f.points) {
      if (p.status == dic::PointStatus::outside_roi) continue;
      ++valid;
      if (p.status != dic::PointStatus::converged) continue;
      ++ok;
      su += p.u, sv += p.v, sz += p.zncc;
    }
    computed += valid;
    const double n = ok > 0 ? static_cast<double>(ok) : 1;
    std::printf("%6ld %9zu %9zu %12.4f %12.4f %9.4f\n", static_cast<long>(f.frame), valid, ok,
                su / n, sv / n, sz / n);
  }
  std::printf("%zu points in %.2f s (%.0f points/s)\n", computed, seconds,
              static_cast<double>(computed) / seconds);
}

// The job through the batch runner, as `xcorr run` runs it (core/batch/batch_run.hpp): checked
// before any work, frames read one at a time, a frame that cannot be used listed as failed (exit
// 2, the others written), committed to <out>.partial while it runs (an interrupted run resumes;
// the folder is removed when the job is done).
Status run_job(const dic::DicJob& job, bool quiet, bool timings) {
  XCORR_RETURN_IF_ERROR(batch::validate_job(job));
  const auto t0 = std::chrono::steady_clock::now();
  bool progress_line = false;  // a progress line is open on stderr (ended before other output)
  auto drawn = std::chrono::steady_clock::time_point{};
  const batch::FrameProgress progress = [quiet, &progress_line, &drawn](double done, Index total) {
    if (quiet) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now - drawn < std::chrono::milliseconds(200) && done < static_cast<double>(total))
      return true;
    drawn = now;
    std::fprintf(stderr, "\rframe %.1f/%ld", done, static_cast<long>(total));
    progress_line = true;
    return true;
  };
  const batch::ResultHook table = [&](const dic::DicResult& r) {
    if (quiet) return;
    if (progress_line) std::fprintf(stderr, "\n");
    progress_line = false;
    print_table(r, job.options,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  auto report = batch::run_job(job, engine::make_dic_registrar, progress, table);
  if (progress_line) std::fprintf(stderr, "\n");
  if (!report.is_ok()) {
    // A job that stopped before committing any frame leaves nothing behind; committed frames
    // stay for the next run to resume (as `xcorr run` keeps them).
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path partial = batch::partial_folder(job);
    bool committed = false;
    for (fs::directory_iterator it(partial, ec), end; !ec && it != end; it.increment(ec))
      committed = committed || it->path().filename().string().rfind("frame_", 0) == 0;
    if (!committed && report.status().code() != ErrorCode::cancelled) fs::remove_all(partial, ec);
    return report.status();
  }
  std::error_code ec;
  std::filesystem::remove_all(batch::partial_folder(job), ec);
  const batch::JobReport& r = report.value();
  if (!quiet) {
    for (const auto& w : r.written) std::printf("wrote %s\n", w.c_str());
    std::printf("time: %s\n", parts_text(r.times).c_str());  // where it went
    if (timings && r.computed > 0) {  // the device's part where a GPU registered
      char device[64] = "";
      if (r.registrar_device_s > 0)
        std::snprintf(device, sizeof device, "; the registrar's device work %.1f",
                      1e3 * r.registrar_device_s / static_cast<double>(r.computed));
      std::printf("per frame, ms: %s%s\n", dic::per_frame_text(r.frame_phases, r.computed).c_str(),
                  device);
    }
  }
  if (!r.failed.empty()) {
    const auto lines = batch::summary_lines(job.name.empty() ? "dic" : job.name, r);
    for (std::size_t i = 1; i < lines.size(); ++i) std::printf("%s\n", lines[i].c_str());
    return Status{ErrorCode::invalid_argument,
                  std::to_string(r.failed.size()) +
                      " frame(s) failed (listed above); the others are written"};
  }
  return Status::ok();
}

Status run_dic_command(DicCommandOptions o) {
  if (!o.job_file.empty()) {
    auto job = dic::read_dic_job(o.job_file);
    if (!job.is_ok()) return job.status();
    return run_job(job.value(), o.quiet, o.timings);
  }
  dic::DicJob& job = o.job;
  if (job.reference.empty() || job.out.empty())
    return {ErrorCode::invalid_argument, "give --reference and --out, or --job FILE"};
  for (const std::string& s : o.roi) {
    auto shape = dic::parse_roi_shape(s);
    if (!shape.is_ok()) return shape.status();
    job.roi.shapes.push_back(shape.value());
  }
  if (!o.save_job.empty()) {
    XCORR_RETURN_IF_ERROR(job.check());
    XCORR_RETURN_IF_ERROR(io::write_text_atomically(o.save_job, dic::to_json(job)));
    if (!o.quiet)
      std::printf("wrote %s (run it with: xcorr run %s)\n", o.save_job.c_str(), o.save_job.c_str());
    return Status::ok();
  }
  return run_job(job, o.quiet, o.timings);
}

}  // namespace

Command add_dic_command(CLI::App& app) {
  auto o = std::make_shared<DicCommandOptions>();
  dic::DicOptions& d = o->job.options;
  CLI::App* c = app.add_subcommand("dic", "Digital image correlation of a reference and frames");
  c->footer(
      "ROI shapes (repeat --roi; applied in order; a leading '-' subtracts): rect:x,y,w,h\n"
      "ellipse:cx,cy,rx,ry  poly:x1,y1,x2,y2,x3,y3,...  (px, origin at the top-left pixel "
      "centre).\n"
      "Output columns: frame,x,y,u,v,exx,eyy,exy,zncc,iterations,status,sigma_u,sigma_v "
      "(docs/dic.md).");
  c->add_option("--reference", o->job.reference,
                "Reference image (a file, multi-page TIFF or folder; without --frames its other "
                "pages are the frames)");
  c->add_option("--reference-page", o->job.reference_page,
                "The page of --reference (0-based, file order) that is the reference image")
      ->check(CLI::NonNegativeNumber);
  c->add_option("--frames", o->job.frames,
                "Deformed frames: image files, multi-page TIFFs, folders");
  c->add_option("--roi", o->roi, "Region of interest shape (repeatable)");
  c->add_option("--out", o->job.out, "Output CSV");
  c->add_flag("--per-frame", o->job.per_frame, "One CSV per frame: <stem>_frame0001.csv, ...");
  c->add_option("--job", o->job_file, "Run a JSON job file instead (docs/dic.md)")
      ->excludes("--reference")
      ->excludes("--frames")
      ->excludes("--out");
  add_option_flags(c, dic::dic_option_table(), d);
  c->add_option("--save-job", o->save_job,
                "Write these settings as a job file (for `xcorr run` or the desktop app) instead "
                "of running them")
      ->excludes("--job");
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->add_flag("--timings", o->timings,
              "Also print where each frame's time went (ms per frame: the registrar, the checks, "
              "...)");
  return {c, [o] { return run_dic_command(*o); }};
}

}  // namespace xcorr::app
