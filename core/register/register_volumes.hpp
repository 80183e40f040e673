// Registration of z-stacks over time as volumes (dims 3, docs/registration.md): the x, y and z
// drift of each time point's volume (the measured channel's z-planes, in the region) against
// the first or the previous volume by 3-D phase correlation (phase_volume.hpp, voxels; the
// drift table adds dz and, with a z spacing, dz in the stack's unit), and the corrected
// hyperstack: every channel and z-plane of a time point resampled at (x + dx, y + dy, z + dz)
// with the cubic B-spline (along z through the channel's volume, then in the plane), 0 where no
// source; written whole in the input's layout, failed time points left out. Resumable as 2-D
// jobs are: what is measured is committed after every block of time points to
// <drift or out>.partial/ (with the job's identity, job_identity()); a run of the same job
// measures only the time points after the commits.
#pragma once

#include <functional>
#include <memory>

#include "core/io/lazy_stack.hpp"
#include "core/register/register_stack.hpp"

namespace xcorr::reg {

// Opens the job's stack (the file, or the pages in memory) for a plane selection.
using OpenPages = std::function<Result<std::unique_ptr<io::LazyStack>>(const io::PlaneSelection&)>;

// Measures and writes (job.out, job.drift, committing as it goes); in memory (the Python
// module): nothing written or committed, the corrected pages into *to_memory when given, as the
// TIFF would hold them.
// `engines.volume` measures (the job's device).
Result<RegisterReport> register_volumes(const RegisterJob& job, const OpenPages& open,
                                        const Engines& engines, const RegisterProgress& progress,
                                        bool in_memory = false, Stack<float>* to_memory = nullptr);

// The corrected hyperstack of `report`'s drift (dx, dy, dz per time point; crop from
// report's area) to job.out, or into `to_memory`. tick(time points done) false cancels.
Status write_corrected_volumes(const RegisterJob& job, const OpenPages& open,
                               const RegisterReport& report,
                               const std::function<bool(double)>& tick,
                               Stack<float>* to_memory = nullptr);

}  // namespace xcorr::reg
