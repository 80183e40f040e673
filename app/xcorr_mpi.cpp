// xcorr-mpi: one batch file shared by the ranks of an MPI job (docs/scale-out.md):
//   mpirun -np N xcorr-mpi run batch.json [--quiet] [--lost-after S]
//   mpirun -np N xcorr-mpi register STACK --drift drift.csv [--out corrected.tif] [flags of
//                                                             xcorr register]
// (`register`: a batch of that one registration job.) Every rank validates and counts a slice of
// the batch's jobs, takes the jobs (or its part of a long job's frames: the points of each DIC
// frame, or blocks of a registration's frames) batch::share_batch gives it and runs them as
// `xcorr run` does: the same commits in the jobs' .partial folders on the shared file system, the
// same output bytes. A watch thread on every rank (core/mpi/watch.hpp) carries progress and
// liveness to the coordinator (rank 0 while it lives), which draws one progress bar over every
// rank's frames, prints every rank's summary at the end, removes the .partial folders when every
// job is done, and sets the one exit status of all ranks. A rank that dies: under mpirun's
// default every rank ends at once; with `--mca orte_abort_on_non_zero_status 0` the others finish
// their work and the coordinator names the frames that were not computed, then ends the run
// non-zero. Either way the commits stay, and running the same command again (with any number of
// ranks) computes only what is missing.
// GPU: each rank uses one device of its host, local rank mod the host's devices (set through
// CUDA_VISIBLE_DEVICES before CUDA starts); no device: the CPU.
// A separate program so that `xcorr` and the .deb need no MPI (installed with
// `cmake --install <build> --component mpi`).
// Exit status: 0 when every job of every rank is done without a failed frame, else the largest
// of the ranks' statuses: 2 bad input, failed frames, a job that stopped or a lost rank (then
// mpirun's status is non-zero, as Open MPI sets it); 1 internal error.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "app/option_flags.hpp"
#include "app/progress_bar.hpp"
#include "app/stop_signal.hpp"
#include "core/batch/batch_file.hpp"
#include "core/batch/batch_run.hpp"
#include "core/engine/engine.hpp"
#include "core/mpi/batch_share.hpp"
#include "core/mpi/text.hpp"
#include "core/mpi/watch.hpp"
#include "core/parallel.hpp"
#include "core/register/register_stack.hpp"
#include "core/version.hpp"

int main(int argc, char** argv) {
  // MULTIPLE: each rank's watch thread (core/mpi/watch.hpp) talks while the registering thread
  // exchanges a shared job's data; the engine's worker threads never call MPI.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0)
      std::fprintf(stderr,
                   "xcorr-mpi: error: this MPI library does not offer MPI_THREAD_MULTIPLE, "
                   "which xcorr-mpi needs (Open MPI 4 and later do)\n");
    MPI_Finalize();
    return 1;
  }
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  int local_rank = 0, local_ranks = 1;
  MPI_Comm_rank(host, &local_rank);
  MPI_Comm_size(host, &local_ranks);
  MPI_Comm_free(&host);
  // A rank's host threads (reading, consistency checks, CSV) run on the CPUs mpirun bound it to:
  // Open MPI binds each of 1 or 2 ranks to one core by default, which leaves most of a GPU
  // host's cores idle. Said once, by rank 0, for its host.
  const int host_cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (rank == 0 && xcorr::hardware_threads() * local_ranks * 2 < host_cpus)
    std::fprintf(stderr,
                 "xcorr-mpi: note: rank 0 runs on %d of this host's %d CPUs (mpirun's binding); "
                 "`mpirun --map-by slot:PE=%d` gives each of the %d ranks here its share "
                 "(docs/scale-out.md)\n",
                 xcorr::hardware_threads(), host_cpus, std::max(1, host_cpus / local_ranks),
                 local_ranks);
  xcorr::mpi::pick_device(local_rank);
  xcorr::app::install_stop_signal_handlers();
  xcorr::engine::install_gpu();

  CLI::App app{"xcorr-mpi: a batch file shared by the ranks of an MPI job (XCorr Studio)",
               "xcorr-mpi"};
  app.set_version_flag("--version", std::string("xcorr-mpi ") + xcorr::kVersion);
  app.require_subcommand(1);
  std::string file;
  bool quiet = false;
  double lost_after = 60;
  xcorr::reg::RegisterJob registration;
  CLI::App* run = app.add_subcommand(
      "run", "Run a batch file shared by the ranks: mpirun -np N xcorr-mpi run batch.json");
  run->add_option("file", file, "Job or batch file (JSON, docs/batch.md)")->required();
  CLI::App* reg = app.add_subcommand(
      "register",
      "Register one stack (drift correction) with its frames shared by the ranks: mpirun -np N "
      "xcorr-mpi register STACK --drift drift.csv [--out corrected.tif]; the flags of xcorr "
      "register (docs/registration.md)");
  reg->add_option("stack", registration.stack, "Multi-page TIFF, hyperstack or folder")->required();
  reg->add_option("--out", registration.out, "Corrected stack (.tif), the input's bit depth");
  reg->add_option("--drift", registration.drift, "Drift table (CSV)");
  xcorr::app::add_option_flags(reg, xcorr::reg::register_option_table(), registration.options);
  for (CLI::App* c : {run, reg}) {
    c->add_flag("--quiet", quiet, "No progress bar or summary (failures are still listed)");
    c->add_option("--lost-after", lost_after,
                  "Seconds without word from a rank before it counts as lost; with mpirun --mca "
                  "orte_abort_on_non_zero_status 0 the other ranks then finish their work and "
                  "the run names the frames that were not computed (docs/scale-out.md)")
        ->check(CLI::Range(1.0, 86400.0))
        ->capture_default_str();
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostream silent(nullptr);  // every rank parsed the same arguments: rank 0 says it
    const int code = rank == 0 ? app.exit(e) : app.exit(e, silent, silent);
    MPI_Finalize();
    return code;
  }
  // The run's progress bar (rank 0, unless --quiet).
  std::unique_ptr<xcorr::app::ProgressBar> bar;
  xcorr::mpi::ProgressView view;
  if (!quiet) {
    view.update = [&bar, ranks](double frames, xcorr::Index total) {
      if (!bar)
        bar = std::make_unique<xcorr::app::ProgressBar>("[" + std::to_string(ranks) + " ranks]",
                                                        false);
      bar->update(frames, total);
    };
    view.finish = [&bar] {
      if (bar) bar->finish();
    };
  }
  xcorr::mpi::RankWatch watch(lost_after, std::move(view));
  // Validation (read-only), each rank a slice of the jobs (every rank compares all output
  // names): a batch that any rank finds bad stops every rank before work, with the message of
  // the first problem in job order.
  registration.name = std::filesystem::path(registration.stack).filename().string();
  auto batch = reg->parsed()
                   ? xcorr::Result<xcorr::dic::Batch>(xcorr::dic::Batch{{}, {registration}, {}})
                   : xcorr::dic::read_batch(file);
  const xcorr::Status valid =
      batch.is_ok() ? xcorr::batch::validate_batch(
                          batch.value(), xcorr::mpi::my_slice(batch.value().size(), rank, ranks))
                    : batch.status();
  const std::vector<std::string> problems =
      xcorr::mpi::gather_text(MPI_COMM_WORLD, valid.is_ok() ? "" : valid.message());
  int bad = valid.is_ok() ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_bad != 0) {
    for (std::size_t r = 0; r < problems.size(); ++r) {
      if (problems[r].empty()) continue;
      std::cerr << "xcorr-mpi: error: " << problems[r] << "\n";
      break;
    }
    watch.stop();
    MPI_Finalize();
    return 2;
  }
  // A rank registers on the one GPU it was given (pick_device): a job's `devices` list is for one
  // process with several GPUs, and where a job runs does not change its results.
  for (xcorr::dic::DicJob& job : batch.value().jobs) job.options.devices = "0";
  bool complete = false;
  std::string text;
  const int mine = xcorr::mpi::run_share(batch.value(), rank, ranks, quiet, watch, text, complete);
  const int code = watch.finish(mine, complete, text);  // every rank's, once all are done
  watch.stop();
  MPI_Finalize();
  return code;
}
