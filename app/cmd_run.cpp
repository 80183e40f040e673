// xcorr run FILE.json: job and batch files headless (docs/batch.md): every job validated first,
// then each run resumably (core/batch/batch_run.hpp) with a terminal progress bar (frames done,
// rate, ETA); a summary lists what was written and every frame that failed. Exit status 2 when a
// frame failed (the CSV files of the others are written). --devices sets every DIC job's GPUs
// (a placement option: the results and the resume are the same whatever it is).
#include <chrono>
#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "app/progress_bar.hpp"
#include "core/batch/batch_run.hpp"
#include "core/device_list.hpp"
#include "core/engine/engine.hpp"

namespace xcorr::app {
namespace {

Status run_batch_file(const std::string& file, bool quiet, const std::string& devices) {
  auto batch = dic::read_batch(file);
  if (!batch.is_ok()) return batch.status();
  if (!devices.empty()) {
    XCORR_RETURN_IF_ERROR(parse_device_list(devices, -1).status());
    for (dic::DicJob& job : batch.value().jobs) job.options.devices = devices;
  }
  const dic::Batch& b = batch.value();
  std::unique_ptr<ProgressBar> bar;
  batch::BatchHooks hooks;
  // A job's results are written while the next job runs (batch::run_batch): its bar ends when
  // the next one starts.
  hooks.job_started = [&](std::size_t k) {
    if (bar) bar->finish();
    bar = std::make_unique<ProgressBar>(
        "[" + dic::job_label(b, k) + " of " + std::to_string(b.size()) + "]", quiet);
  };
  hooks.frame = [&](std::size_t, double done, Index total) {
    bar->update(done, total);
    return true;
  };
  auto reports = batch::run_batch(b, engine::make_dic_registrar, hooks);
  if (bar) bar->finish();
  if (!reports.is_ok()) return reports.status();
  std::size_t failed = 0;
  for (const batch::JobReport& r : reports.value()) {
    failed += r.failed.size();
    const auto lines = batch::summary_lines(dic::job_label(b, r.job), r);
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
  auto devices = std::make_shared<std::string>();
  c->add_flag("--quiet", *quiet, "No progress bar or summary (failures are still listed)");
  c->add_option("--devices", *devices,
                "GPUs of every DIC job, sharing each frame's points: 0,1 or all (default: each "
                "job's own)");
  return {c, [file, quiet, devices] { return run_batch_file(*file, *quiet, *devices); }};
}

}  // namespace xcorr::app
