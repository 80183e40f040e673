#include "core/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace xcorr {

// The CPUs this process may run on (its affinity: taskset, a cgroup's cpuset, an MPI rank's
// binding), not every CPU of the host: a rank that mpirun bound to 16 of 32 cores runs 16 threads,
// not 32 on 16 cores.
int hardware_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {

// One loop's chunks, handed out one at a time to whichever thread asks next.
struct Job {
  const std::function<void(Index, Index)>* body = nullptr;
  Index n = 0, grain = 1, chunks = 0;
  std::atomic<Index> next{0};
  std::atomic<int> helpers{0};  // pool threads still inside this job
  std::exception_ptr error;
  std::mutex error_mutex;

  void work() {
    for (;;) {
      const Index chunk = next.fetch_add(1);
      if (chunk >= chunks) return;
      try {
        (*body)(chunk * grain, std::min(n, (chunk + 1) * grain));
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(chunks);  // stop handing out work
      }
    }
  }
};

// hardware_threads() - 1 threads started once and kept (starting 15 threads for every loop
// cost milliseconds per DIC frame on a 16-core host). One loop at a time: a loop that finds the
// pool busy (another host thread's loop, or a loop inside a loop's body) starts threads of its
// own, as every loop did before the pool.
class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool;  // never destroyed: its detached workers wait on it until exit
    return *pool;
  }

  // False when the pool is busy (also for a loop inside a loop's body on the same thread).
  bool try_run(Job& job, int helpers) {
    bool idle = false;
    if (!busy_.compare_exchange_strong(idle, true)) return false;
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      wanted_ = std::min<int>(helpers, static_cast<int>(workers_.size()));
      job.helpers = wanted_;
      ++generation_;
    }
    wake_.notify_all();
    job.work();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return job.helpers.load() == 0; });
    job_ = nullptr;
    busy_.store(false);
    return true;
  }

 private:
  Pool() {
    for (int t = 1; t < hardware_threads(); ++t) workers_.emplace_back([this, t] { loop(t); });
    for (std::thread& w : workers_) w.detach();
  }

  void loop(int id) {
    unsigned long seen = 0;
    for (;;) {
      Job* job = nullptr;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (id > wanted_) continue;  // this loop asked for fewer helpers
        job = job_;
      }
      job->work();
      std::lock_guard lock(mutex_);
      if (--job->helpers == 0) done_.notify_all();
    }
  }

  std::atomic<bool> busy_{false};  // a loop has the pool
  std::mutex mutex_;               // guards job_, wanted_, generation_
  std::condition_variable wake_, done_;
  Job* job_ = nullptr;
  int wanted_ = 0;
  unsigned long generation_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace

void parallel_for(Index n, Index grain, const std::function<void(Index, Index)>& body) {
  if (n <= 0) return;
  grain = std::max<Index>(1, grain);
  const Index chunks = (n + grain - 1) / grain;
  const int threads = static_cast<int>(std::min<Index>(hardware_threads(), chunks));
  if (threads <= 1) {
    body(0, n);
    return;
  }
  Job job;
  job.body = &body;
  job.n = n;
  job.grain = grain;
  job.chunks = chunks;
  if (!Pool::get().try_run(job, threads - 1)) {
    std::vector<std::jthread> own;
    for (int t = 1; t < threads; ++t) own.emplace_back([&job] { job.work(); });
    job.work();
    own.clear();  // joins
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace xcorr
