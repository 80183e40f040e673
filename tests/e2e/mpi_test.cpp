// xcorr-mpi under a real `mpirun` (Open MPI, loopback only, ranks oversubscribed on this
// machine's cores; set up to run as root in a container): a batch shared by 1, 2 and 3 ranks
// writes CSV files byte-identical to `xcorr run`'s and removes its .partial folders; a rank killed
// mid-run leaves the committed frames, and the next run (with another number of ranks) resumes
// them to the same bytes; a long job's frames are shared by several ranks (each frame's points)
// with the same bytes, and resumed the same way; with mpirun's abort on a dead rank turned off, a
// lost rank (rank 0, the coordinator, included) leaves the others to finish their work (a long
// job's leader alone when a member is lost, its first living member from the commits when the
// leader is lost), the run names the frames that were not computed and exits non-zero, and the
// next run computes only those; `xcorr-mpi register` and a long
// registration job of a batch share blocks of a stack's frames with `xcorr register`'s bytes (FFTW
// plans handed from the first rank to the others); a bad batch stops every rank before any work
// with one message. Every process runs under `timeout`, so a hung MPI job ends the test instead of
// blocking it.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/sample_files.hpp"
#include "tests/support/temp_dir.hpp"

extern char** environ;

namespace xcorr {
namespace {

namespace fs = std::filesystem;

// Open MPI on a single machine inside a container: allowed as root, TCP on loopback only.
const char* const kMpiEnv =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp "
    "OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo "
    "OMPI_MCA_rmaps_base_oversubscribe=1";

// mpirun's default ends every rank when one dies; with this the others go on (docs/scale-out.md).
const char* const kRanksOutliveOne = "OMPI_MCA_orte_abort_on_non_zero_status=0";

std::string mpirun(int ranks, const std::string& args, const std::string& env = "") {
  return std::string("env ") + kMpiEnv + " " + env + " timeout 120 " + XCORR_MPIEXEC + " -np " +
         std::to_string(ranks) + " " + XCORR_MPI_EXE + " " + args;
}

// The process of world rank `rank` of the running xcorr-mpi job of `command` (run, register; its
// environment names its rank); 0 when there is none.
long pid_of_rank_of(const std::string& command, int rank) {
  FILE* p = popen(("pgrep -f '^" + std::string(XCORR_MPI_EXE) + " " + command + " '").c_str(), "r");
  if (p == nullptr) return 0;
  const std::string entry =
      std::string(1, '\0') + "OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + std::string(1, '\0');
  long pid = 0, found = 0;
  while (std::fscanf(p, "%ld", &pid) == 1) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    const std::string env((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (env.find(entry) != std::string::npos) found = pid;
  }
  pclose(p);
  return found;
}

// The frames in "2-5, 7" (a lost rank's message).
int count_frames(const std::string& ranges) {
  int n = 0;
  std::smatch m;
  const std::regex range("([0-9]+)(-([0-9]+))?");
  for (auto it = std::sregex_iterator(ranges.begin(), ranges.end(), range);
       it != std::sregex_iterator(); ++it) {
    const int a = std::stoi((*it)[1]);
    n += (*it)[3].matched ? std::stoi((*it)[3]) - a + 1 : 1;
  }
  return n;
}

// Runs `command` through the shell with stdout and stderr to files; its exit status.
int run(const std::string& command, const std::string& out, const std::string& err) {
  const int status = std::system((command + " > '" + out + "' 2> '" + err + "'").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

class Mpi : public testing::TempDirTest {
 protected:
  // A batch of `jobs` DIC jobs over the first 6 pages of the bundled sample, in `folder`.
  void write_batch(const fs::path& folder, int jobs, int step) {
    fs::create_directories(folder);
    ASSERT_TRUE(testing::write_sample_pages(folder / "stack.tif", 6).is_ok());
    std::ofstream f(folder / "batch.json");
    f << R"({"jobs": [)";
    for (int k = 0; k < jobs; ++k) {
      f << (k ? "," : "") << R"({"name": "j)" << k << R"(", "reference": "stack.tif", "out": "out)"
        << k << R"(.csv", "roi": ["rect:)" << 20 + 8 * k << R"(,24,200,200"], "step": )" << step
        << R"(, "device": "cpu"})";
    }
    f << "]}";
  }
  // One long DIC job over the sample's first 6 pages (5 frames) with `options` (JSON members),
  // and with `short_job` a one-frame job beside it.
  void write_long_batch(const fs::path& folder, const std::string& options, bool short_job) {
    fs::create_directories(folder);
    ASSERT_TRUE(testing::write_sample_pages(folder / "stack.tif", 6).is_ok());
    ASSERT_TRUE(testing::write_sample_pages(folder / "short.tif", 2).is_ok());
    std::ofstream f(folder / "batch.json");
    f << R"({"jobs": [{"name": "long", "reference": "stack.tif", "out": "out0.csv", )"
      << R"("roi": ["rect:20,24,200,200"], "device": "cpu")" << options << "}";
    if (short_job) {
      f << R"(, {"name": "short", "reference": "short.tif", "out": "out1.csv", )"
        << R"("roi": ["rect:20,24,200,200"], "device": "cpu", "step": 12})";
    }
    f << "]}";
  }
  // `xcorr run` of the same batch in `folder`: the reference bytes.
  void reference_run(const fs::path& folder) {
    ASSERT_EQ(
        run(std::string(XCORR_EXE) + " run '" + (folder / "batch.json").string() + "' --quiet",
            (folder / "stdout.txt").string(), (folder / "stderr.txt").string()),
        0)
        << testing::read_bytes(folder / "stderr.txt");
  }
  // 3 ranks over the batch in `d` in the background (`env`, `args`: more for mpirun and the
  // program); once a frame of job `watch` (-1: of any of `jobs` jobs) is committed, rank `rank`
  // is killed. The run must fail and keep the commits; its stdout and stderr are in
  // killed.out and killed.err. `kept`: some job is left unfinished (its commits are kept).
  static void kill_rank_mid_run(const fs::path& d, int jobs, int watch, int rank,
                                const std::string& env = "", const std::string& args = "--quiet",
                                bool kept = true) {
    const std::string cmd = mpirun(3, "run '" + (d / "batch.json").string() + "' " + args, env) +
                            " > '" + (d / "killed.out").string() + "' 2> '" +
                            (d / "killed.err").string() + "'";
    const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
    pid_t sh = 0;
    ASSERT_EQ(posix_spawn(&sh, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
    const auto partial = [&d](int k) { return d / ("out" + std::to_string(k) + ".csv.partial"); };
    auto committed = [&] {
      for (int k = 0; k < jobs; ++k) {
        if (watch >= 0 && k != watch) continue;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(partial(k), ec))
          if (e.path().filename().string().rfind("frame_", 0) == 0) return true;
      }
      return false;
    };
    bool seen = false;
    for (int i = 0; i < 6000 && !(seen = committed()); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(seen) << "no frame committed";
    const long pid = pid_of_rank_of("run", rank);
    ASSERT_NE(pid, 0) << "no process of rank " << rank;
    ASSERT_EQ(kill(static_cast<pid_t>(pid), SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(sh, &status, 0), sh);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_NE(WEXITSTATUS(status), 0) << "a killed rank must fail the run";
    EXPECT_NE(WEXITSTATUS(status), 124) << "the run must end by itself, not by timeout";
    bool partial_left = false;
    for (int k = 0; k < jobs; ++k) partial_left = partial_left || fs::exists(partial(k));
    ASSERT_EQ(partial_left, kept) << "the committed frames are kept while a job is unfinished";
  }
  // The frames the lost rank's message names for `job` (1-based label, named `name`), which was
  // on the ranks `who` says; -1 when there is no such message.
  static int named_lost_frames(const std::string& err, int job, const std::string& name,
                               const std::string& who) {
    std::smatch m;
    const std::regex line("job " + std::to_string(job) + " \\('" + name + "'\\) \\(" + who +
                          "\\): frames ([0-9, -]+) of [0-9]+ not computed");
    return std::regex_search(err, m, line) ? count_frames(m[1]) : -1;
  }
  // Under mpirun --mca orte_abort_on_non_zero_status 0, when rank `killed` dies the other ranks
  // finish their jobs (their CSV files are written, the same bytes as `xcorr run`'s), the run
  // names the frames of the lost rank's job that were not computed and exits non-zero, and the
  // next run (two ranks, mpirun's default) computes exactly those.
  void lost_rank_run(int killed) {
    const fs::path dir = dir_;
    const int jobs = 3;  // one per rank: job k on rank k
    write_batch(dir / "ref", jobs, 3);
    reference_run(dir / "ref");
    const fs::path d = dir / "run";
    write_batch(d, jobs, 3);
    kill_rank_mid_run(d, jobs, killed, killed, kRanksOutliveOne, "--lost-after 3");
    if (HasFatalFailure()) return;
    const std::string err = testing::read_bytes(d / "killed.err");
    const std::string r = std::to_string(killed);
    EXPECT_NE(err.find("rank " + r + " lost: no word from it for"), std::string::npos) << err;
    if (killed == 0) {
      EXPECT_NE(err.find("rank 1 coordinates the run from here on"), std::string::npos) << err;
    }
    const int lost = named_lost_frames(err, killed + 1, "j" + r, "rank " + r + " lost");
    ASSERT_GE(lost, 1) << err;
    ASSERT_LE(lost, 4) << "its first frame was committed";
    for (int k = 0; k < jobs; ++k) {  // the others finished: their CSV files, the same bytes
      const std::string name = "out" + std::to_string(k) + ".csv";
      if (k == killed) {
        EXPECT_FALSE(fs::exists(d / name));
        continue;
      }
      ASSERT_TRUE(fs::exists(d / name)) << name << "\n" << err;
      EXPECT_EQ(testing::read_bytes(dir / "ref" / name), testing::read_bytes(d / name)) << name;
    }
    const std::string out = (d / "again.out").string(), again_err = (d / "again.err").string();
    ASSERT_EQ(run(mpirun(2, "run '" + (d / "batch.json").string() + "'"), out, again_err), 0)
        << testing::read_bytes(again_err);
    expect_same_csv(dir / "ref", d, jobs);
    const std::string text = testing::read_bytes(out);
    const std::string computed = "job " + std::to_string(killed + 1) + " ('j" + r +
                                 "'): 5 frames (" + std::to_string(lost) + " computed, " +
                                 std::to_string(5 - lost) + " resumed";
    EXPECT_NE(text.find(computed), std::string::npos) << computed << "\n" << text;
  }
  // A speckle stack of `frames` pages of size^2 px drifting by (0.07, -0.05) px a frame (xcorr
  // speckle).
  static void write_drifting_stack(const fs::path& file, int frames, int size = 256) {
    fs::create_directories(file.parent_path());
    const fs::path log = file.parent_path() / "speckle.log";
    const std::string side = std::to_string(size);
    ASSERT_EQ(
        run(std::string(XCORR_EXE) + " speckle --out '" + file.string() + "' --size " + side + "," +
                side + " --shift 0.07,-0.05 --noise 300 --frames " + std::to_string(frames),
            log.string(), log.string()),
        0)
        << testing::read_bytes(log);
  }
  // The long job on ranks 0-1 beside the short one on rank 2; rank `killed` dies once the long
  // job has a commit. Every frame is still computed (both CSV files the reference bytes), yet the
  // run fails (a rank was lost) and says so. Its stderr.
  std::string lost_rank_of_a_finished_shared_job(int killed) {
    const fs::path dir = dir_;
    const std::string options = R"(, "step": 3)";
    write_long_batch(dir / "ref", options, true);
    reference_run(dir / "ref");
    const fs::path d = dir / "run";
    write_long_batch(d, options, true);
    kill_rank_mid_run(d, 2, 0, killed, kRanksOutliveOne, "--lost-after 3", false);
    if (HasFatalFailure()) return {};
    const std::string err = testing::read_bytes(d / "killed.err");
    EXPECT_NE(err.find("every frame was computed and every output written"), std::string::npos)
        << err;
    expect_same_csv(dir / "ref", d, 2);
    return err;
  }
  static void expect_same_csv(const fs::path& a, const fs::path& b, int jobs) {
    for (int k = 0; k < jobs; ++k) {
      const std::string name = "out" + std::to_string(k) + ".csv";
      ASSERT_TRUE(fs::exists(b / name)) << name;
      EXPECT_EQ(testing::read_bytes(a / name), testing::read_bytes(b / name)) << name;
      EXPECT_FALSE(fs::exists(b / (name + ".partial"))) << name;
    }
  }
};

TEST_F(Mpi, SharedBatchWritesTheSameBytesAsOneProcess) {
  const int jobs = 4;
  write_batch(dir_ / "ref", jobs, 12);
  reference_run(dir_ / "ref");
  for (int ranks : {1, 2, 3}) {
    const fs::path d = dir_ / ("np" + std::to_string(ranks));
    write_batch(d, jobs, 12);
    const std::string out = (d / "stdout.txt").string(), err = (d / "stderr.txt").string();
    ASSERT_EQ(run(mpirun(ranks, "run '" + (d / "batch.json").string() + "'"), out, err), 0)
        << testing::read_bytes(err);
    expect_same_csv(dir_ / "ref", d, jobs);
    // Rank 0 prints every job's summary once, naming the rank that ran it.
    const std::string text = testing::read_bytes(out);
    for (int k = 1; k <= jobs; ++k)
      EXPECT_NE(text.find("job " + std::to_string(k) + " ('j"), std::string::npos) << text;
    EXPECT_NE(text.find("(rank " + std::to_string(ranks - 1) + ")"), std::string::npos) << text;
  }
}

TEST_F(Mpi, KilledRankLeavesItsCommitsAndTheNextRunResumesThem) {
  const int jobs = 3;
  write_batch(dir_ / "ref", jobs, 3);
  reference_run(dir_ / "ref");
  const fs::path d = dir_ / "run";
  write_batch(d, jobs, 3);
  const std::string batch = (d / "batch.json").string();
  kill_rank_mid_run(d, jobs, -1, 2);
  if (HasFatalFailure()) return;

  // Again, with two ranks: the commits are resumed, the rest computed, the bytes the same.
  const std::string out = (d / "again.out").string(), err = (d / "again.err").string();
  ASSERT_EQ(run(mpirun(2, "run '" + batch + "'"), out, err), 0) << testing::read_bytes(err);
  expect_same_csv(dir_ / "ref", d, jobs);
  // At least one job took frames from the killed run's commits ("N computed, M resumed", M > 0).
  const std::string text = testing::read_bytes(out);
  EXPECT_TRUE(std::regex_search(text, std::regex("computed, [1-9][0-9]* resumed"))) << text;
}

TEST_F(Mpi, ALongJobsFramesAreSharedByRanksWithTheSameBytes) {
  // Independent propagation, and a consistency check tight enough that every frame registers
  // its suspects a second time (another shared call per frame).
  const std::string options = R"(, "step": 5, "max_deviation": 0.05)";
  write_long_batch(dir_ / "ref", options, false);
  reference_run(dir_ / "ref");
  for (int ranks : {2, 3}) {
    const fs::path d = dir_ / ("np" + std::to_string(ranks));
    write_long_batch(d, options, false);
    const std::string out = (d / "stdout.txt").string(), err = (d / "stderr.txt").string();
    ASSERT_EQ(run(mpirun(ranks, "run '" + (d / "batch.json").string() + "'"), out, err), 0)
        << testing::read_bytes(err);
    expect_same_csv(dir_ / "ref", d, 1);
    const std::string text = testing::read_bytes(out);
    EXPECT_NE(text.find("(ranks 0-" + std::to_string(ranks - 1) + ")"), std::string::npos) << text;
  }
  // Beside a short job: the long one on two ranks, the short one on the third.
  write_long_batch(dir_ / "ref2", options, true);
  reference_run(dir_ / "ref2");
  const fs::path d = dir_ / "mixed";
  write_long_batch(d, options, true);
  const std::string out = (d / "stdout.txt").string(), err = (d / "stderr.txt").string();
  ASSERT_EQ(run(mpirun(3, "run '" + (d / "batch.json").string() + "'"), out, err), 0)
      << testing::read_bytes(err);
  expect_same_csv(dir_ / "ref2", d, 2);
  const std::string text = testing::read_bytes(out);
  EXPECT_TRUE(std::regex_search(text, std::regex("job 1 \\('long'\\).*\\(ranks 0-1\\)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("job 2 \\('short'\\).*\\(rank 2\\)"))) << text;
}

TEST_F(Mpi, CpuReliabilityGuidedJobRunsOnItsFirstRankAloneAndSaysSo) {
  const std::string options = R"(, "step": 8, "propagation": "reliability")";
  write_long_batch(dir_ / "ref", options, false);
  reference_run(dir_ / "ref");
  const fs::path d = dir_ / "np3";
  write_long_batch(d, options, false);
  const std::string out = (d / "stdout.txt").string(), err = (d / "stderr.txt").string();
  ASSERT_EQ(run(mpirun(3, "run '" + (d / "batch.json").string() + "'"), out, err), 0)
      << testing::read_bytes(err);
  expect_same_csv(dir_ / "ref", d, 1);
  EXPECT_NE(testing::read_bytes(err).find("rank 0 registers its job alone: cpu reliability-guided"),
            std::string::npos)
      << testing::read_bytes(err);
}

TEST_F(Mpi, KilledRankOfASharedJobLeavesItsCommitsAndTheNextRunResumesThem) {
  const std::string options = R"(, "step": 3)";
  write_long_batch(dir_ / "ref", options, false);
  reference_run(dir_ / "ref");
  const fs::path d = dir_ / "run";
  write_long_batch(d, options, false);
  const std::string batch = (d / "batch.json").string();
  kill_rank_mid_run(d, 1, 0, 2);  // a rank that registers parts
  if (HasFatalFailure()) return;

  // Again, with two ranks sharing the job: the commits resumed, the bytes the same.
  const std::string out = (d / "again.out").string(), err = (d / "again.err").string();
  ASSERT_EQ(run(mpirun(2, "run '" + batch + "'"), out, err), 0) << testing::read_bytes(err);
  expect_same_csv(dir_ / "ref", d, 1);
  const std::string text = testing::read_bytes(out);
  EXPECT_TRUE(std::regex_search(text, std::regex("computed, [1-9][0-9]* resumed"))) << text;
  EXPECT_NE(text.find("(ranks 0-1)"), std::string::npos) << text;
}

TEST_F(Mpi, ALostRanksPeersFinishTheirJobsAndTheRunNamesTheFramesNotComputed) {
  lost_rank_run(1);
}

TEST_F(Mpi, ALostCoordinatorIsFollowedByTheNextRank) {
  lost_rank_run(0);
}

// Rank 1 dies: rank 0, the group's leader, registers the rest of its job alone, rank 2 finishes
// the short job.
TEST_F(Mpi, ALostMemberOfASharedJobLeavesItsLeaderToFinishAlone) {
  const std::string err = lost_rank_of_a_finished_shared_job(1);
  EXPECT_NE(err.find("rank 0 registers the rest of its job alone: its group lost a rank"),
            std::string::npos)
      << err;
}

// Rank 0, the long job's leader and the run's coordinator, dies: rank 1 coordinates and takes the
// long job over from its commits (a resumed run), rank 2 finishes the short job.
TEST_F(Mpi, ALostLeadersJobIsTakenOverFromItsCommits) {
  const std::string err = lost_rank_of_a_finished_shared_job(0);
  EXPECT_NE(err.find("rank 1 coordinates the run from here on"), std::string::npos) << err;
  EXPECT_NE(err.find("rank 1 takes over job 1 ('long') from its commits: its leader, rank 0, "
                     "was lost"),
            std::string::npos)
      << err;
  const std::string text = testing::read_bytes(dir_ / "run" / "killed.out");
  EXPECT_TRUE(
      std::regex_search(text, std::regex("job 1 \\('long'\\): 5 frames \\([1-4] computed, "
                                         "[1-4] resumed.*\\(rank 1, after rank 0 was lost\\)")))
      << text;
}

// `xcorr-mpi register`: the ranks share blocks of the stack's frames; the drift table and the
// corrected stack are the bytes `xcorr register` writes, for each reference and 1-3 ranks.
TEST_F(Mpi, RegisterSharesAStacksFramesWithTheSameBytes) {
  const fs::path stack = dir_ / "s.tif";
  write_drifting_stack(stack, 41);
  if (HasFatalFailure()) return;
  for (const std::string reference : {"first", "previous", "mean"}) {
    const fs::path d = dir_ / reference;
    fs::create_directories(d);
    const std::string flags = " --reference " + reference;
    ASSERT_EQ(
        run(std::string(XCORR_EXE) + " register '" + stack.string() + "'" + flags + " --drift '" +
                (d / "one.csv").string() + "' --out '" + (d / "one.tif").string() + "' --quiet",
            (d / "one.out").string(), (d / "one.err").string()),
        0)
        << testing::read_bytes(d / "one.err");
    for (int ranks : {1, 2, 3}) {
      const std::string n = std::to_string(ranks);
      const fs::path csv = d / ("np" + n + ".csv"), tif = d / ("np" + n + ".tif");
      const std::string out = (d / ("np" + n + ".out")).string(),
                        err = (d / ("np" + n + ".err")).string();
      ASSERT_EQ(run(mpirun(ranks, "register '" + stack.string() + "'" + flags + " --drift '" +
                                      csv.string() + "' --out '" + tif.string() + "'"),
                    out, err),
                0)
          << testing::read_bytes(err);
      EXPECT_EQ(testing::read_bytes(d / "one.csv"), testing::read_bytes(csv))
          << reference << ", " << ranks << " ranks";
      EXPECT_TRUE(testing::read_bytes(d / "one.tif") == testing::read_bytes(tif))
          << reference << ", " << ranks << " ranks: the corrected stacks differ";
      EXPECT_FALSE(fs::exists(csv.string() + ".partial"));
      if (ranks > 1) {
        EXPECT_NE(testing::read_bytes(out).find("(ranks 0-" + std::to_string(ranks - 1) + ")"),
                  std::string::npos)
            << testing::read_bytes(out);
      }
      // The leader's times, as `xcorr run` prints a job's.
      EXPECT_TRUE(std::regex_search(
          testing::read_bytes(out),
          std::regex(" in [0-9.]+ s \\(setup [0-9.]+, frames [0-9.]+, writing [0-9.]+[;)]")))
          << testing::read_bytes(out);
    }
  }
}

// A registration job of a batch is a job like the others: long, its frames are shared by a
// group of ranks; the outputs are `xcorr run`'s bytes.
TEST_F(Mpi, ALongRegistrationInABatchIsSharedByAGroupOfRanks) {
  for (const char* folder : {"ref", "run"}) {
    const fs::path d = dir_ / folder;
    write_drifting_stack(d / "s.tif", 41);
    ASSERT_TRUE(testing::write_sample_pages(d / "stack.tif", 6).is_ok());
    std::ofstream f(d / "batch.json");
    f << R"({"jobs": [{"name": "j0", "reference": "stack.tif", "out": "out0.csv", )"
      << R"("roi": ["rect:20,24,200,200"], "step": 12, "device": "cpu"}, )"
      << R"({"type": "register", "name": "reg", "stack": "s.tif", "drift": "drift.csv", )"
      << R"("out": "corrected.tif", "reference": "previous"}]})";
  }
  if (HasFatalFailure()) return;
  reference_run(dir_ / "ref");
  const fs::path d = dir_ / "run";
  const std::string out = (d / "stdout.txt").string(), err = (d / "stderr.txt").string();
  ASSERT_EQ(run(mpirun(3, "run '" + (d / "batch.json").string() + "'"), out, err), 0)
      << testing::read_bytes(err);
  for (const char* name : {"out0.csv", "drift.csv", "corrected.tif"}) {
    ASSERT_TRUE(fs::exists(d / name)) << name;
    EXPECT_TRUE(testing::read_bytes(dir_ / "ref" / name) == testing::read_bytes(d / name))
        << name << " differs";
  }
  const std::string text = testing::read_bytes(out);
  EXPECT_TRUE(std::regex_search(text, std::regex("register job 2 \\('reg'\\).*\\(ranks 0-1\\)")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("job 1 \\('j0'\\).*\\(rank 2\\)"))) << text;
}

// A rank of a shared registration dies (mpirun's abort off): a lost member leaves the leader to
// measure the rest alone (its blocks of that round too), a lost leader's job is taken over from
// its commits by the next rank; either way the drift table is the bytes of one process, and the
// run fails (a rank was lost) saying that every frame was computed.
TEST_F(Mpi, ALostRankOfASharedRegistrationLeavesTheOthersToFinishIt) {
  const fs::path stack = dir_ / "m.tif";
  write_drifting_stack(stack, 200);
  if (HasFatalFailure()) return;
  // Slow enough per frame that the run is still going when a rank is killed.
  const std::string flags = " --upsample 1000 --iterations 8 --reference previous";
  ASSERT_EQ(run(std::string(XCORR_EXE) + " register '" + stack.string() + "'" + flags +
                    " --drift '" + (dir_ / "one.csv").string() + "' --quiet",
                (dir_ / "one.out").string(), (dir_ / "one.err").string()),
            0)
      << testing::read_bytes(dir_ / "one.err");
  for (const int killed : {1, 0}) {
    const fs::path d = dir_ / ("killed" + std::to_string(killed));
    fs::create_directories(d);
    const std::string cmd = mpirun(3,
                                   "register '" + stack.string() + "'" + flags + " --drift '" +
                                       (d / "out0.csv").string() + "' --lost-after 3",
                                   kRanksOutliveOne) +
                            " > '" + (d / "killed.out").string() + "' 2> '" +
                            (d / "killed.err").string() + "'";
    const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
    pid_t sh = 0;
    ASSERT_EQ(posix_spawn(&sh, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
    const fs::path commits = d / "out0.csv.partial" / "drift.txt";
    for (int i = 0; i < 6000 && !fs::exists(commits); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(fs::exists(commits)) << "no drift committed";
    const long pid = pid_of_rank_of("register", killed);
    ASSERT_NE(pid, 0);
    ASSERT_EQ(kill(static_cast<pid_t>(pid), SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(sh, &status, 0), sh);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_NE(WEXITSTATUS(status), 0);
    EXPECT_NE(WEXITSTATUS(status), 124) << "the run must end by itself";
    const std::string err = testing::read_bytes(d / "killed.err");
    EXPECT_NE(err.find(killed == 1 ? "rank 0 measures the rest of its registration alone"
                                   : "rank 1 takes over register job 1 ('m.tif') from its "
                                     "commits: its leader, rank 0, was lost"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("every frame was computed and every output written"), std::string::npos)
        << err;
    EXPECT_EQ(testing::read_bytes(dir_ / "one.csv"), testing::read_bytes(d / "out0.csv"))
        << "rank " << killed << " killed";
    EXPECT_FALSE(fs::exists(d / "out0.csv.partial"));
  }
}

// Frames of 1024^2 px and more are planned by FFTW's timings, so two processes may round
// differently: a registration's first process hands its plans to the others and keeps them in the
// .partial folder. A run killed after its first commit, resumed once by one process and once (from
// the same commits) by 3 ranks: both resumed runs use the killed run's plans, so their drift
// tables are the same bytes.
TEST_F(Mpi, ResumedRanksMeasureWithTheFirstRunsFftwPlans) {
  write_drifting_stack(dir_ / "s.tif", 20, 1024);
  if (HasFatalFailure()) return;
  {
    std::ofstream f(dir_ / "reg.json");
    f << R"({"type": "register", "stack": "s.tif", "drift": "drift.csv", "iterations": 4})";
  }
  const std::string job = (dir_ / "reg.json").string();
  const fs::path partial = dir_ / "drift.csv.partial", saved = dir_ / "saved.partial";
  const char* argv[] = {XCORR_EXE, "run", job.c_str(), "--quiet", nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, XCORR_EXE, nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  for (int i = 0; i < 12000 && !fs::exists(partial / "drift.txt"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(fs::exists(partial / "drift.txt")) << "no drift committed";
  ASSERT_FALSE(fs::exists(dir_ / "drift.csv")) << "the run ended before it was killed";
  ASSERT_TRUE(fs::exists(partial / "fftw_plans.txt"));
  fs::copy(partial, saved, fs::copy_options::recursive);
  const std::string out = (dir_ / "run.out").string(), err = (dir_ / "run.err").string();
  ASSERT_EQ(run(std::string(XCORR_EXE) + " run '" + job + "'", out, err), 0)
      << testing::read_bytes(err);
  EXPECT_NE(testing::read_bytes(out).find("resumed"), std::string::npos);
  fs::rename(dir_ / "drift.csv", dir_ / "one.csv");
  fs::copy(saved, partial, fs::copy_options::recursive);
  ASSERT_EQ(run(mpirun(3, "run '" + job + "'"), out, err), 0) << testing::read_bytes(err);
  EXPECT_NE(testing::read_bytes(out).find("(ranks 0-2)"), std::string::npos)
      << testing::read_bytes(out);
  EXPECT_EQ(testing::read_bytes(dir_ / "one.csv"), testing::read_bytes(dir_ / "drift.csv"));
}

TEST_F(Mpi, BadBatchStopsEveryRankBeforeAnyWork) {
  const fs::path d = dir_ / "bad";
  write_batch(d, 2, 12);
  {
    std::ofstream f(d / "batch.json");
    // Two problems, found by ranks 1 and 2 (each rank checks a slice of the jobs): the first in
    // job order is the one reported, as `xcorr run` reports it.
    f << R"({"jobs": [{"reference": "stack.tif", "out": "a.csv", "roi": ["rect:20,24,200,200"]},)"
      << R"({"reference": "missing.tif", "out": "b.csv", "roi": ["rect:20,24,200,200"]},)"
      << R"({"reference": "stack.tif", "out": "a.csv", "roi": ["rect:20,24,200,200"]}]})";
  }
  const std::string out = (d / "stdout.txt").string(), err = (d / "stderr.txt").string();
  EXPECT_EQ(run(mpirun(3, "run '" + (d / "batch.json").string() + "'"), out, err), 2);
  const std::string text = testing::read_bytes(err);
  const auto first = text.find("missing.tif");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find("missing.tif", first + 1), std::string::npos)
      << "one message, not one per rank";
  ASSERT_EQ(run(std::string(XCORR_EXE) + " run '" + (d / "batch.json").string() + "'",
                (d / "single.out").string(), (d / "single.err").string()),
            2);
  const std::string single = testing::read_bytes(d / "single.err");  // "xcorr: error: ..."
  ASSERT_NE(single.find("error: "), std::string::npos) << single;
  EXPECT_NE(text.find(single.substr(single.find("error: "))), std::string::npos)
      << text << " vs " << single;
  EXPECT_FALSE(fs::exists(d / "a.csv"));
  EXPECT_FALSE(fs::exists(d / "a.csv.partial"));
}

}  // namespace
}  // namespace xcorr
