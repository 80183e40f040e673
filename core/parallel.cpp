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
  int wanted = 0;   // the most pool threads that may join it (guarded by the pool's mutex)
  int helpers = 0;  // pool threads inside it now (guarded by the pool's mutex)
  std::exception_ptr error;
  std::mutex error_mutex;

  bool has_chunks() const { return next.load() < chunks; }
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
// cost milliseconds per DIC frame on a 16-core host; and starting 31 more for a second host
// thread's loop cost a multi-GPU frame milliseconds per pass). Loops of several host threads
// at once share it: each caller works on its own loop, and each pool thread joins a loop that
// still has chunks and wants more helpers, then the next one. A loop inside a loop's body is
// one more such loop, its caller working on it too, so no thread waits on work only it could do.
class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool;  // never destroyed: its detached workers wait on it until exit
    return *pool;
  }

  // Runs `job` on the calling thread with up to `helpers` pool threads; returns when all its
  // chunks are done.
  void run(Job& job, int helpers) {
    {
      std::lock_guard lock(mutex_);
      job.wanted = std::min<int>(helpers, static_cast<int>(workers_.size()));
      if (job.wanted > 0) jobs_.push_back(&job);
    }
    if (job.wanted > 0) wake_.notify_all();
    job.work();
    std::unique_lock lock(mutex_);
    std::erase(jobs_, &job);  // no thread joins it from here
    done_.wait(lock, [&] { return job.helpers == 0; });
  }

 private:
  Pool() {
    for (int t = 1; t < hardware_threads(); ++t) workers_.emplace_back([this] { loop(); });
    for (std::thread& w : workers_) w.detach();
  }

  Job* open_job() const {  // under mutex_
    for (Job* job : jobs_)
      if (job->helpers < job->wanted && job->has_chunks()) return job;
    return nullptr;
  }

  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      Job* job = nullptr;
      wake_.wait(lock, [&] { return (job = open_job()) != nullptr; });
      ++job->helpers;
      lock.unlock();
      job->work();
      lock.lock();
      if (--job->helpers == 0) done_.notify_all();
    }
  }

  std::mutex mutex_;  // guards jobs_ and every listed job's wanted and helpers
  std::condition_variable wake_, done_;
  std::vector<Job*> jobs_;  // the loops that pool threads may join
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
  Pool::get().run(job, threads - 1);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace xcorr
