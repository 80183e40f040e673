// xcorr run FILE.json: job and batch files headless (docs/batch.md): every job validated first,
// then each run resumably (core/batch/batch_run.hpp) with a terminal progress bar (frames done,
// rate, ETA); a summary lists what was written and every frame that failed. Exit status 2 when a
// frame failed (the CSV files of the others are written).
#include <chrono>
#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "core/batch/batch_run.hpp"
#include "core/engine/engine.hpp"

namespace xcorr::app {
namespace {

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char b[32];
  std::snprintf(b, sizeof b, "%ld:%02ld", s / 60, s % 60);
  return b;
}

// "[job 1/3 name] frame 12.4/50 [######------] 3.2 frames/s ETA 0:12" on one refreshed line,
// redrawn at most 5 times a second (progress comes inside frames, by blocks of points).
class ProgressBar {
 public:
  ProgressBar(std::string label, bool quiet) : label_(std::move(label)), quiet_(quiet) {}
  // The first call sets the baseline (frames already done); the rate counts frames since.
  void update(double done, Index total) {
    if (quiet_) return;
    if (first_ < 0) {
      first_ = done;
      start_ = Clock::now();
    }
    const auto now = Clock::now();
    if (now - drawn_ < std::chrono::milliseconds(200) && done < static_cast<double>(total)) return;
    drawn_ = now;
    const double t = std::chrono::duration<double>(now - start_).count();
    const double rate = t > 0 ? (done - first_) / t : 0;
    const int width = 24,
              filled = total > 0 ? static_cast<int>(width * done / static_cast<double>(total)) : 0;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '-');
    const std::string eta =
        rate > 0 ? clock_text((static_cast<double>(total) - done) / rate) : std::string("?");
    char speed[32] = "? frames/s";  // no rate before the second frame of this run
    if (rate > 0) std::snprintf(speed, sizeof speed, "%.2f frames/s", rate);
    std::fprintf(stderr, "\r%s frame %.1f/%ld [%s] %s ETA %s   ", label_.c_str(), done,
                 static_cast<long>(total), bar.c_str(), speed, eta.c_str());
  }
  void finish() {  // ends the progress line, when one was drawn
    if (!quiet_ && first_ >= 0) std::fprintf(stderr, "\n");
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  bool quiet_;
  Clock::time_point start_ = Clock::now(), drawn_{};
  double first_ = -1;
};

Status run_batch_file(const std::string& file, bool quiet) {
  auto batch = dic::read_batch(file);
  if (!batch.is_ok()) return batch.status();
  const dic::Batch& b = batch.value();
  std::unique_ptr<ProgressBar> bar;
  batch::BatchHooks hooks;
  hooks.job_started = [&](std::size_t k) {
    bar = std::make_unique<ProgressBar>(
        "[" + dic::job_label(b, k) + " of " + std::to_string(b.jobs.size()) + "]", quiet);
  };
  hooks.frame = [&](std::size_t, double done, Index total) {
    bar->update(done, total);
    return true;
  };
  hooks.job_done = [&](std::size_t, const batch::JobReport&) { bar->finish(); };
  auto reports = batch::run_batch(b, engine::make_dic_registrar, hooks);
  if (!reports.is_ok()) {
    if (bar) bar->finish();
    return reports.status();
  }
  std::size_t failed = 0;
  for (std::size_t k = 0; k < reports.value().size(); ++k) {
    const batch::JobReport& r = reports.value()[k];
    failed += r.failed.size();
    const auto lines = batch::summary_lines(dic::job_label(b, k), r);
    for (std::size_t i = quiet ? 1 : 0; i < lines.size(); ++i)
      std::printf("%s\n", lines[i].c_str());
  }
  if (failed > 0)
    return Status{
        ErrorCode::invalid_argument,
        std::to_string(failed) + " frame(s) failed (listed above); the others are written"};
  return Status::ok();
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* c = app.add_subcommand(
      "run", "Run a job, project or batch file headless, resumably: xcorr run batch.json");
  c->add_option("file", *file, "Job or batch file (JSON, docs/batch.md)")->required();
  c->add_flag("--quiet", *quiet, "No progress bar or summary (failures are still listed)");
  return {c, [file, quiet] { return run_batch_file(*file, *quiet); }};
}

}  // namespace xcorr::app
