// Resumable batch runs of DIC jobs (`xcorr dic`, `xcorr run` and the desktop app's batch dialog
// share it, so their CSV files are byte-identical).
// Before any work, validate_batch checks every job: settings, output name, that every image opens
// and has the reference's size, and that the ROI lies inside the image.
// A job runs frame by frame; after each frame its result and the run's state are committed
// atomically to <out>.partial/frame_NNNNNN.bin. Running the job again (after a crash or Cancel)
// restores the last committed state and skips the committed frames: the final CSV equals an
// uninterrupted run's. A frame that cannot be read or registered (missing, truncated, NaN
// pixels) is recorded in <out>.partial/failed_NNNNNN.txt with the reason and skipped; the others
// are kept. When every frame is done the CSV is written (atomically). run_batch keeps every
// job's folder until the whole batch is done, so a batch stopped in its seventh job by a crash
// or Cancel recomputes nothing of the first six when run again; then it removes them.
// Delete <out>.partial to start a job over.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/batch/batch_file.hpp"
#include "core/batch/report.hpp"
#include "core/dic/dic.hpp"
#include "core/dic/frame_registrar.hpp"
#include "core/io/output_rules.hpp"
#include "core/io/scale.hpp"
#include "core/register/register_stack.hpp"

namespace xcorr::io {
class LazyStack;
}  // namespace xcorr::io

namespace xcorr::batch {

using RegistrarFactory =
    std::function<Result<std::unique_ptr<dic::FrameRegistrar>>(const dic::DicOptions&)>;

// Everything checked before any work: one job (settings, output, images, ROI, a leftover
// .partial folder), and a whole batch (every job, no two writing one file; the message names
// the job and the problem).
// `jobs` (by job index; empty: all): the jobs this call answers for, so that processes sharing a
// batch (xcorr-mpi) each check a slice: every job's output name is still compared with every
// other's, but only these jobs' problems are reported and only their files opened or counted
// (the others count 0 frames).
Status validate_job(const dic::DicJob& job);
Status validate_batch(const dic::Batch& b, const std::vector<bool>& jobs = {});

// Frames done (fractional inside a frame, by its points: see dic::PointProgress) of `total`:
// called once with the frames an earlier run committed (when there are any), then after every
// block of points (a fraction of a second) and after each frame; false cancels within the block
// (ErrorCode::cancelled; committed frames stay for the next run).
using FrameProgress = std::function<bool(double done, Index total)>;

// The job's whole result (every frame computed or resumed), before it is written.
using ResultHook = std::function<void(const dic::DicResult& result)>;

// One job, resumably; its <out>.partial folder is kept (run_batch removes it). Every front end
// runs DIC through this: `xcorr dic`, `xcorr run` (through run_batch) and the desktop window.
// A job with an empty `out` runs in memory (the window's interactive run): nothing is committed
// or written, the result comes through `result` and failed frames through the report.
// `open_stack`: a stack the caller already has open (the window's, with its decoded-frame cache):
// its page 0 is the reference and the pages after it the frames; job.reference then only names
// it (CSV settings).
Result<JobReport> run_job(const dic::DicJob& job, const RegistrarFactory& make_registrar,
                          const FrameProgress& progress = {}, const ResultHook& result = {},
                          const std::shared_ptr<io::LazyStack>& open_stack = nullptr);

// Hooks of a batch run (each optional), called on the running thread.
struct BatchHooks {
  std::function<void(const std::vector<Index>& frames)> started;  // frames of every job
  std::function<void(std::size_t job)> job_started;
  std::function<bool(std::size_t job, double done, Index total)> frame;  // as FrameProgress
  std::function<void(std::size_t job, const dic::DicResult& result)> result;
  std::function<void(std::size_t job, const JobReport& report)> job_done;
};

// Which of a batch's jobs one process runs, for batches shared by several processes (the ranks
// of `xcorr-mpi`, docs/scale-out.md). Default: every job, and the .partial folders removed when
// all are done.
struct BatchScope {
  std::vector<bool> runs;       // by job index (DIC jobs, then registrations); empty: all
  bool remove_partials = true;  // false: the caller removes them once every process is done
  // The batch already validated (validate_batch) and counted (count_batch_frames) by the
  // caller, which run_batch then does not repeat; empty: run_batch does both.
  std::vector<Index> frames;
  // The process group that shares this process's registration job (xcorr-mpi; this process
  // leads it); null: the job is this process's alone.
  const reg::RegisterShare* register_share = nullptr;
};

// Validates the batch, then runs its jobs in order (`xcorr run` and the desktop app's batch
// dialog both run batches through this). Stops at the first job that cannot run (the message
// names it) or on cancel, keeping every committed frame; when all jobs are done, their .partial
// folders are removed. Reports: one per job run, in job order (JobReport::job).
Result<std::vector<JobReport>> run_batch(const dic::Batch& b,
                                         const RegistrarFactory& make_registrar,
                                         const BatchHooks& hooks = {},
                                         const BatchScope& scope = {});

// The job each of `ranks` processes runs, by job index, from the jobs' frame counts: the longest
// job first, each to the process with the fewest frames so far (ties: the lower rank). The same
// on every process, with no messages.
std::vector<int> share_jobs(const std::vector<Index>& frames, int ranks);

// The ranks that run one job of a shared batch: [first, first + count). A job run by several
// ranks is shared by them: a DIC job each frame's points, a registration blocks of its frames
// (the first leads: it reads, commits and writes; docs/scale-out.md).
struct JobRanks {
  int first = 0;
  int count = 1;
  bool operator==(const JobRanks&) const = default;
};

// How `ranks` processes share a batch, by job index, from the jobs' frame counts (empty jobs
// count as one frame; DIC jobs and registrations alike). With L the batch's frames per rank, a
// job of more than L frames is long: long jobs and the pool
// of all other jobs get ranks in proportion to their frames (largest remainder; the pool at
// least one rank when it has jobs and at most one per job; ties to the earlier job, the pool
// last). Long jobs take the first ranks in job order, each its own group; the pool's ranks
// follow and share its jobs whole (share_jobs). With one rank, or no more ranks than jobs of
// equal length, every job is whole: share_jobs's answer. The same on every process, with no
// messages.
std::vector<JobRanks> share_batch(const std::vector<Index>& frames, int ranks);

// The frames of the batch's job `job` (index as in count_batch_frames, whose count `frames` is)
// that no run has committed yet: what the next run computes. DIC jobs: the deformed frames
// (from 1) without a commit or a failure record in the .partial folder, and from the first such
// frame on every frame when a later one has a record; registrations: the
// frames after the committed drift (from 1; frame 0 is the reference).
std::vector<Index> uncommitted_frames(const dic::Batch& b, std::size_t job, Index frames);

// Removes the .partial folders of the batch's DIC jobs (every frame is in the CSV files).
void remove_partials(const dic::Batch& b);

// Every job's frames, by job index: the DIC jobs' deformed frames (count_frames), then the
// registrations' stack pages; the message names the job that cannot be counted.
Result<std::vector<Index>> count_batch_frames(const dic::Batch& b,
                                              const std::vector<bool>& jobs = {});

// The number of deformed frames the job registers (waits until its stacks are indexed); for
// progress over a whole batch.
Result<Index> count_frames(const dic::DicJob& job);

// The scale a run of these options reports for this stack: the metadata of the file that holds
// its reference (core/io/image_metadata.hpp), with the options' pixel_size and frame_interval in
// place of the file's values when they are set.
Result<io::ImageScale> stack_scale(const io::LazyStack& stack, const dic::DicOptions& options);

// The folder of committed frames of a job's output.
inline std::string partial_folder(const dic::DicJob& job) {
  return job.out + ".partial";
}

// A DIC job's paths and their roles for io::check_outputs (core/io/output_rules.hpp), each role
// prefixed by `label` (a job's label in a batch, or empty). A job that writes nothing (out empty)
// has no resume folder.
io::RunPaths run_paths(const dic::DicJob& job, const std::string& label = "");

}  // namespace xcorr::batch
