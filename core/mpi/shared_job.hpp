// A DIC job whose frames' points are shared by several MPI ranks (xcorr-mpi, docs/scale-out.md).
// Frames depend on each other (each frame's search starts from the previous frame's result), so
// the ranks share each frame's points, not the frames. The group's rank 0, the leader, runs the
// job as `xcorr run` does (reads the frames, commits to the .partial folder, writes the CSV)
// through make_shared_registrar; the others run serve_shared_job, which registers their parts of
// every frame until the leader calls end_shared_job. Per frame the leader sends the frame's
// image (not again when the consistency check registers its suspects a second time; the
// reference when it changes), the options with the integer-guess variant it chose
// for the whole frame, and each rank its contiguous part of the grid's points (dic::split_points);
// every rank registers its part at once; the leader gathers the parts in grid order and runs
// the reliability-guided waves. The results are those of one process bit for bit, because every
// point's arithmetic is the same wherever it runs.
// Every exchange of a frame is a nonblocking collective on every rank: when the run's watch says
// the group lost a rank, the leader gives up on the frame's exchange and registers that frame
// and the rest alone (GroupWatch); the others stop serving it (and when the lost rank was the
// leader, xcorr-mpi's first living rank of the group takes the job over from its commits).
// A rank whose registrar cannot be made, or registers on another device than the leader's (cpu,
// gpu), sits the job out; a job whose reliability-guided propagation cannot be shared (the
// CPU's) runs on the leader alone; the leader says so on stderr. Ranks are assumed to run the
// same build on hosts of one architecture (structs travel as bytes).
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>

#include "core/dic/frame_registrar.hpp"

namespace xcorr::mpi {

// What the leader learns of its group from the run's watch (core/mpi/watch.hpp): `broken`, that
// the group lost a rank (a frame's exchange then stops waiting and the leader registers that
// frame and the rest alone, with the same bytes); `alone`, called once when it does.
struct GroupWatch {
  std::function<bool()> broken;
  std::function<void()> alone;
};

// On the leader (rank 0 of `group`): a registrar that shares every frame's points with the
// group's ranks, made on every rank from `o` (engine::make_dic_registrar). Collective with the
// others' serve_shared_job; the registrar's destructor releases them.
Result<std::unique_ptr<dic::FrameRegistrar>> make_shared_registrar(MPI_Comm group,
                                                                   const dic::DicOptions& o,
                                                                   GroupWatch watch = {});

// On the leader, once its job is over (whether it made a registrar or not): the others return.
// False when the group lost a rank on the way (`broken`): the others are left waiting.
bool end_shared_job(MPI_Comm group, const std::function<bool()>& broken = {});

// On the group's other ranks: registers parts of frames for the leader until end_shared_job,
// or until `broken` says the group lost a rank (then `orphaned`: the exchange is left behind; the
// leader, if it lives, goes on alone). An error only for a broken exchange (ErrorCode::internal);
// a part that fails is the leader's failed frame.
Status serve_shared_job(MPI_Comm group, const std::function<bool()>& broken, bool& orphaned);

}  // namespace xcorr::mpi
