// Text between the ranks of an MPI communicator (xcorr-mpi): blocking collectives, and
// nonblocking ones a rank can give up on when its group lost a rank (Waiter).
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace xcorr::mpi {

// How a rank waits for its part of a nonblocking collective (a group's exchanges are nonblocking
// on every rank, so that they match): with `broken`, it gives up when that says the group lost a
// rank (the exchange could then never end; the request is left behind with the group); without,
// it waits until done.
struct Waiter {
  std::function<bool()> broken;  // empty: wait until done
  bool operator()(MPI_Request& r) const {
    if (!broken) {
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      return true;
    }
    // Polls: at once for 2 ms (an exchange's usual wait), then every 0.1 ms (a part being
    // registered), so that a waiting rank leaves the cores to the working ones.
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      int done = 0;
      MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      if (done) return true;
      if (broken()) return false;
      if (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(2))
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
};

// Rank 0's text to every rank of `comm`; false when `wait` gave up.
inline bool bcast_text(MPI_Comm comm, std::string& text, const Waiter& wait) {
  auto len = static_cast<long long>(text.size());
  MPI_Request r;
  MPI_Ibcast(&len, 1, MPI_LONG_LONG, 0, comm, &r);
  if (!wait(r)) return false;
  text.resize(static_cast<std::size_t>(len));
  MPI_Ibcast(text.data(), static_cast<int>(len), MPI_CHAR, 0, comm, &r);
  return wait(r);
}

// Every rank's text to rank 0 of `comm`, in rank order (`all`, there only); false when `wait`
// gave up.
inline bool gather_text(MPI_Comm comm, const std::string& mine, const Waiter& wait,
                        std::vector<std::string>& all) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(ranks)), offsets(lens.size());
  MPI_Request r;
  MPI_Igather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm, &r);
  if (!wait(r)) return false;
  std::string joined;
  if (rank == 0) {
    std::exclusive_scan(lens.begin(), lens.end(), offsets.begin(), 0);
    joined.resize(static_cast<std::size_t>(offsets.back() + lens.back()));
  }
  MPI_Igatherv(mine.data(), len, MPI_CHAR, joined.data(), lens.data(), offsets.data(), MPI_CHAR, 0,
               comm, &r);
  if (!wait(r)) return false;
  all.clear();
  for (std::size_t k = 0; rank == 0 && k < lens.size(); ++k)
    all.push_back(
        joined.substr(static_cast<std::size_t>(offsets[k]), static_cast<std::size_t>(lens[k])));
  return true;
}

// The same, waited for to the end (every rank of `comm` calls the same function, so the
// collectives match).
inline std::vector<std::string> gather_text(MPI_Comm comm, const std::string& mine) {
  std::vector<std::string> all;
  gather_text(comm, mine, Waiter{}, all);
  return all;
}
inline void bcast_text(MPI_Comm comm, std::string& text) {
  bcast_text(comm, text, Waiter{});
}

}  // namespace xcorr::mpi
