#include "core/batch/batch_run.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/batch/commit.hpp"
#include "core/dic/result_writers.hpp"
#include "core/dic/session.hpp"
#include "core/engine/engine.hpp"
#include "core/engine/summed_times.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "core/io/lazy_stack.hpp"
#include "core/io/read_file.hpp"
#include "core/job_times.hpp"
#include "core/register/register_stack.hpp"

namespace xcorr::batch {
namespace fs = std::filesystem;
namespace {

// The job's images: the reference (page `reference_page` of `reference`) and the deformed
// frames, each a (stack, index) so that one frame is read at a time and a bad one fails alone;
// index kUnreachable stands for a stack's pages after damage that stopped its indexing.
constexpr Index kUnreachable = -1;
struct Sources {
  std::vector<std::shared_ptr<io::LazyStack>> stacks;
  io::LazyStack* reference = nullptr;
  std::vector<std::pair<io::LazyStack*, Index>> frames;
  std::vector<std::string> names;        // of the frames
  std::vector<FrameFailure> unreadable;  // damaged pages found while indexing
};

Result<Sources> open_sources(const dic::DicJob& job, const std::shared_ptr<io::LazyStack>& open) {
  Sources s;
  if (open) {
    s.stacks.push_back(open);
  } else {
    auto ref = io::LazyStack::open(job.reference, io::LazyStack::kDefaultCacheBytes,
                                   job.options.plane(), job.reference_page);
    if (!ref.is_ok()) return ref.status();
    s.stacks.push_back(std::move(ref).value());
  }
  s.reference = s.stacks.back().get();
  auto add_all = [&s](io::LazyStack* st, Index first) {
    const Status indexed = st->wait_indexed();
    for (Index k = first; k < st->count(); ++k) {
      s.frames.push_back({st, k});
      s.names.push_back(st->source(k));
    }
    // Pages from the damage on cannot be reached (nor counted): one frame of their own stands
    // for them, right after the pages read, and fails with the reason; the next source's frames
    // keep their numbers after it.
    if (!indexed.is_ok()) {
      s.frames.push_back({st, kUnreachable});
      s.names.push_back(st->source(0).substr(0, st->source(0).find('[')) + "[page " +
                        std::to_string(st->count()) + " and later]");
      s.unreadable.push_back(
          {static_cast<Index>(s.frames.size()), s.names.back(), indexed.message()});
    }
  };
  if (job.frames.empty() || open) {
    add_all(s.reference, 1);
  } else {
    for (const std::string& f : job.frames) {
      auto st = io::LazyStack::open(f, io::LazyStack::kDefaultCacheBytes, job.options.plane());
      if (!st.is_ok()) return st.status();
      s.stacks.push_back(std::move(st).value());
      add_all(s.stacks.back().get(), 0);
    }
  }
  if (s.frames.empty())
    return Status{ErrorCode::invalid_argument,
                  "no frames: '" + job.reference + "' has one page and the job lists no frames"};
  return s;
}

// Frame k's time after the reference in frame intervals: pages of the reference's stack by their
// page numbers (a reference chosen later in the stack makes earlier pages negative); frames of
// other files by their frame number.
std::vector<double> frame_steps(const Sources& s) {
  std::vector<double> steps;
  const Index ref = s.reference->time_of(0);
  for (std::size_t k = 0; k < s.frames.size(); ++k) {
    const auto [stack, index] = s.frames[k];
    const bool own_page = stack == s.reference && index != kUnreachable;
    steps.push_back(own_page ? static_cast<double>(stack->time_of(index) - ref)
                             : static_cast<double>(k + 1));
  }
  return steps;
}

// Whether `shape` (px) holds every ROI shape; else the shape that reaches outside.
Status roi_inside(const dic::Roi& roi, Shape image) {
  const double w = static_cast<double>(image.cols), h = static_cast<double>(image.rows);
  for (const dic::RoiShape& r : roi.shapes) {
    const dic::RoiBounds b = dic::bounds(r);
    if (b.x0 < -0.5 || b.y0 < -0.5 || b.x1 > w + 0.5 || b.y1 > h + 0.5) {
      return {ErrorCode::invalid_argument, "ROI shape '" + dic::to_string(r) +
                                               "' reaches outside the " + image_size(image) +
                                               " image"};
    }
  }
  return Status::ok();
}

std::string numbered(const char* prefix, Index frame, const char* ext) {
  char b[64];
  std::snprintf(b, sizeof b, "%s_%06ld%s", prefix, static_cast<long>(frame), ext);
  return b;
}

// A job's identity for its .partial folder: its JSON (settings, paths, output) and, per input
// file, its size and modification time, so commits are never resumed from other versions of
// the images (a damaged file replaced by a good one is computed again).
std::string job_fingerprint(const dic::DicJob& job) {
  std::string inputs;
  std::vector<std::string> paths = {job.reference};
  paths.insert(paths.end(), job.frames.begin(), job.frames.end());
  for (const std::string& p : paths) {
    std::error_code ec;
    const auto size = fs::file_size(p, ec);  // folders: their entries are not listed here
    const auto time = fs::last_write_time(p, ec);
    inputs += "# input: " + p + " " + std::to_string(ec ? 0 : size) + " bytes, modified " +
              std::to_string(time.time_since_epoch().count()) + "\n";
  }
  dic::DicJob settings = job;  // where it runs is not part of what it computes
  settings.options = without_placement(dic::dic_option_table(), job.options);
  return dic::to_json(settings) + inputs;
}

// ok when `partial` holds no job, or the job whose fingerprint is given.
Status same_job_or_none(const fs::path& partial, const std::string& fingerprint) {
  std::error_code ec;
  if (!fs::exists(partial / "job.json", ec)) return Status::ok();
  auto saved = io::read_file(partial / "job.json");
  if (saved.is_ok() && saved.value() == fingerprint) return Status::ok();
  const std::size_t settings_end = fingerprint.find("# input: ");
  if (saved.is_ok() && saved.value().compare(0, settings_end, fingerprint, 0, settings_end) == 0) {
    return {ErrorCode::invalid_argument,
            "'" + partial.string() +
                "' holds frames computed from other versions of the input files; delete it to "
                "start over"};
  }
  return {ErrorCode::invalid_argument,
          "'" + partial.string() +
              "' holds frames of a different job; delete it to start over, or write elsewhere"};
}

}  // namespace

io::RunPaths run_paths(const dic::DicJob& job, const std::string& label) {
  const std::string p = label.empty() ? "" : label + ": ";
  io::RunPaths paths;
  paths.inputs.push_back({p + "the reference", job.reference});
  for (const std::string& f : job.frames) paths.inputs.push_back({p + "the frames", f});
  paths.outputs.push_back({p + "the output (out)", job.out});
  if (!job.out.empty())
    paths.resume_folders.push_back({p + "the resume folder", partial_folder(job)});
  return paths;
}

Status validate_job(const dic::DicJob& job) {
  if (Status s = job.check(); !s.is_ok()) return s;
  XCORR_RETURN_IF_ERROR(io::check_outputs(run_paths(job)));
  if (auto w = dic::writer_for(job.out); !w.is_ok()) return w.status();
  XCORR_RETURN_IF_ERROR(io::check_output_name(job.out));
  XCORR_RETURN_IF_ERROR(io::check_output_name(partial_folder(job)));
  const fs::path folder = fs::path(job.out).parent_path();
  std::error_code ec;
  if (!folder.empty() && !fs::is_directory(folder, ec))
    return {ErrorCode::not_found, "output folder '" + folder.string() + "' does not exist"};
  if (fs::is_directory(job.out, ec))
    return {ErrorCode::invalid_argument, "output '" + job.out + "' is a folder, not a file"};
  if (!fs::exists(job.reference, ec))
    return {ErrorCode::not_found, "reference image '" + job.reference + "' not found"};
  for (const std::string& f : job.frames) {
    if (!fs::exists(f, ec)) return {ErrorCode::not_found, "frames '" + f + "' not found"};
  }
  auto ref = io::LazyStack::open(job.reference, io::LazyStack::kDefaultCacheBytes,
                                 job.options.plane(), job.reference_page);
  if (!ref.is_ok()) return ref.status();
  const Shape shape = ref.value()->shape();
  for (const std::string& f : job.frames) {
    auto st = io::LazyStack::open(f, io::LazyStack::kDefaultCacheBytes, job.options.plane());
    if (!st.is_ok()) return st.status();
    if (st.value()->shape() != shape) {
      return {ErrorCode::size_mismatch, "'" + f + "' is " + image_size(st.value()->shape()) +
                                            " but the reference is " + image_size(shape)};
    }
  }
  if (job.frames.empty() && ref.value()->count() < 2 && !ref.value()->indexing()) {
    const Status indexed = ref.value()->wait_indexed();
    if (!indexed.is_ok()) return indexed;  // its later pages are damaged: say so, by page
    return {ErrorCode::invalid_argument,
            "no frames: '" + job.reference + "' has one page and the job lists no frames"};
  }
  XCORR_RETURN_IF_ERROR(roi_inside(job.roi, shape));
  XCORR_RETURN_IF_ERROR(dic::DicSession::check(shape, job.roi, job.options));
  return same_job_or_none(partial_folder(job), job_fingerprint(job));
}

namespace {
bool listed(const std::vector<bool>& jobs, std::size_t k) {
  return jobs.empty() || (k < jobs.size() && jobs[k]);
}
}  // namespace

Status validate_batch(const dic::Batch& b, const std::vector<bool>& jobs) {
  if (b.size() == 0) return {ErrorCode::invalid_argument, "the batch holds no job"};
  // Every job's paths; the output rule across the whole batch, job by job (no output is any
  // job's input, an earlier job's output or inside any job's resume folder), then the job's own
  // checks: the first problem in job order is reported. Jobs not listed (another process's
  // slice) only claim their outputs.
  std::vector<io::RunPaths> paths;
  io::RunPaths all;
  for (std::size_t k = 0; k < b.size(); ++k) {
    const std::string label = dic::job_label(b, k);
    paths.push_back(k < b.jobs.size() ? run_paths(b.jobs[k], label)
                                      : reg::run_paths(b.registrations[k - b.jobs.size()], label));
    all.inputs.insert(all.inputs.end(), paths[k].inputs.begin(), paths[k].inputs.end());
    all.resume_folders.insert(all.resume_folders.end(), paths[k].resume_folders.begin(),
                              paths[k].resume_folders.end());
  }
  io::OutputRule rule(all);
  for (std::size_t k = 0; k < b.size(); ++k) {
    if (!listed(jobs, k)) {
      rule.add(paths[k].outputs);
      continue;
    }
    XCORR_RETURN_IF_ERROR(rule.claim(paths[k].outputs));
    Status s;
    if (k < b.jobs.size()) {
      s = validate_job(b.jobs[k]);
    } else {
      const reg::RegisterJob& job = b.registrations[k - b.jobs.size()];
      s = job.check();
      std::error_code ec;
      if (s.is_ok() && !fs::exists(job.stack, ec))
        s = {ErrorCode::not_found, "stack '" + job.stack + "' not found"};
      if (s.is_ok() && !job.options.region.empty()) {  // the region against the frames' size
        auto st =
            io::LazyStack::open(job.stack, io::LazyStack::kDefaultCacheBytes, job.options.plane());
        s = st.is_ok() ? reg::parse_region(job.options.region, st.value()->shape().cols,
                                           st.value()->shape().rows)
                             .status()
                       : st.status();
      }
    }
    if (!s.is_ok()) return {s.code(), dic::job_label(b, k) + ": " + s.message()};
  }
  return Status::ok();
}

Result<io::ImageScale> stack_scale(const io::LazyStack& stack, const dic::DicOptions& options) {
  return io::apply_user_scale(stack.metadata().scale, options.pixel_size, options.frame_interval);
}

Result<Index> count_frames(const dic::DicJob& job) {
  auto sources = open_sources(job, nullptr);
  if (!sources.is_ok()) return sources.status();
  return static_cast<Index>(sources.value().frames.size());
}

namespace {

// A DIC job whose frames are done: `write` formats, writes and flushes its results (call it
// once; when the job writes nothing, it only returns the report) and returns the finished
// report.
struct ComputedJob {
  std::function<Result<JobReport>()> write;
};

Result<ComputedJob> compute_job(const dic::DicJob& job, const RegistrarFactory& make_registrar,
                                const FrameProgress& progress, const ResultHook& result_hook,
                                const std::shared_ptr<io::LazyStack>& open_stack) {
  using Clock = std::chrono::steady_clock;
  auto since = [at = Clock::now()]() mutable {  // s since the last call (or the job's start)
    const auto now = Clock::now();
    return std::chrono::duration<double>(now - std::exchange(at, now)).count();
  };
  auto sources = open_sources(job, open_stack);
  if (!sources.is_ok()) return sources.status();
  Sources& src = sources.value();
  auto made = make_registrar(job.options);
  if (!made.is_ok()) return made.status();
  // Its GPU time summed over its calls (a frame may register ahead, on the session's thread).
  engine::SummedTimes registrar(*made.value());
  // Frames are read a window at a time (DicSession): only the pixels DIC works on are decoded.
  const Shape shape = src.reference->shape();
  // Called by the session (a reference's window) and by the read-ahead below, on two threads:
  // one read at a time.
  std::mutex reading;
  const dic::DicSession::RegionSource source =
      [&src, &reading, shape](Index frame, const dic::Window& w) -> Result<Stack<float>> {
    std::lock_guard lock(reading);
    io::LazyStack* stack = src.reference;
    Index index = 0;
    if (frame > 0) std::tie(stack, index) = src.frames[static_cast<std::size_t>(frame - 1)];
    if (stack->shape() != shape) {
      return Status{ErrorCode::size_mismatch, "frame " + std::to_string(frame) + " is " +
                                                  image_size(stack->shape()) +
                                                  " but the reference is " + image_size(shape)};
    }
    return stack->region(index, w.y, w.x, w.rows, w.cols);
  };
  auto session = dic::DicSession::create(registrar, shape, source, job.roi, job.options);
  if (!session.is_ok()) return session.status();
  dic::DicSession& s = session.value();
  const double setup_s = since();

  JobReport report;
  report.name = job.name;
  report.out = job.out;
  report.frames = static_cast<Index>(src.frames.size());
  // A job without an output runs in memory: nothing is committed or written.
  const bool persist = !job.out.empty();
  const fs::path partial = persist ? fs::path(partial_folder(job)) : fs::path();
  std::error_code ec;
  if (persist) {
    fs::create_directories(partial, ec);
    if (ec) return Status{ErrorCode::io_error, "cannot create '" + partial.string() + "'"};
    // The folder carries its job's identity: commits of another job (the same output spelled
    // differently, other settings or images) are never resumed.
    const std::string fingerprint = job_fingerprint(job);
    XCORR_RETURN_IF_ERROR(same_job_or_none(partial, fingerprint));
    if (!fs::exists(partial / "job.json", ec))
      XCORR_RETURN_IF_ERROR(io::write_text_atomically(partial / "job.json", fingerprint));
  }

  // Earlier commits: results, failures, and the state after the last committed frame. Commits
  // are handed to the operating system without a flush (Durability::system), so after a power
  // loss one may be missing, empty or cut short: the first frame whose commit is damaged, or
  // missing while a later frame has a record, is computed again with every later frame, from the
  // state after the last good commit (the same results as a run that was never stopped).
  std::map<Index, dic::FrameResult> done;
  std::map<Index, FrameFailure> failed;
  dic::DicState last;
  Index last_frame = 0;
  Index again = 0;  // the first frame computed again; 0: none
  Index gap = 0;    // the first frame without a record (commit or failure); 0: none yet
  for (Index f = 1; persist && f <= report.frames; ++f) {
    const fs::path bin = partial / numbered("frame", f, ".bin");
    const fs::path bad = partial / numbered("failed", f, ".txt");
    const bool has_bin = fs::exists(bin, ec);
    if (!has_bin && !fs::exists(bad, ec)) {
      if (gap == 0) gap = f;
      continue;
    }
    if (gap != 0) {  // a record after a frame without one
      again = gap;
      break;
    }
    if (!has_bin) {
      auto reason = io::read_file(bad);
      failed[f] = {f, src.names[static_cast<std::size_t>(f - 1)],
                   reason.is_ok() ? reason.value() : "unknown"};
      continue;
    }
    auto bytes = io::read_file(bin);
    dic::FrameResult fr;
    dic::DicState st;
    if (!bytes.is_ok() || !decode_commit(bytes.value(), fr, st) || fr.frame != f) {
      again = f;  // checksum, size or content
      break;
    }
    done[f] = std::move(fr);
    last = std::move(st);
    last_frame = f;
  }
  if (again != 0) {
    report.recomputed_from = again;
    for (Index g = again; g <= report.frames; ++g) {
      fs::remove(partial / numbered("frame", g, ".bin"), ec);
      fs::remove(partial / numbered("failed", g, ".txt"), ec);
    }
  }
  report.resumed = static_cast<Index>(done.size());
  if (last_frame > 0) XCORR_RETURN_IF_ERROR(s.restore(last));  // reads its reference's window

  auto fail_frame = [&](Index f, const std::string& reason) -> Status {
    failed[f] = {f, src.names[static_cast<std::size_t>(f - 1)], reason};
    return persist ? io::write_text_atomically(partial / numbered("failed", f, ".txt"), reason)
                   : Status::ok();
  };
  for (const FrameFailure& u : src.unreadable) {
    if (!done.count(u.frame) && !failed.count(u.frame))
      XCORR_RETURN_IF_ERROR(fail_frame(u.frame, u.reason));
  }
  if (last_frame > 0 && progress && !progress(static_cast<double>(last_frame), report.frames))
    return Status{ErrorCode::cancelled, "cancelled before frame " + std::to_string(last_frame + 1)};
  // A stack pipeline: frame f's results are finished (DicSession's PendingFrame) and committed
  // on threads of their own while frame f + 1 is read and registered: up to kCommitsInFlight
  // frames at a time, each to its own file (one commit at a time made the frames wait: a
  // commit took longer than a GPU's frame). `done` and report.computed are the committing
  // threads', under `commit_lock`, until they are waited for. A kill may leave a frame's commit
  // without its predecessor's: the resume above computes again from the first gap.
  // (Declared after everything they read: on an early return their destructors wait first.)
  constexpr std::size_t kCommitsInFlight = 2;
  std::mutex commit_lock;
  std::deque<std::future<Status>> committing;
  // Waits for the oldest commits until at most `keep` are in flight; the first failure.
  const auto committed = [&committing, &report](std::size_t keep = 0) -> Status {
    const AddTime waited(report.times.commits_s);
    Status first = Status::ok();
    for (; committing.size() > keep; committing.pop_front()) {
      Status c = committing.front().get();
      if (first.is_ok()) first = std::move(c);
    }
    return first;
  };
  // And the next frame read (decoded, its window cut) while this one registers, with the window
  // as it is before this frame: read again when the frame moved the window.
  const auto to_compute = [&](Index f) { return f > last_frame && !failed.count(f); };
  // It is handed to the session as the upcoming frame (dic::UpcomingFrame) when the frame being
  // registered asks for it: the registrar starts on it while the host checks that frame.
  struct ReadAhead {
    Index frame = 0;
    dic::Window window;
    std::future<Result<Stack<float>>> image;
    std::optional<Result<Stack<float>>> got;  // taken from `image` for the upcoming frame
  } ahead;
  const auto read = [&](Index f) -> Result<Stack<float>> {
    if (ahead.image.valid()) ahead.got = ahead.image.get();
    if (ahead.got) {
      auto image = std::move(*ahead.got);
      ahead.got.reset();
      if (ahead.frame == f && ahead.window == s.window()) return image;
    }
    return source(f, s.window());
  };
  const dic::UpcomingFrame upcoming = [&]() -> dic::Upcoming {
    if (!ahead.image.valid()) return {};
    // Waited for here, on the session's thread beside the frame's registration, so not counted
    // as the frames' wait for reading: what of it outlasts the registration is the frame's
    // "next frame handed over" time (--timings).
    ahead.got = ahead.image.get();
    if (!ahead.got->is_ok() || ahead.window != s.window()) return {};
    return {ahead.frame, ahead.got->value()[0]};
  };
  for (Index f = 1; f <= report.frames; ++f) {
    if (!to_compute(f)) continue;
    auto img = [&] {
      const AddTime waited(report.times.reading_wait_s);
      return read(f);
    }();
    Index next = f + 1;
    while (next <= report.frames && !to_compute(next)) ++next;
    if (next <= report.frames) {
      ahead.frame = next;
      ahead.window = s.window();
      ahead.image = std::async(std::launch::async, source, next, ahead.window);
    }
    if (!img.is_ok()) {
      XCORR_RETURN_IF_ERROR(fail_frame(f, img.status().message()));
    } else {
      // Inside the frame (its end is reported once registered, below).
      const dic::PointProgress inside = [&](Index done_units, Index units) {
        return !progress || done_units >= units ||
               progress(static_cast<double>(f - 1) +
                            static_cast<double>(done_units) / static_cast<double>(units),
                        report.frames);
      };
      auto pending = s.start_window(std::move(img).value(), f, inside, upcoming);
      if (!pending.is_ok()) {
        if (pending.status().code() == ErrorCode::cancelled) {
          XCORR_RETURN_IF_ERROR(committed());
          return Status{ErrorCode::cancelled, "cancelled in frame " + std::to_string(f) +
                                                  (persist ? "; run again to resume" : "")};
        }
        XCORR_RETURN_IF_ERROR(fail_frame(f, pending.status().message()));
      } else {
        report.frame_phases += s.last_times();
        XCORR_RETURN_IF_ERROR(committed(kCommitsInFlight - 1));
        committing.push_back(std::async(
            std::launch::async,
            [&done, &report, &partial, &commit_lock, persist, f, frame = std::move(pending).value(),
             state = persist ? s.state() : dic::DicState{}]() mutable -> Status {
              dic::FrameResult fr = frame.get();
              if (persist)
                XCORR_RETURN_IF_ERROR(io::write_parts_atomically(
                    partial / numbered("frame", f, ".bin"), CommitParts(fr, state).parts(),
                    io::Durability::system));
              const std::lock_guard lock(commit_lock);
              done[f] = std::move(fr);
              ++report.computed;
              return Status::ok();
            }));
      }
    }
    if (progress && !progress(static_cast<double>(f), report.frames)) {
      XCORR_RETURN_IF_ERROR(committed());
      return Status{ErrorCode::cancelled, "cancelled after frame " + std::to_string(f) +
                                              (persist ? "; run again to resume" : "")};
    }
  }
  XCORR_RETURN_IF_ERROR(committed());

  dic::DicResult result;
  result.grid = s.grid();
  result.device = s.device();
  result.guess_variant = s.state().guess_variant;  // restored with the state when resumed
  for (auto& [f, fr] : done) result.frames.push_back(std::move(fr));
  for (const auto& [f, x] : failed) report.failed.push_back(x);
  report.device = result.device;
  report.guess_variant = result.guess_variant;
  report.times.setup_s = setup_s;
  report.times.frames_s = since();
  report.registrar_device_s = registrar.seconds();
  if (result.frames.empty())
    return Status{ErrorCode::invalid_argument, "no frame of '" + job.reference + "' could be used"};
  if (result_hook) result_hook(result);
  if (!persist) return ComputedJob{[report]() -> Result<JobReport> { return report; }};
  dic::CsvContext ctx{src.reference->source(0), src.names,     job.options, job.roi,
                      result.guess_variant,     result.device, {},          {}};
  auto scale = stack_scale(*src.reference, job.options);
  if (!scale.is_ok()) return scale.status();
  ctx.scale = scale.value();
  ctx.frame_steps = frame_steps(src);
  // The results and what the writer needs are the write's own: it may run after this job's
  // images are closed (run_batch writes one job while the next one runs).
  return ComputedJob{[r = std::move(report), res = std::move(result), c = std::move(ctx),
                      out = job.out, per_frame = job.per_frame]() mutable -> Result<JobReport> {
    const auto start = Clock::now();
    auto written = dic::write_results(out, per_frame, res, c);
    if (!written.is_ok()) return written.status();
    r.written = std::move(written).value();
    r.times.writing_s = std::chrono::duration<double>(Clock::now() - start).count();
    return r;
  }};
}

}  // namespace

Result<JobReport> run_job(const dic::DicJob& job, const RegistrarFactory& make_registrar,
                          const FrameProgress& progress, const ResultHook& result_hook,
                          const std::shared_ptr<io::LazyStack>& open_stack) {
  auto computed = compute_job(job, make_registrar, progress, result_hook, open_stack);
  if (!computed.is_ok()) return computed.status();
  return computed.value().write();
}

std::vector<Index> uncommitted_frames(const dic::Batch& b, std::size_t job, Index frames) {
  std::vector<Index> left;
  if (job >= b.jobs.size()) {
    const reg::RegisterJob& r = b.registrations.at(job - b.jobs.size());
    for (Index f = reg::first_uncommitted_frame(r, frames); f < frames; ++f) left.push_back(f);
    return left;
  }
  const fs::path partial = partial_folder(b.jobs[job]);
  std::error_code ec;
  bool recorded_after_gap = false;
  for (Index f = 1; f <= frames; ++f) {
    if (!fs::exists(partial / numbered("frame", f, ".bin"), ec) &&
        !fs::exists(partial / numbered("failed", f, ".txt"), ec))
      left.push_back(f);
    else if (!left.empty())
      recorded_after_gap = true;
  }
  // A frame without a record before a recorded one: the next run computes it and every later
  // frame again (compute_job).
  if (recorded_after_gap) {
    const Index from = left.front();
    left.clear();
    for (Index f = from; f <= frames; ++f) left.push_back(f);
  }
  return left;
}

void remove_partials(const dic::Batch& b) {
  for (const dic::DicJob& job : b.jobs) {
    std::error_code ec;
    fs::remove_all(partial_folder(job), ec);
  }
}

Result<std::vector<Index>> count_batch_frames(const dic::Batch& b, const std::vector<bool>& jobs) {
  auto labelled = [&b](std::size_t k, const Status& s) {
    return Status{s.code(), dic::job_label(b, k) + ": " + s.message()};
  };
  std::vector<Index> frames;
  for (std::size_t k = 0; k < b.jobs.size(); ++k) {
    if (!listed(jobs, k)) {
      frames.push_back(0);
      continue;
    }
    auto n = count_frames(b.jobs[k]);
    if (!n.is_ok()) return labelled(k, n.status());
    frames.push_back(n.value());
  }
  for (std::size_t r = 0; r < b.registrations.size(); ++r) {  // their frames, as they are read
    const reg::RegisterJob& job = b.registrations[r];
    if (!listed(jobs, b.jobs.size() + r)) {
      frames.push_back(0);
      continue;
    }
    auto st =
        io::LazyStack::open(job.stack, io::LazyStack::kDefaultCacheBytes, job.options.plane());
    if (!st.is_ok()) return labelled(b.jobs.size() + r, st.status());
    (void)st.value()->wait_indexed();
    frames.push_back(st.value()->count());
  }
  return frames;
}

Result<std::vector<JobReport>> run_batch(const dic::Batch& b,
                                         const RegistrarFactory& make_registrar,
                                         const BatchHooks& hooks, const BatchScope& scope) {
  const auto runs = [&scope](std::size_t k) {
    return scope.runs.empty() || (k < scope.runs.size() && scope.runs[k]);
  };
  auto labelled = [&b](std::size_t k, const Status& s) {
    return Status{s.code(), dic::job_label(b, k) + ": " + s.message()};
  };
  std::vector<Index> frames = scope.frames;
  if (frames.empty()) {
    XCORR_RETURN_IF_ERROR(validate_batch(b));
    auto counted = count_batch_frames(b);
    if (!counted.is_ok()) return counted.status();
    frames = std::move(counted).value();
  } else if (frames.size() != b.size()) {
    return Status{ErrorCode::internal, "BatchScope::frames holds " + std::to_string(frames.size()) +
                                           " counts for " + std::to_string(b.size()) + " jobs"};
  }
  if (hooks.started) hooks.started(frames);
  std::vector<JobReport> reports;
  // Jobs in a pipeline: a DIC job's results are written (formatted, written and flushed to the
  // disk) on a thread of their own while the next job runs; job_done follows the write. A write
  // that fails stops the batch with that job's message once the running job is done (its
  // commits are kept).
  struct Writing {
    std::size_t job = 0;
    std::future<Result<JobReport>> report;
  };
  std::optional<Writing> writing;
  const auto written = [&]() -> Status {
    if (!writing) return Status::ok();
    const std::size_t k = writing->job;
    auto report = writing->report.get();
    writing.reset();
    if (!report.is_ok()) return labelled(k, report.status());
    report.value().job = k;
    if (hooks.job_done) hooks.job_done(k, report.value());
    reports.push_back(std::move(report).value());
    return Status::ok();
  };
  for (std::size_t k = 0; k < b.jobs.size(); ++k) {
    if (!runs(k)) continue;
    if (hooks.job_started) hooks.job_started(k);
    FrameProgress progress;
    if (hooks.frame)
      progress = [&hooks, k](double done, Index total) { return hooks.frame(k, done, total); };
    ResultHook result;
    if (hooks.result) result = [&hooks, k](const dic::DicResult& r) { hooks.result(k, r); };
    auto computed = compute_job(b.jobs[k], make_registrar, progress, result, nullptr);
    XCORR_RETURN_IF_ERROR(written());
    if (!computed.is_ok()) return labelled(k, computed.status());
    writing = Writing{k, std::async(std::launch::async, std::move(computed.value().write))};
  }
  XCORR_RETURN_IF_ERROR(written());
  for (std::size_t r = 0; r < b.registrations.size(); ++r) {
    const std::size_t k = b.jobs.size() + r;
    if (!runs(k)) continue;
    const reg::RegisterJob& job = b.registrations[r];
    if (hooks.job_started) hooks.job_started(k);
    // Progress in frames: the two passes over the stack (measure, write) count as one frame each.
    const double n = static_cast<double>(frames[k]);
    auto done = reg::register_stack(
        job, engine::register_engines(),
        [&](double d, double total) {
          return !hooks.frame || hooks.frame(k, total > 0 ? d * n / total : 0, frames[k]);
        },
        scope.register_share);
    if (!done.is_ok()) return labelled(k, done.status());
    JobReport report;
    report.job = k;
    report.name = job.name;
    report.out = job.out.empty() ? job.drift : job.out;
    report.frames = static_cast<Index>(done.value().drift.size());
    report.resumed = done.value().resumed;
    report.computed = report.frames - done.value().failed - report.resumed;
    for (const reg::DriftRow& d : done.value().drift) {
      if (!d.failed.empty())
        report.failed.push_back(
            {d.frame, job.stack + " frame " + std::to_string(d.frame), d.failed});
    }
    report.written = done.value().written;
    // Where it ran: the phase method's device; zncc wherever the engine's auto runs.
    report.device = done.value().device == "engine" ? "the engine (auto)" : done.value().device;
    report.guess_variant = label(job.options.method);
    report.times = done.value().times;
    if (hooks.job_done) hooks.job_done(k, report);
    reports.push_back(std::move(report));
  }
  if (scope.remove_partials) remove_partials(b);  // everything is in the CSV files now
  return reports;
}

}  // namespace xcorr::batch
