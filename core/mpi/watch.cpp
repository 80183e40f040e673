#include "core/mpi/watch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace xcorr::mpi {
namespace {

constexpr int kTagBeat = 1;     // member -> coordinator: two doubles (frames, phase); back: none
constexpr int kTagDone = 2;     // member -> coordinator: "<code> <complete>\n<summary>"
constexpr int kTagRelease = 3;  // coordinator -> member: "<code>"
constexpr int kTagLost = 4;     // coordinator -> member: "<rank>", a rank counted lost

std::string beat_bytes(double frames, int phase) {
  const double v[2] = {frames, static_cast<double>(phase)};
  return std::string(reinterpret_cast<const char*>(v), sizeof v);
}

}  // namespace

RankWatch::RankWatch(double lost_after_s, ProgressView view)
    : lost_after_(lost_after_s), view_(std::move(view)) {
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  // Ten beats in the silence that loses a rank, and at most one a second.
  period_ = std::min(1.0, lost_after_ / 10);
  const double now = MPI_Wtime();
  heard_coordinator_ = now;
  states_.resize(static_cast<std::size_t>(ranks_));
  lost_ = std::make_unique<std::atomic<bool>[]>(static_cast<std::size_t>(ranks_));
  for (int r = 0; r < ranks_; ++r) lost_[static_cast<std::size_t>(r)] = false;
  for (RankState& s : states_) s.heard = now;
  thread_ = std::thread([this] { loop(); });
}

RankWatch::~RankWatch() {
  stop();
}

void RankWatch::set_plan(Index frames, std::vector<int> phases, RunEnd end) {
  std::lock_guard<std::mutex> lock(m_);
  total_ = frames;
  phases_ = std::move(phases);
  end_ = std::move(end);
  planned_ = true;
}

int RankWatch::finish(int code, bool complete, const std::string& text) {
  std::unique_lock<std::mutex> lock(m_);
  mine_done_ = true;
  mine_code_ = code;
  mine_complete_ = complete;
  mine_text_ = text;
  cv_.wait(lock, [this] { return released_; });
  return release_code_;
}

void RankWatch::stop() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void RankWatch::send(int to, int tag, std::string bytes) {
  sending_.emplace_back(MPI_REQUEST_NULL, std::move(bytes));
  std::string& b = sending_.back().second;
  MPI_Isend(b.data(), static_cast<int>(b.size()), MPI_BYTE, to, tag, comm_, &sending_.back().first);
}

void RankWatch::loop() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(m_);
      if (stopping_) break;
    }
    const double now = MPI_Wtime();
    // Sends that are through (a send to a lost rank may never be: it stays).
    for (auto it = sending_.begin(); it != sending_.end();) {
      int through = 0;
      MPI_Test(&it->first, &through, MPI_STATUS_IGNORE);
      it = through ? sending_.erase(it) : std::next(it);
    }
    receive(now);
    if (coordinator_ == rank_) {
      coordinate(now);
    } else {
      if (now - heard_coordinator_ > lost_after_) turn_to_next_coordinator(now);
      if (now - beat_at_ >= period_) {
        beat_at_ = now;
        send(coordinator_, kTagBeat, beat_bytes(frames_, phase_));
      }
      std::lock_guard<std::mutex> lock(m_);
      if (mine_done_ && !sent_done_) {
        sent_done_ = true;
        send(coordinator_, kTagDone,
             std::to_string(mine_code_) + " " + (mine_complete_ ? "1" : "0") + "\n" + mine_text_);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Released: what is still being sent goes out to live ranks (small messages).
  for (auto& [request, bytes] : sending_) MPI_Wait(&request, MPI_STATUS_IGNORE);
  sending_.clear();
}

void RankWatch::receive(double now) {
  for (;;) {
    int any = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &any, &st);
    if (!any) return;
    int size = 0;
    MPI_Get_count(&st, MPI_BYTE, &size);
    std::string b(static_cast<std::size_t>(size), '\0');
    MPI_Recv(b.data(), size, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm_, MPI_STATUS_IGNORE);
    const auto from = static_cast<std::size_t>(st.MPI_SOURCE);
    if (st.MPI_SOURCE == coordinator_) heard_coordinator_ = now;
    RankState& s = states_[from];
    if (st.MPI_TAG == kTagRelease) {
      std::lock_guard<std::mutex> lock(m_);
      released_ = true;
      release_code_ = std::atoi(b.c_str());
      stopping_ = true;
      cv_.notify_all();
      return;
    }
    if (st.MPI_TAG == kTagLost) {
      const int r = std::atoi(b.c_str());
      if (r >= 0 && r < ranks_) lost_[static_cast<std::size_t>(r)] = true;
      continue;
    }
    if (s.lost) continue;  // counted lost: what it says now changes nothing
    s.heard = now;
    if (st.MPI_TAG == kTagBeat && b.size() == 2 * sizeof(double)) {
      double v[2];
      std::memcpy(v, b.data(), sizeof v);
      s.frames = v[0];
      s.phase = static_cast<int>(v[1]);
    } else if (st.MPI_TAG == kTagDone) {
      const std::size_t eol = b.find('\n');
      s.done = true;
      s.code = std::atoi(b.c_str());
      s.complete = eol != std::string::npos && eol > 0 && b[eol - 1] == '1';
      s.text = eol == std::string::npos ? "" : b.substr(eol + 1);
    }
  }
}

void RankWatch::turn_to_next_coordinator(double now) {
  const int lost = coordinator_++;
  states_[static_cast<std::size_t>(lost)].lost = true;
  lost_[static_cast<std::size_t>(lost)] = true;
  heard_coordinator_ = now;
  sent_done_ = false;  // the new coordinator gets the summary again
  if (coordinator_ != rank_) return;
  // This rank coordinates now: every rank below it is lost, the others are heard from afresh.
  // What they said already stays (a rank that turned here first may have sent its summary).
  for (int r = 0; r < ranks_; ++r) {
    RankState& s = states_[static_cast<std::size_t>(r)];
    if (r < rank_) s.lost = true;
    s.heard = now;
  }
  last_loss_ = now;
  std::fprintf(stderr,
               "xcorr-mpi: rank %d lost: no word from it for %.0f s; rank %d coordinates the run "
               "from here on\n",
               lost, lost_after_, rank_);
}

void RankWatch::coordinate(double now) {
  if (now - beat_at_ >= period_) {
    beat_at_ = now;
    for (int r = 0; r < ranks_; ++r)
      if (r != rank_ && !states_[static_cast<std::size_t>(r)].lost) send(r, kTagBeat, "");
  }
  RankState& me = states_[static_cast<std::size_t>(rank_)];
  me.heard = now;
  me.frames = frames_;
  me.phase = phase_;
  bool planned = false;
  {
    std::lock_guard<std::mutex> lock(m_);
    planned = planned_;
    if (mine_done_ && !me.done) {
      me.done = true;
      me.code = mine_code_;
      me.complete = mine_complete_;
      me.text = mine_text_;
    }
    showing_ = planned && rank_ == 0 && view_.update;
  }
  for (int r = 0; r < ranks_; ++r) {
    RankState& s = states_[static_cast<std::size_t>(r)];
    if (r != rank_ && !s.lost && now - s.heard > lost_after_) {
      std::fprintf(stderr, "%sxcorr-mpi: rank %d lost: no word from it for %.0f s\n",
                   showing_ ? "\n" : "", r, now - s.heard);
      count_lost(r, now);
    }
  }
  double frames = 0;
  for (const RankState& s : states_) frames += s.frames;
  if (showing_) view_.update(frames, total_);
  // Stuck: waiting for a lost rank in the setup (every rank takes part) or in its shared job. A
  // lost rank may have gone on since its last beat: it is where it was last heard (unknown: in
  // the setup) and, once planned, where the plan put it.
  bool any_lost = false, lost_in_setup = false;
  std::vector<int> lost_groups;
  for (int r = 0; r < ranks_; ++r) {
    const RankState& s = states_[static_cast<std::size_t>(r)];
    if (!s.lost) continue;
    any_lost = true;
    lost_in_setup = lost_in_setup || s.phase == kSetup || s.phase == kUnknown;
    if (s.phase >= 0) lost_groups.push_back(s.phase);
    if (planned && static_cast<std::size_t>(r) < phases_.size() &&
        phases_[static_cast<std::size_t>(r)] >= 0)
      lost_groups.push_back(phases_[static_cast<std::size_t>(r)]);
  }
  // A group's leader that goes on alone says so in its next beats: until then, none is stuck.
  const bool settled = now - last_loss_ > 5 * period_;
  bool over = true;
  for (RankState& s : states_) {
    s.stuck = any_lost && settled && !s.lost && !s.done &&
              ((s.phase == kSetup && lost_in_setup) ||
               (s.phase >= 0 &&
                std::find(lost_groups.begin(), lost_groups.end(), s.phase) != lost_groups.end()));
    over = over && (s.lost || s.done || s.stuck);
  }
  if (over && (planned || any_lost)) end_run();
}

void RankWatch::count_lost(int rank, double now) {
  states_[static_cast<std::size_t>(rank)].lost = true;
  lost_[static_cast<std::size_t>(rank)] = true;
  last_loss_ = now;
  for (int r = 0; r < ranks_; ++r)  // every rank learns it (a group's leader goes on alone)
    if (r != rank_ && !states_[static_cast<std::size_t>(r)].lost)
      send(r, kTagLost, std::to_string(rank));
}

void RankWatch::end_run() {
  bool any_lost = false;
  for (const RankState& s : states_) any_lost = any_lost || s.lost;
  if (showing_ && view_.finish) view_.finish();
  RunEnd end;
  {
    std::lock_guard<std::mutex> lock(m_);
    end = end_;
  }
  int code = 2;
  if (end) {
    code = end(states_);
  } else {  // lost in the setup: nothing ran
    std::fprintf(stderr,
                 "xcorr-mpi: a rank was lost before the work began; nothing was computed: run "
                 "the same command again\n");
  }
  if (any_lost) {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code != 0 ? code : 2);
  }
  for (int r = 0; r < ranks_; ++r)
    if (r != rank_) send(r, kTagRelease, std::to_string(code));
  std::lock_guard<std::mutex> lock(m_);
  released_ = true;
  release_code_ = code;
  stopping_ = true;
  cv_.notify_all();
}

}  // namespace xcorr::mpi
