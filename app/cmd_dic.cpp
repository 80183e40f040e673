// xcorr dic: subset-based 2-D DIC of a reference image and deformed frames, written as CSV
// (docs/dic.md). The DIC flags come from dic_option_table(); --job runs the same from a JSON job
// file, --save-job writes one.
#include <chrono>
#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "app/option_flags.hpp"
#include "core/dic/dic.hpp"
#include "core/dic/job.hpp"
#include "core/dic/result_writers.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "gpu/dic_gpu.hpp"
#include "gpu/engine.hpp"

namespace xcorr::app {
namespace {

struct DicCommandOptions {
  dic::DicJob job;
  std::string job_file;
  std::vector<std::string> roi;
  std::string save_job;  // write the job file instead of running it
  bool quiet = false;
};

// Reference (first page of the reference file) and frames (all pages of --frames, else the
// reference file's later pages), with a name per frame.
struct Images {
  Stack<float> reference, frames;
  std::string reference_name;
  std::vector<std::string> frame_names;
};

Result<Images> load(const dic::DicJob& job) {
  Images im;
  auto ref = io::read_image_stack(job.reference);
  if (!ref.is_ok()) return ref.status();
  const Stack<float>& r = ref.value().frames;
  im.reference = Stack<float>(r.rows(), r.cols(), 1);
  std::copy(r[0].data, r[0].data + r.rows() * r.cols(), im.reference[0].data);
  im.reference_name = ref.value().frame_sources.at(0);
  std::vector<const Stack<float>*> parts;
  std::vector<io::ImageStack> loaded;
  Index first_page = 0;
  if (job.frames.empty()) {
    if (r.count() < 2) {
      return Status{ErrorCode::invalid_argument,
                    "no frames: give --frames, or a multi-page reference whose later pages are "
                    "the frames ('" +
                        job.reference + "' has one page)"};
    }
    loaded.push_back(std::move(ref).value());
    first_page = 1;
  } else {
    for (const std::string& f : job.frames) {
      auto s = io::read_image_stack(f);
      if (!s.is_ok()) return s.status();
      loaded.push_back(std::move(s).value());
    }
  }
  Index total = 0;
  for (const auto& s : loaded) {
    if (s.frames.shape() != im.reference.shape()) {
      return Status{ErrorCode::size_mismatch,
                    "'" + s.frame_sources.at(0) + "' is " + to_string(s.frames.shape()) +
                        " px but the reference is " + to_string(im.reference.shape()) + " px"};
    }
    total += s.frames.count();
  }
  total -= first_page;
  im.frames = Stack<float>(im.reference.rows(), im.reference.cols(), total);
  Index k = 0;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const Index begin = i == 0 ? first_page : 0;
    for (Index p = begin; p < loaded[i].frames.count(); ++p, ++k) {
      const auto src = loaded[i].frames[p];
      std::copy(src.data, src.data + src.rows * src.cols, im.frames[k].data);
      im.frame_names.push_back(loaded[i].frame_sources[static_cast<std::size_t>(p)]);
    }
  }
  return im;
}

Status run_job(const dic::DicJob& job, bool quiet) {
  XCORR_RETURN_IF_ERROR(job.check());
  if (auto w = dic::writer_for(job.out); !w.is_ok()) return w.status();
  auto images = load(job);
  if (!images.is_ok()) return images.status();
  const Images& im = images.value();
  auto registrar = gpu::make_dic_registrar(job.options);
  if (!registrar.is_ok()) return registrar.status();
  const auto t0 = std::chrono::steady_clock::now();
  auto result = dic::run_dic(*registrar.value(), im.reference[0], im.frames.view(), job.roi,
                             job.options, [&](Index done, Index total) {
                               if (!quiet)
                                 std::fprintf(stderr, "\rframe %ld/%ld", static_cast<long>(done),
                                              static_cast<long>(total));
                               return true;
                             });
  if (!quiet) std::fprintf(stderr, "\n");
  if (!result.is_ok()) return result.status();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const dic::DicResult& r = result.value();
  const dic::CsvContext ctx{im.reference_name, im.frame_names,  job.options,
                            job.roi,           r.guess_variant, r.device};
  auto written = dic::write_results(job.out, job.per_frame, r, ctx);
  if (!written.is_ok()) return written.status();
  if (quiet) return Status::ok();
  std::size_t computed = 0;
  std::printf(
      "DIC on the %s: %ld frame(s) of %s px, grid %ldx%ld (subset %d px, step %d px), integer "
      "guess by %s\n",
      r.device.c_str(), static_cast<long>(im.frames.count()),
      to_string(im.reference.shape()).c_str(), static_cast<long>(r.grid.cols),
      static_cast<long>(r.grid.rows), job.options.subset, job.options.step,
      r.guess_variant.c_str());
  std::printf("%6s %9s %9s %12s %12s %9s\n", "frame", "points", "converged", "mean u px",
              "mean v px", "mean zncc");
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
  for (const auto& w : written.value()) std::printf("wrote %s\n", w.c_str());
  return Status::ok();
}

Status run_dic_command(DicCommandOptions o) {
  if (!o.job_file.empty()) {
    auto job = dic::read_dic_job(o.job_file);
    if (!job.is_ok()) return job.status();
    return run_job(job.value(), o.quiet);
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
  return run_job(job, o.quiet);
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
      "Output columns: frame,x,y,u,v,exx,eyy,exy,zncc,iterations,status (docs/dic.md).");
  c->add_option("--reference", o->job.reference,
                "Reference image (first page; without --frames its later pages are the frames)");
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
  return {c, [o] { return run_dic_command(*o); }};
}

}  // namespace xcorr::app
