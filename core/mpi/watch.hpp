// Liveness, progress and the end of an xcorr-mpi run (docs/scale-out.md, "A rank that dies").
// A thread on every rank talks to the coordinator, the lowest rank it has not lost (rank 0 at
// first), on a duplicate of MPI_COMM_WORLD: every beat period it sends the frames it has done and
// its phase, and the coordinator sends a beat to every rank. The coordinator counts a rank lost
// when it has not heard from it for `lost_after`; a rank that has not heard from its coordinator
// for that long counts it lost and turns to the next rank (which then coordinates) with what it
// had sent. When its part is over a rank sends its summary (finish) and waits. Once every rank is
// done, lost, or stuck (waiting in an exchange with a lost rank: the setup every rank takes part
// in, or a shared job's group, for a while after the loss: a group's leader that goes on alone
// says so), the coordinator's thread ends the run: the RunEnd prints and
// returns the status; then, when no rank was lost, every rank is released and exits with that
// status through MPI_Finalize, else the coordinator ends the run with MPI_Abort (mpirun exits
// non-zero).
// Open MPI's mpirun ends every rank as soon as one dies, unless it runs with
// `--mca orte_abort_on_non_zero_status 0`; then the others go on as described here.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/matrix.hpp"

namespace xcorr::mpi {

// What a rank is doing, as its beats say: exchanges with every rank (kSetup), work of its own
// (kAlone), or a shared job's exchanges with its group (the job's index, >= 0).
constexpr int kSetup = -2, kAlone = -1;
constexpr int kUnknown = -3;  // not heard yet

// A rank as the coordinator knows it.
struct RankState {
  double frames = 0;  // done
  int phase = kUnknown;
  bool done = false;   // it sent its summary
  bool lost = false;   // no word for lost_after (or a coordinator before this one)
  bool stuck = false;  // alive, but waiting in an exchange with a lost rank
  int code = 0;        // its part's exit status (when done)
  bool complete = false;
  std::string text;  // its summary (when done)
  double heard = 0;  // MPI_Wtime of its last message
};

// The end of the run, on the coordinator's watch thread once every rank is done, lost or stuck:
// prints what the ranks said (and, when ranks were lost, what did not run), removes what a
// complete run leaves; returns the run's exit status.
using RunEnd = std::function<int(const std::vector<RankState>& ranks)>;

// How the coordinator shows the run's progress (xcorr-mpi: the CLI's progress bar), from rank 0
// once the run is planned: `update` with the frames done of the run's, `finish` at the end.
// Empty: nothing is shown (--quiet).
struct ProgressView {
  std::function<void(double frames, Index total)> update;
  std::function<void()> finish;
};

class RankWatch {
 public:
  // Collective over MPI_COMM_WORLD (duplicates it); needs MPI_THREAD_MULTIPLE.
  RankWatch(double lost_after_s, ProgressView view);
  ~RankWatch();
  RankWatch(const RankWatch&) = delete;
  RankWatch& operator=(const RankWatch&) = delete;

  // After the setup, before finish: the frames of the whole run (for the bar), the phase each
  // rank has once set up (what a lost rank kept its peers waiting in), and the end.
  void set_plan(Index frames, std::vector<int> phases, RunEnd end);
  void set_phase(int phase) { phase_ = phase; }
  void set_frames(double frames) { frames_ = frames; }
  // Whether world rank `rank` is known lost here (the coordinator tells every rank).
  bool lost(int rank) const { return lost_[static_cast<std::size_t>(rank)]; }

  // This rank's part is over: its exit status, whether its jobs ran to the end, its summary.
  // Returns the run's exit status once the coordinator releases the ranks (MPI_Finalize may
  // follow); when a rank was lost the coordinator ends the run and this does not return.
  int finish(int code, bool complete, const std::string& text);

  // Only before set_plan, when every rank stops together after the setup's exchanges (a bad
  // batch): ends the thread.
  void stop();

 private:
  void loop();
  void send(int to, int tag, std::string bytes);
  void receive(double now);
  void turn_to_next_coordinator(double now);
  void coordinate(double now);
  void end_run();
  void count_lost(int rank, double now);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, ranks_ = 1;
  double lost_after_ = 60, period_ = 1;
  ProgressView view_;
  std::atomic<int> phase_{kSetup};
  std::atomic<double> frames_{0};
  std::unique_ptr<std::atomic<bool>[]> lost_;  // by rank

  std::mutex m_;  // guards the fields below
  std::condition_variable cv_;
  bool planned_ = false, mine_done_ = false, released_ = false, stopping_ = false;
  int mine_code_ = 0, release_code_ = 0;
  bool mine_complete_ = false;
  std::string mine_text_;
  Index total_ = 0;
  std::vector<int> phases_;
  RunEnd end_;

  // The watch thread's own.
  int coordinator_ = 0;
  double heard_coordinator_ = 0, beat_at_ = -1;
  double last_loss_ = -1;  // MPI_Wtime when the coordinator last counted a rank lost
  bool sent_done_ = false;
  std::vector<RankState> states_;  // the coordinator's view
  std::list<std::pair<MPI_Request, std::string>> sending_;
  bool showing_ = false;  // view_ shows progress (rank 0, planned)
  std::thread thread_;
};

}  // namespace xcorr::mpi
