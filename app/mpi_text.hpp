// Text between the ranks of an MPI communicator (xcorr-mpi).
#pragma once

#include <mpi.h>

#include <numeric>
#include <string>
#include <vector>

namespace xcorr::app {

// Every rank's text to rank 0 of `comm`, in rank order (elsewhere: empty). Collective.
inline std::vector<std::string> gather_text(MPI_Comm comm, const std::string& mine) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(ranks)), offsets(lens.size());
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
  std::string all;
  if (rank == 0) {
    std::exclusive_scan(lens.begin(), lens.end(), offsets.begin(), 0);
    all.resize(static_cast<std::size_t>(offsets.back() + lens.back()));
  }
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0,
              comm);
  std::vector<std::string> out;
  for (std::size_t r = 0; rank == 0 && r < lens.size(); ++r)
    out.push_back(
        all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lens[r])));
  return out;
}

// Rank 0's `text` to every rank of `comm`. Collective.
inline void bcast_text(MPI_Comm comm, std::string& text) {
  auto len = static_cast<long long>(text.size());
  MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm);
  text.resize(static_cast<std::size_t>(len));
  MPI_Bcast(text.data(), static_cast<int>(len), MPI_CHAR, 0, comm);
}

}  // namespace xcorr::app
