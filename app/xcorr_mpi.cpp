// xcorr-mpi: one batch file shared by the ranks of an MPI job (docs/scale-out.md):
//   mpirun -np N xcorr-mpi run batch.json [--quiet]
// Every rank validates the batch and counts its jobs' frames (the same on every rank), takes the
// jobs batch::share_jobs gives it and runs them as `xcorr run` does: the same commits in the
// jobs' .partial folders on the shared file system, the same CSV bytes. Ranks exchange messages
// only for progress and at the end: rank 0 draws one progress bar over every rank's frames,
// then prints every rank's summary, removes the .partial folders when every job is done, and all
// ranks exit with one status. A rank that fails or is killed leaves its commits; running the same
// command again (with any number of ranks) resumes them.
// GPU: each rank uses one device of its host, local rank mod the host's devices (set through
// CUDA_VISIBLE_DEVICES before CUDA starts); no device: the CPU.
// A separate program so that `xcorr` and the .deb need no MPI (installed with
// `cmake --install <build> --component mpi`).
// Exit status: 0 when every job of every rank is done without a failed frame, else the largest
// of the ranks' statuses: 2 bad input, failed frames or a job that stopped; 1 internal error.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "app/mpi_shared_job.hpp"
#include "app/mpi_text.hpp"
#include "app/progress_bar.hpp"
#include "app/stop_signal.hpp"
#include "core/batch/batch_file.hpp"
#include "core/batch/batch_run.hpp"
#include "core/engine/engine.hpp"
#include "core/version.hpp"

namespace xcorr::app {
namespace {

constexpr int kTagProgress = 1;  // a double: frames this rank has done so far
constexpr int kTagDone = 2;      // the same, sent once, when the rank has run all its jobs

// Local rank mod the host's NVIDIA devices, as CUDA_VISIBLE_DEVICES, unless the user chose the
// devices: counted from the driver's /proc entries, because asking CUDA would start it first.
void pick_device(int local_rank) {
  if (std::getenv("CUDA_VISIBLE_DEVICES") != nullptr) return;
  std::error_code ec;
  int count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++count;
  if (count > 1) setenv("CUDA_VISIBLE_DEVICES", std::to_string(local_rank % count).c_str(), 1);
}

// Progress of the whole run on rank 0: its own frames and the others' messages.
class SharedProgress {
 public:
  SharedProgress(int rank, int ranks, Index total, bool quiet)
      : rank_(rank),
        done_(static_cast<std::size_t>(ranks), 0.0),
        total_(total),
        bar_("[" + std::to_string(ranks) + " ranks]", quiet || rank != 0) {}

  // This rank has done `frames` frames in all; false never (no cancel under MPI).
  void mine(double frames) {
    done_[static_cast<std::size_t>(rank_)] = frames;
    if (rank_ != 0) {
      const auto now = std::chrono::steady_clock::now();
      int idle = 1;
      if (pending_ != MPI_REQUEST_NULL) MPI_Test(&pending_, &idle, MPI_STATUS_IGNORE);
      if (idle && now - sent_ >= std::chrono::milliseconds(500)) {
        sent_ = now;
        sending_ = frames;
        MPI_Isend(&sending_, 1, MPI_DOUBLE, 0, kTagProgress, MPI_COMM_WORLD, &pending_);
      }
      return;
    }
    drain(false);
  }

  // Rank 0: draws until every other rank has said it is done. Others: say so.
  void finish(double frames) {
    done_[static_cast<std::size_t>(rank_)] = frames;
    if (rank_ != 0) {
      if (pending_ != MPI_REQUEST_NULL) MPI_Wait(&pending_, MPI_STATUS_IGNORE);
      MPI_Send(&frames, 1, MPI_DOUBLE, 0, kTagDone, MPI_COMM_WORLD);
      return;
    }
    while (others_done_ + 1 < static_cast<int>(done_.size())) drain(true);
    bar_.update(sum(), total_);
    bar_.finish();
  }

 private:
  double sum() const { return std::accumulate(done_.begin(), done_.end(), 0.0); }
  void drain(bool wait) {
    for (;;) {
      int any = 0;
      MPI_Status st;
      if (wait) {
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        any = 1;
        wait = false;
      } else {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any, &st);
      }
      if (!any) break;
      double v = 0;
      MPI_Recv(&v, 1, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      done_[static_cast<std::size_t>(st.MPI_SOURCE)] = v;
      if (st.MPI_TAG == kTagDone) ++others_done_;  // may come before rank 0's own finish
    }
    bar_.update(sum(), total_);
  }

  int rank_;
  std::vector<double> done_;
  Index total_;
  ProgressBar bar_;
  int others_done_ = 0;  // ranks that sent kTagDone
  MPI_Request pending_ = MPI_REQUEST_NULL;
  double sending_ = 0;
  std::chrono::steady_clock::time_point sent_{};
};

// The jobs this rank checks and counts for all: a contiguous slice, so that the first problem in
// job order is the first one found in rank order.
std::vector<bool> my_slice(std::size_t jobs, int rank, int ranks) {
  std::vector<bool> mine(jobs, false);
  const std::size_t R = static_cast<std::size_t>(ranks), r = static_cast<std::size_t>(rank);
  for (std::size_t k = jobs * r / R; k < jobs * (r + 1) / R; ++k) mine[k] = true;
  return mine;
}

// The group of ranks this rank shares a job with (MPI_COMM_NULL: none) and that job's index.
// Collective over MPI_COMM_WORLD.
MPI_Comm job_group(const std::vector<batch::JobRanks>& share, int rank, std::size_t& job) {
  int color = MPI_UNDEFINED;
  for (std::size_t k = 0; k < share.size(); ++k) {
    if (share[k].count > 1 && rank >= share[k].first && rank < share[k].first + share[k].count) {
      color = static_cast<int>(k);
      job = k;
    }
  }
  MPI_Comm group = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &group);
  return group;
}

// This rank's part of the batch: its summary text, exit status (0, 2, 1) and whether every job
// it was given ran to the end (failed frames included, as `xcorr run` counts them). Whatever
// happens, the rank reports to rank 0 (SharedProgress::finish), which waits for every rank.
int run_share(const dic::Batch& b, int rank, int ranks, bool quiet, std::string& text,
              bool& complete) {
  complete = false;
  // Counted once, each rank its slice, then summed; run_batch takes the counts (and the
  // validation main did) from the scope.
  auto counted = batch::count_batch_frames(b, my_slice(b.size(), rank, ranks));
  int bad = counted.is_ok() ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  std::vector<long long> mine(b.size(), 0), all(b.size(), 0);
  if (counted.is_ok()) std::copy(counted.value().begin(), counted.value().end(), mine.begin());
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(all.size()), MPI_LONG_LONG, MPI_SUM,
                MPI_COMM_WORLD);
  const std::vector<Index> frames(all.begin(), all.end());
  if (any_bad) {  // every rank stops; the rank that found the problem names it
    SharedProgress(rank, ranks, 0, true).finish(0);
    if (counted.is_ok()) return 2;
    text = "xcorr-mpi: rank " + std::to_string(rank) + ": " + counted.status().message() + "\n";
    return counted.status().code() == ErrorCode::internal ? 1 : 2;
  }
  std::vector<bool> sharable(b.size(), false);  // DIC jobs (registrations follow them)
  for (std::size_t k = 0; k < b.jobs.size(); ++k) sharable[k] = true;
  const std::vector<batch::JobRanks> share = batch::share_batch(frames, sharable, ranks);
  std::size_t grouped = 0;
  MPI_Comm group = job_group(share, rank, grouped);
  SharedProgress progress(rank, ranks, std::accumulate(frames.begin(), frames.end(), Index{0}),
                          quiet);
  double before = 0;  // frames of this rank's finished jobs
  Result<std::vector<batch::JobReport>> reports = std::vector<batch::JobReport>{};
  if (group != MPI_COMM_NULL && share[grouped].first != rank) {
    // Parts of the group leader's frames; its job's report is the leader's.
    const Status served = serve_shared_job(group);
    if (!served.is_ok()) reports = served;
  } else {
    batch::BatchScope scope;
    scope.remove_partials = false;  // rank 0, once every rank is done
    scope.frames = frames;
    scope.runs.resize(b.size());
    for (std::size_t k = 0; k < b.size(); ++k) scope.runs[k] = share[k].first == rank;
    batch::BatchHooks hooks;
    hooks.frame = [&](std::size_t, double done, Index) {
      progress.mine(before + done);
      return true;
    };
    hooks.job_done = [&](std::size_t k, const batch::JobReport&) {
      before += static_cast<double>(frames[k]);
    };
    const batch::RegistrarFactory shared = [group](const dic::DicOptions& o) {
      return make_shared_registrar(group, o);
    };
    try {
      reports = batch::run_batch(b, group != MPI_COMM_NULL ? shared : engine::make_dic_registrar,
                                 hooks, scope);
    } catch (const std::exception& e) {
      reports = Status{ErrorCode::internal, e.what()};
    }
    if (group != MPI_COMM_NULL) end_shared_job(group);
  }
  if (group != MPI_COMM_NULL) MPI_Comm_free(&group);
  progress.finish(before);
  if (!reports.is_ok()) {
    text = "xcorr-mpi: rank " + std::to_string(rank) + ": " + reports.status().message() + "\n";
    return reports.status().code() == ErrorCode::internal ? 1 : 2;
  }
  complete = true;
  std::size_t failed = 0;
  for (const batch::JobReport& r : reports.value()) {
    failed += r.failed.size();
    const batch::JobRanks& on = share[r.job];
    const std::string where = on.count == 1 ? " (rank " + std::to_string(rank) + ")"
                                            : " (ranks " + std::to_string(on.first) + "-" +
                                                  std::to_string(on.first + on.count - 1) + ")";
    const auto lines = batch::summary_lines(dic::job_label(b, r.job), r);
    for (std::size_t i = quiet ? 1 : 0; i < lines.size(); ++i) text += lines[i] + where + "\n";
  }
  return failed > 0 ? 2 : 0;
}

}  // namespace
}  // namespace xcorr::app

int main(int argc, char** argv) {
  // FUNNELED: the engine has worker threads, but only this one calls MPI (the progress hooks run
  // on the registering thread, core/dic/frame_registrar.hpp).
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  int local_rank = 0;
  MPI_Comm_rank(host, &local_rank);
  MPI_Comm_free(&host);
  xcorr::app::pick_device(local_rank);
  xcorr::app::install_stop_signal_handlers();
  xcorr::engine::install_gpu();

  CLI::App app{"xcorr-mpi: a batch file shared by the ranks of an MPI job (XCorr Studio)",
               "xcorr-mpi"};
  app.set_version_flag("--version", std::string("xcorr-mpi ") + xcorr::kVersion);
  app.require_subcommand(1);
  std::string file;
  bool quiet = false;
  CLI::App* run = app.add_subcommand(
      "run", "Run a batch file shared by the ranks: mpirun -np N xcorr-mpi run batch.json");
  run->add_option("file", file, "Job or batch file (JSON, docs/batch.md)")->required();
  run->add_flag("--quiet", quiet, "No progress bar or summary (failures are still listed)");
  int code = 0;
  std::string text;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostream silent(nullptr);  // every rank parsed the same arguments: rank 0 says it
    code = rank == 0 ? app.exit(e) : app.exit(e, silent, silent);
    MPI_Finalize();
    return code;
  }
  // Validation (read-only), each rank a slice of the jobs (every rank compares all output
  // names): a batch that any rank finds bad stops every rank before work, with the message of
  // the first problem in job order.
  auto batch = xcorr::dic::read_batch(file);
  const xcorr::Status valid =
      batch.is_ok() ? xcorr::batch::validate_batch(
                          batch.value(), xcorr::app::my_slice(batch.value().size(), rank, ranks))
                    : batch.status();
  const std::vector<std::string> problems =
      xcorr::app::gather_text(MPI_COMM_WORLD, valid.is_ok() ? "" : valid.message());
  int bad = valid.is_ok() ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_bad != 0) {
    for (std::size_t r = 0; r < problems.size(); ++r) {
      if (problems[r].empty()) continue;
      std::cerr << "xcorr-mpi: error: " << problems[r] << "\n";
      break;
    }
    MPI_Finalize();
    return 2;
  }
  // A rank registers on the one GPU it was given (pick_device): a job's `devices` list is for one
  // process with several GPUs, and where a job runs does not change its results.
  for (xcorr::dic::DicJob& job : batch.value().jobs) job.options.devices = "0";
  bool complete = false;
  code = xcorr::app::run_share(batch.value(), rank, ranks, quiet, text, complete);
  const std::vector<std::string> texts = xcorr::app::gather_text(MPI_COMM_WORLD, text);
  int worst = 0, incomplete = complete ? 0 : 1, any_incomplete = 0;
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&incomplete, &any_incomplete, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    std::vector<std::string> errors;  // the same problem seen by every rank: said once
    for (const std::string& t : texts) {
      const bool error = t.rfind("xcorr-mpi:", 0) == 0;
      const std::string what = error ? t.substr(t.find(": ", t.find("rank ")) + 2) : t;
      if (error && std::find(errors.begin(), errors.end(), what) != errors.end()) continue;
      if (error) errors.push_back(what);
      std::fputs(t.c_str(), error ? stderr : stdout);
    }
    if (any_incomplete == 0) {
      xcorr::batch::remove_partials(batch.value());  // every frame is in the CSV files
    } else {
      std::fprintf(stderr,
                   "xcorr-mpi: not every job ran to the end (above); the committed frames are "
                   "kept: run the same command again to resume\n");
    }
  }
  MPI_Finalize();
  return worst;
}
