// A batch shared by the ranks of MPI_COMM_WORLD (xcorr-mpi run and register,
// docs/scale-out.md): each rank's part of the jobs (batch::share_batch), the groups that share a
// long job's frames, and the end of the run on the coordinator. app/xcorr_mpi.cpp is the
// program's wiring around it (arguments, MPI set-up, the progress bar).
#pragma once

#include <string>
#include <vector>

#include "core/batch/batch_file.hpp"
#include "core/mpi/watch.hpp"

namespace xcorr::mpi {

// Local rank mod the host's NVIDIA devices, as CUDA_VISIBLE_DEVICES, unless the user chose the
// devices (before CUDA starts).
void pick_device(int local_rank);

// The jobs this rank checks and counts for all: a contiguous slice, so that the first problem in
// job order is the first one found in rank order.
std::vector<bool> my_slice(std::size_t jobs, int rank, int ranks);

// This rank's part of the batch: its exit status (0, 2, 1), whether every job it was given ran
// to the end (failed frames included, as `xcorr run` counts them) and its summary text; the
// watch learns the plan (and how to end the run) and this rank's progress.
int run_share(const dic::Batch& b, int rank, int ranks, bool quiet, RankWatch& watch,
              std::string& text, bool& complete);

}  // namespace xcorr::mpi
