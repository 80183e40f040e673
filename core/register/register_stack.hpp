// Stack registration (drift correction) of one stack: the rigid translation of every frame from
// the reference (core/register/options.hpp), the drift table as CSV and the corrected stack as a
// multi-page TIFF of the input's bit depth with its scale kept (OME-XML or ImageJ description),
// both written atomically. Frames are read one at a time (LazyStack); a damaged frame is listed
// with its reason and left out of the corrected stack, the others are written. `xcorr register`,
// `xcorr run` (a "register" job) and the desktop app's Register stack run through this.
//
// Drift CSV (docs/registration.md): '#' header (software, stack, units, scale, settings, failed
// frames), then frame,time_s,dx,dy,dx_<unit>,dy_<unit>,peak (time_s and the unit columns when
// the scale is known); transforms add angle_deg,scale,a11,a12,a13,a21,a22,a23 after dy. dx, dy
// follow the DIC convention: a feature at (x, y) in the reference is at (x + dx, y + dy) in the
// frame; the corrected frame is the frame moved back by (dx, dy).
#pragma once

#include <array>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/io/image_io.hpp"
#include "core/io/image_metadata.hpp"
#include "core/io/scale.hpp"
#include "core/job_times.hpp"
#include "core/register/affine.hpp"
#include "core/register/job.hpp"
#include "core/register/options.hpp"
#include "core/register/phase_engine.hpp"
#include "core/register/transform_level.hpp"
#include "core/register/volume_engine.hpp"
#include "core/registry.hpp"

namespace xcorr::reg {

struct DriftRow {
  long frame = 0;         // 0 = the first frame of the stack
  double dx = 0, dy = 0;  // px, from the reference (frame 0 for `first` and `previous`)
  // Transforms (rigid and up): dx, dy are where the frame's centre ((cols - 1) / 2,
  // (rows - 1) / 2 px) went, and the linear part (l00, l01, l10, l11) turns about it:
  // drift_map(). The identity for translations.
  std::array<double, 4> linear{1, 0, 0, 1};
  double dz = 0;       // z-planes (volumes, dims 3): a feature at plane z is at z + dz in the frame
  double peak = 0;     // the correlation peak (phase: 0..1 normalised; zncc and fits: ZNCC)
  std::string failed;  // why the frame could not be used; empty when it was
};

// The row's map of frame pixels, reference -> frame (affine.hpp), for frames of `frame` px.
Affine drift_map(const DriftRow& d, Shape frame);
// The row's dx, dy and linear part from a map of frame pixels.
void set_drift_map(DriftRow& d, const Affine& map, Shape frame);

struct RegisterReport {
  std::vector<DriftRow> drift;  // every frame, in order
  io::ImageScale scale;
  long failed = 0;
  long resumed = 0;  // frames whose drift an interrupted run of the same job had measured
  std::vector<std::string> written;
  std::string device;  // where the shifts were measured: "cpu", "gpu" (phase) or "engine" (zncc)
  long crop_x = 0, crop_y = 0, width = 0, height = 0;  // the corrected frames' area (px)
  Shape frame{};                                       // the stack's frames (px)
  bool volumes = false;  // dims 3: x, y, z drift of each time point's volume
  double spacing_z = 0;  // z step in scale.unit (volumes; 0: not known)
  // Where this process's time went (the leader's: the outputs too). Setup: opening, the
  // reference, the estimator and its plans, the blocks; frames: the passes over the frames;
  // writing: the corrected stack and the drift table.
  JobTimes times;
};

// done / total over both passes (estimate, then write); false cancels (ErrorCode::cancelled,
// nothing written; the drift measured so far stays committed).
//
// Resuming: while the first pass runs, the drift measured so far is committed after every block
// of frames to <drift or out>.partial/ (with the job's identity: its settings and the stack
// file's size and modification time) and the FFTW plans it measured with (fftw_plans.txt): a run
// of the same job finds it, uses those plans and measures only the frames after it; another
// job's commits are set aside and it starts afresh. The corrected stack
// and the drift table are written whole at the end (nothing is half-written), and the folder is
// removed then.
using RegisterProgress = std::function<bool(double done, double total)>;

// A job's frames measured by several processes (xcorr-mpi, docs/scale-out.md): each process
// calls register_stack with its place and the two exchanges. Every pass goes in rounds of one
// block of frames per process (the first process's block size; the blocks are a single run's,
// so the drift is the same bytes); the first process, the leader, takes every process's
// measurements in frame order, commits them, computes the mean reference (`mean`) and writes
// the outputs; the others return an empty report. All processes stop together on a failure
// (the first in process order is everyone's status) and need the same device kind. Progress
// and cancel: the leader's.
// When an exchange gives up (it returns false: the group lost a process), the leader measures the
// rest alone (a lost process's blocks of that round too: the same bytes) and the others return
// ErrorCode::cancelled.
struct RegisterShare {
  int index = 0;  // this process's place, 0 .. count - 1 (0: the leader)
  int count = 1;
  // Collective: every process's text to the leader, in process order (`all`, there only).
  std::function<bool(const std::string& mine, std::vector<std::string>& all)> gather;
  // Collective: the leader's text to every process.
  std::function<bool(std::string& text)> broadcast;
};

// What measures a job's frames: `variants`, the correlation variants of method zncc (the CPU's
// or the GPU's); `phase` and `volume`, the phase engines (2-D and 3-D) a job's device asks for;
// `transform`, the IC-GN fitters of transforms (rigid and up). engine::register_engines() gives
// the facade's.
struct Engines {
  const Registry* variants = nullptr;
  PhaseEngineFactory phase;
  VolumeEngineFactory volume;
  LevelFitterFactory transform = cpu_level_fitters;
};

// `share`: this process's part of a shared job (null: the whole job).
Result<RegisterReport> register_stack(const RegisterJob& job, const Engines& engines,
                                      const RegisterProgress& progress = {},
                                      const RegisterShare* share = nullptr);

// A stack held in memory (the Python module): its pages as io::LazyStack::in_memory takes them.
struct MemoryStack {
  std::string name;  // stands for the file in messages
  std::shared_ptr<const std::vector<Stack<float>>> pages;
  io::PixelType type = io::PixelType::f32;
  io::StackMetadata metadata;
};

// register_stack on a stack in memory: the same passes and numbers as the stack in a file with
// the same pages, type and metadata. job.stack, job.out, job.drift and job.apply are not used
// (only job.options); nothing is written or committed. With `corrected`, the corrected pages
// come there as the TIFF job.out would hold them (file order, failed time points left out, the
// corrected area's size; values rounded and clamped for u8 and u16).
Result<RegisterReport> register_memory(const MemoryStack& stack, const RegisterOptions& options,
                                       const Engines& engines, Stack<float>* corrected,
                                       const RegisterProgress& progress = {});

// The corrected frames' area of `report`'s drift (x, y): the whole frame (pad) or what every good
// frame covers (crop); an error when nothing is covered.
Status set_corrected_area(RegisterReport& report, Shape shape, Border border);

// The end of a run (frames or volumes) once every frame is measured: the failures counted and
// the corrected area set (frames of `shape`); then, in memory, write_corrected(to_memory) when
// to_memory is given; else the corrected stack (write_corrected(nullptr), to job.out when it is
// named) and the table (job.drift) written, and the resume folder `partial` removed.
Status finish_registration(const RegisterJob& job, RegisterReport& report, Shape shape,
                           bool in_memory, Stack<float>* to_memory,
                           const std::filesystem::path& partial,
                           const std::function<Status(Stack<float>*)>& write_corrected);

// The frames an interrupted run of this job has measured and committed, 1 .. returned - 1, of a
// stack of `pages` pages: the next run measures the frames from the returned one on (1 when there
// are no commits of this job).
long first_uncommitted_frame(const RegisterJob& job, long pages);

// The drift CSV's text (what register_stack writes).
std::string drift_csv(const RegisterJob& job, const RegisterReport& r);

}  // namespace xcorr::reg
