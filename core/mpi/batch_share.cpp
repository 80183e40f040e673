#include "core/mpi/batch_share.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/batch/batch_file.hpp"
#include "core/batch/batch_run.hpp"
#include "core/engine/engine.hpp"
#include "core/mpi/shared_job.hpp"
#include "core/mpi/text.hpp"
#include "core/register/register_stack.hpp"

namespace xcorr::mpi {
namespace {

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

// "3-5, 8": frames as ranges.
std::string frame_ranges(const std::vector<Index>& f) {
  std::string t;
  for (std::size_t i = 0; i < f.size();) {
    std::size_t j = i;
    while (j + 1 < f.size() && f[j + 1] == f[j] + 1) ++j;
    t += (t.empty() ? "" : ", ") + std::to_string(f[i]) +
         (j > i ? "-" + std::to_string(f[j]) : std::string());
    i = j + 1;
  }
  return t;
}

// A job's output: the CSV (DIC) or the drift table, else the corrected stack (registration).
std::string job_output(const dic::Batch& b, std::size_t k) {
  if (k < b.jobs.size()) return b.jobs[k].out;
  const reg::RegisterJob& r = b.registrations[k - b.jobs.size()];
  return r.drift.empty() ? r.out : r.drift;
}

// Whether `path` was written at `since` or later (a job finished in this run).
bool written_since(const std::string& path, std::filesystem::file_time_type since) {
  std::error_code ec;
  const auto t = std::filesystem::last_write_time(path, ec);
  return !ec && t >= since;
}

// The end of the run on the coordinator (RankWatch): every rank's summary (an error said by
// several ranks once), then the jobs of lost ranks and of ranks left waiting for them with the
// frames that were not committed; the .partial folders go when every job of every rank is done.
// The run's exit status: the worst of the ranks', 2 when a rank was lost.
int end_of_run(const dic::Batch& b, const std::vector<Index>& frames,
               const std::vector<batch::JobRanks>& share, std::filesystem::file_time_type since,
               const std::vector<RankState>& ranks) {
  std::vector<std::string> errors;
  int worst = 0;
  bool complete = true, any_lost = false;
  for (const RankState& r : ranks) {
    any_lost = any_lost || r.lost;
    complete = complete && r.done && r.complete;
    worst = std::max(worst, r.done ? r.code : 0);
    const std::string& t = r.text;
    const bool error = t.rfind("xcorr-mpi:", 0) == 0;
    const std::string what = error ? t.substr(t.find(": ", t.find("rank ")) + 2) : t;
    if (error && std::find(errors.begin(), errors.end(), what) != errors.end()) continue;
    if (error) errors.push_back(what);
    std::fputs(t.c_str(), error ? stderr : stdout);
  }
  if (!any_lost) {
    if (complete) {
      batch::remove_partials(b);  // every frame is in the CSV files
    } else {
      std::fprintf(stderr,
                   "xcorr-mpi: not every job ran to the end (above); the committed frames are "
                   "kept: run the same command again to resume\n");
    }
    return worst;
  }
  Index left = 0;
  for (std::size_t k = 0; k < share.size(); ++k) {
    std::string who;
    for (int r = share[k].first; r < share[k].first + share[k].count; ++r) {
      const RankState& s = ranks[static_cast<std::size_t>(r)];
      if (s.lost) who += (who.empty() ? "" : ", ") + ("rank " + std::to_string(r) + " lost");
      if (s.stuck)
        who += (who.empty() ? "" : ", ") + ("rank " + std::to_string(r) + " waiting for it");
    }
    if (who.empty() || written_since(job_output(b, k), since)) continue;  // finished
    const std::vector<Index> lost = batch::uncommitted_frames(b, k, frames[k]);
    left += static_cast<Index>(lost.size());
    std::fprintf(stderr, "xcorr-mpi: %s (%s): %s\n", dic::job_label(b, k).c_str(), who.c_str(),
                 lost.empty() ? "every frame is committed, the output is not written yet"
                              : ("frames " + frame_ranges(lost) + " of " +
                                 std::to_string(frames[k]) + " not computed")
                                    .c_str());
  }
  bool written = true;  // every job's output, in this run
  for (std::size_t k = 0; k < b.size(); ++k)
    written = written && written_since(job_output(b, k), since);
  if (left == 0 && written) {
    batch::remove_partials(b);
    std::fprintf(stderr,
                 "xcorr-mpi: a rank was lost, but every frame was computed and every output "
                 "written (above)\n");
  } else {
    std::fprintf(stderr,
                 "xcorr-mpi: a rank was lost; %ld frame(s) were not computed (listed above) "
                 "and the committed frames are kept: run the same command again to compute "
                 "only those\n",
                 static_cast<long>(left));
  }
  return 2;
}

}  // namespace

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

// The jobs this rank checks and counts for all: a contiguous slice, so that the first problem in
// job order is the first one found in rank order.
std::vector<bool> my_slice(std::size_t jobs, int rank, int ranks) {
  std::vector<bool> mine(jobs, false);
  const std::size_t R = static_cast<std::size_t>(ranks), r = static_cast<std::size_t>(rank);
  for (std::size_t k = jobs * r / R; k < jobs * (r + 1) / R; ++k) mine[k] = true;
  return mine;
}

// This rank's part of the batch: its exit status (0, 2, 1), whether every job it was given ran
// to the end (failed frames included, as `xcorr run` counts them) and its summary text; the
// watch learns the plan (and how to end the run) and this rank's progress.
int run_share(const dic::Batch& b, int rank, int ranks, bool quiet, RankWatch& watch,
              std::string& text, bool& complete) {
  complete = false;
  const auto since = std::filesystem::file_time_type::clock::now();  // outputs newer: this run's
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
    watch.set_plan(0, std::vector<int>(static_cast<std::size_t>(ranks), kAlone),
                   [&b, frames, since](const std::vector<RankState>& states) {
                     return end_of_run(b, frames, {}, since, states);
                   });
    if (counted.is_ok()) return 2;
    text = "xcorr-mpi: rank " + std::to_string(rank) + ": " + counted.status().message() + "\n";
    return counted.status().code() == ErrorCode::internal ? 1 : 2;
  }
  const std::vector<batch::JobRanks> share = batch::share_batch(frames, ranks);
  std::size_t grouped = 0;
  MPI_Comm group = job_group(share, rank, grouped);  // the setup's last exchange
  std::vector<int> phases(static_cast<std::size_t>(ranks), kAlone);
  for (std::size_t k = 0; k < share.size(); ++k)
    for (int r = share[k].first; share[k].count > 1 && r < share[k].first + share[k].count; ++r)
      phases[static_cast<std::size_t>(r)] = static_cast<int>(k);
  watch.set_phase(phases[static_cast<std::size_t>(rank)]);
  watch.set_plan(std::accumulate(frames.begin(), frames.end(), Index{0}), phases,
                 [&b, frames, share, since](const std::vector<RankState>& states) {
                   return end_of_run(b, frames, share, since, states);
                 });
  // Whether this rank's group has lost a rank (its leader then goes on alone).
  const std::function<bool()> broken = [&watch, &share, grouped] {
    for (int r = share[grouped].first; r < share[grouped].first + share[grouped].count; ++r)
      if (watch.lost(r)) return true;
    return false;
  };
  double before = 0;            // frames of this rank's jobs before the running one
  bool text_of_failure = true;  // false: the group's leader says it
  Result<std::vector<batch::JobReport>> reports = std::vector<batch::JobReport>{};
  // A registration shared by the group: rounds of blocks of frames (reg::RegisterShare).
  const bool registration = group != MPI_COMM_NULL && grouped >= b.jobs.size();
  // Its exchanges give up when the group lost a rank (`gave_up`): the leader goes on alone.
  reg::RegisterShare parts;
  bool gave_up = false;
  const Waiter wait{broken};
  if (registration) {
    MPI_Comm_rank(group, &parts.index);
    MPI_Comm_size(group, &parts.count);
    const auto alone = [&gave_up, &watch, &parts, rank] {
      if (!gave_up && parts.index == 0)
        std::fprintf(stderr,
                     "xcorr-mpi: rank %d measures the rest of its registration alone: its group "
                     "lost a rank\n",
                     rank);
      gave_up = true;
      if (parts.index == 0) watch.set_phase(kAlone);
      return false;
    };
    parts.gather = [group, &wait, alone](const std::string& t, std::vector<std::string>& texts) {
      return gather_text(group, t, wait, texts) || alone();
    };
    parts.broadcast = [group, &wait, alone](std::string& t) {
      return bcast_text(group, t, wait) || alone();
    };
  }
  int took_over_from = -1;  // the lost leader whose job this rank ran from its commits
  if (registration && parts.index != 0) {
    // Blocks of the leader's frames; the job's report (and any failure, the same on every rank
    // of the group) is the leader's.
    auto measured = reg::register_stack(b.registrations[grouped - b.jobs.size()],
                                        engine::register_engines(), {}, &parts);
    if (!measured.is_ok() && !gave_up) reports = measured.status();
    text_of_failure = false;
  }
  // This rank's own jobs (`runs`, by job index), as `xcorr run` runs them.
  const auto run_own = [&](std::vector<bool> runs, const batch::RegistrarFactory& factory) {
    batch::BatchScope scope;
    scope.remove_partials = false;  // by the coordinator, once every rank is done
    scope.frames = frames;
    scope.runs = std::move(runs);
    if (registration && parts.index == 0) scope.register_share = &parts;
    batch::BatchHooks hooks;
    hooks.frame = [&](std::size_t, double done, Index) {
      watch.set_frames(before + done);
      return true;
    };
    // A job's frames are all computed when the next job starts (its results may still be being
    // written: batch::run_batch); the last job's when run_batch returns.
    hooks.job_started = [&, last = std::optional<std::size_t>()](std::size_t k) mutable {
      if (last) before += static_cast<double>(frames[*last]);
      last = k;
      watch.set_frames(before);
    };
    try {
      reports = batch::run_batch(b, factory, hooks, scope);
    } catch (const std::exception& e) {
      reports = Status{ErrorCode::internal, e.what()};
    }
  };
  if (group != MPI_COMM_NULL && share[grouped].first != rank) {  // a member of a group
    if (!registration) {  // parts of the leader's frames; its job's report is the leader's
      const Status served = serve_shared_job(group, broken, gave_up);
      if (!served.is_ok()) reports = served;
    }
    // The group lost a rank. A lost leader's job goes on from its commits on the group's first
    // living rank (a resumed run: the same bytes); a lost member leaves the leader to go on.
    const int leader = share[grouped].first;
    int heir = -1;
    for (int r = leader; r < leader + share[grouped].count && heir < 0; ++r)
      if (!watch.lost(r)) heir = r;
    if (gave_up && watch.lost(leader) && heir == rank) {
      std::fprintf(stderr,
                   "xcorr-mpi: rank %d takes over %s from its commits: its leader, rank %d, was "
                   "lost\n",
                   rank, dic::job_label(b, grouped).c_str(), leader);
      watch.set_phase(kAlone);
      took_over_from = leader;
      text_of_failure = true;
      std::vector<bool> runs(b.size(), false);
      runs[grouped] = true;
      run_own(runs, engine::make_dic_registrar);
    }
  } else {  // its own jobs, or the lead of a group's
    std::vector<bool> runs(b.size());
    for (std::size_t k = 0; k < b.size(); ++k) runs[k] = share[k].first == rank;
    const batch::RegistrarFactory shared = [group, &broken, &watch](const dic::DicOptions& o) {
      return make_shared_registrar(group, o, {broken, [&watch] { watch.set_phase(kAlone); }});
    };
    run_own(runs, group != MPI_COMM_NULL && !registration ? shared : engine::make_dic_registrar);
    if (group != MPI_COMM_NULL && !registration && !end_shared_job(group, broken)) gave_up = true;
  }
  if (gave_up) group = MPI_COMM_NULL;  // left behind with the ranks still waiting in it
  if (group != MPI_COMM_NULL) MPI_Comm_free(&group);
  watch.set_phase(kAlone);
  if (!reports.is_ok()) {
    if (text_of_failure)
      text = "xcorr-mpi: rank " + std::to_string(rank) + ": " + reports.status().message() + "\n";
    return reports.status().code() == ErrorCode::internal ? 1 : 2;
  }
  complete = true;
  std::size_t failed = 0;
  for (const batch::JobReport& r : reports.value()) {
    failed += r.failed.size();
    const batch::JobRanks& on = share[r.job];
    std::string where = on.count == 1 ? " (rank " + std::to_string(rank) + ")"
                                      : " (ranks " + std::to_string(on.first) + "-" +
                                            std::to_string(on.first + on.count - 1) + ")";
    if (took_over_from >= 0)
      where = " (rank " + std::to_string(rank) + ", after rank " + std::to_string(took_over_from) +
              " was lost)";
    const auto lines = batch::summary_lines(dic::job_label(b, r.job), r);
    for (std::size_t i = quiet ? 1 : 0; i < lines.size(); ++i) text += lines[i] + where + "\n";
  }
  return failed > 0 ? 2 : 0;
}

}  // namespace xcorr::mpi
