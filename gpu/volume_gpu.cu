// 3-D phase correlation on the GPU (see gpu/volume_gpu.hpp). The reference is prepared once (or,
// for `previous`, one per volume in the block); per block of volumes and round:
//   stats_kernel      the volume's sum (its mean), float64
//   window_kernel     the Tukey windows along x, y and z per volume, moved by its shift so far
//   prep_kernel       (voxel - mean) * window, and the energy (float64)
//   cuFFT R2C         batched 3-D
//   cross_kernel      R = F_ref conj(F) / sqrt(E_ref E), kept for the search; a copy is the C2R's
//                     input in the first round
//   cuFFT C2R, argmax_kernel, start_kernel: the integer peak and a parabola through its
//                     neighbours (first round), or the shift so far (later rounds; a volume whose
//                     shift has settled is left out)
//   eval_kernel + decide_kernel, repeated: c(s) at a 3 x 3 x 3 pattern per volume, then the move,
//                     the halving or the final parabola (VolumeCorrelator's rules, pass for pass)
// Instantiations: none (plain kernels).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/cufft_api.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_model.cuh"
#include "gpu/host_staging.cuh"
#include "gpu/phase_batch.cuh"
#include "gpu/phase_kernels.cuh"
#include "gpu/volume_gpu.hpp"

namespace xcorr::gpu {
namespace {

using phase::argmax_kernel;
using phase::cross_kernel;
using phase::grid_for;
using phase::kThreads;
using phase::kWarps;
using phase::prep_kernel;
using phase::signed_frequency;
using phase::stats_kernel;
using phase::tukey_at;
using phase::usable_device;
using phase::vertex;

constexpr int kRowsPerEvalBlock = 32;
constexpr int kMaxPasses = 64;      // VolumeCorrelator's bound on search passes
constexpr int kPassesPerCheck = 8;  // passes launched between the host's checks
constexpr int kMaxRefinements = 6;  // rounds after the first (VolumeCorrelator::Impl::measure)
constexpr double kSettled = 0.005;  // voxel: a change below this ends the rounds

enum : int { kSearching = 0, kFinal = 1, kDone = 2 };

// One volume's search (c(s) coordinates are minus the shift, as in VolumeCorrelator).
struct VolumeState {
  double x, y, z, h;        // search point and step (voxels)
  double value[27];         // the last 3 x 3 x 3 of c(s), [k * 9 + j * 3 + i] (z, y, x)
  double dx, dy, dz, peak;  // the result of the last round (the shift and c's value there)
  int phase, passes;
  int settled;  // 1: the last round changed the shift by less than kSettled
};

// Volume blockIdx.x: its windows along x, y and z, moved by its shift when `moved`.
__global__ void window_kernel(const VolumeState* __restrict__ state, bool moved, int depth,
                              int rows, int cols, float* __restrict__ wx, float* __restrict__ wy,
                              float* __restrict__ wz) {
  const int k = blockIdx.x;
  const double sx = moved ? state[k].dx : 0, sy = moved ? state[k].dy : 0,
               sz = moved ? state[k].dz : 0;
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    wx[k * static_cast<long long>(cols) + i] = tukey_at(i, cols, sx, true);
  for (int i = threadIdx.x; i < rows; i += blockDim.x)
    wy[k * static_cast<long long>(rows) + i] = tukey_at(i, rows, sy, true);
  for (int i = threadIdx.x; i < depth; i += blockDim.x)
    wz[k * static_cast<long long>(depth) + i] = tukey_at(i, depth, sz, true);
}

// One thread per volume: the round's start. First round: the integer peak of the inverse
// transform and a parabola through its neighbours, step 1/8 voxel; later rounds: the shift so
// far, step 1/16 (a settled volume is done). Upsample 1: rounded, straight to the final
// evaluation.
__global__ void start_kernel(VolumeState* __restrict__ state, int count, bool refining,
                             const unsigned long long* __restrict__ keys,
                             const float* __restrict__ surface, int depth, int rows, int cols,
                             int upsample, double* __restrict__ acc) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  VolumeState& s = state[k];
  for (int i = 0; i < 27; ++i) acc[k * 27 + i] = 0;
  s.passes = 0;
  if (refining && s.settled) {
    s.phase = kDone;
    return;
  }
  double x, y, z, h;
  if (refining) {
    x = -s.dx, y = -s.dy, z = -s.dz, h = 1.0 / 16;
  } else {
    s.settled = 0;
    const unsigned best = peak_key_index(keys[k]);
    const long long plane = static_cast<long long>(rows) * cols;
    const int bz = static_cast<int>(best / plane), br = static_cast<int>((best / cols) % rows),
              bc = static_cast<int>(best % cols);
    const float* f = surface + k * plane * depth;
    const auto at = [&](int zz, int r, int c) {
      zz = (zz + depth) % depth, r = (r + rows) % rows, c = (c + cols) % cols;
      return static_cast<double>(f[zz * plane + static_cast<long long>(r) * cols + c]);
    };
    x = signed_frequency(bc, cols) + vertex(at(bz, br, bc - 1), at(bz, br, bc), at(bz, br, bc + 1));
    y = signed_frequency(br, rows) + vertex(at(bz, br - 1, bc), at(bz, br, bc), at(bz, br + 1, bc));
    z = signed_frequency(bz, depth) +
        vertex(at(bz - 1, br, bc), at(bz, br, bc), at(bz + 1, br, bc));
    h = 0.125;
  }
  s.h = fmax(h, 1.0 / upsample);
  if (upsample > 1) {
    s.phase = kSearching;
  } else {
    x = rint(x), y = rint(y), z = rint(z);
    s.phase = kFinal;
  }
  s.x = x, s.y = y, s.z = z;
}

// c(s) at (x + (i - 1) h, y + (j - 1) h, z + (k - 1) h) for volume blockIdx.y (h = 0 in the
// final evaluation), over the rows (plane z, row r as z * rows + r) [blockIdx.x *
// kRowsPerEvalBlock, + kRowsPerEvalBlock): into acc[volume * 27 + k * 9 + j * 3 + i],
// unnormalised. Dynamic shared memory: the 3 x half x-weights (float2).
__global__ void eval_kernel(const VolumeState* __restrict__ state, const float2* __restrict__ cross,
                            int depth, int rows, int cols, double* __restrict__ acc) {
  extern __shared__ float2 weights[];
  __shared__ double partial[kWarps][27];
  const int m = blockIdx.y;
  const VolumeState& s = state[m];
  if (s.phase == kDone) return;
  const int half = cols / 2 + 1;
  const double x0 = s.x, y0 = s.y, z0 = s.z, h = s.phase == kFinal ? 0.0 : s.h;
  for (int t = threadIdx.x; t < 3 * half; t += kThreads) {
    const int i = t / half, v = t % half;
    const bool single = v == 0 || (cols % 2 == 0 && v == cols / 2);
    double sn, cs;
    sincospi(2.0 * v * (x0 + (i - 1) * h) / cols, &sn, &cs);
    const double w = single ? 1.0 : 2.0;
    weights[t] = float2{static_cast<float>(w * cs), static_cast<float>(w * sn)};
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  double a[27] = {};
  const long long lines = static_cast<long long>(depth) * rows;
  const long long first = static_cast<long long>(blockIdx.x) * kRowsPerEvalBlock;
  const long long last = min(lines, first + kRowsPerEvalBlock);
  for (long long u = first + warp; u < last; u += kWarps) {
    const float2* r = cross + (m * lines + u) * half;
    float sr[3] = {}, si[3] = {};
    for (int v = lane; v < half; v += 32) {
      const float2 p = r[v];
      for (int i = 0; i < 3; ++i) {
        const float2 w = weights[i * half + v];
        sr[i] += p.x * w.x - p.y * w.y;
        si[i] += p.x * w.y + p.y * w.x;
      }
    }
    for (int o = 16; o > 0; o /= 2)
      for (int i = 0; i < 3; ++i) {
        sr[i] += __shfl_xor_sync(0xffffffffu, sr[i], o);
        si[i] += __shfl_xor_sync(0xffffffffu, si[i], o);
      }
    const double fy = signed_frequency(static_cast<int>(u % rows), rows);
    const double fz = signed_frequency(static_cast<int>(u / rows), depth);
    double cy[3], sy[3], cz[3], sz[3];
    for (int j = 0; j < 3; ++j) {
      sincospi(2.0 * fy * (y0 + (j - 1) * h) / rows, &sy[j], &cy[j]);
      sincospi(2.0 * fz * (z0 + (j - 1) * h) / depth, &sz[j], &cz[j]);
    }
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 3; ++j) {
        const double pr = cy[j] * cz[k] - sy[j] * sz[k], pi = cy[j] * sz[k] + sy[j] * cz[k];
        for (int i = 0; i < 3; ++i) a[k * 9 + j * 3 + i] += sr[i] * pr - si[i] * pi;
      }
  }
  if (lane == 0)
    for (int i = 0; i < 27; ++i) partial[warp][i] = a[i];
  __syncthreads();
  if (threadIdx.x < 27) {
    double t = 0;
    for (int w = 0; w < kWarps; ++w) t += partial[w][threadIdx.x];
    atomicAdd(&acc[m * 27 + threadIdx.x], t);
  }
}

// One block, a thread per volume: the evaluated 3 x 3 x 3 moves the search to its best point,
// halves the step, or (below 1 / upsample) ends it with a parabola along each axis and one last
// evaluation, which gives the round's shift (and, after the first round, whether it settled);
// `remaining` gets the count of volumes not done.
__global__ void decide_kernel(VolumeState* __restrict__ state, int count, bool refining,
                              double* __restrict__ acc, double total, double finest,
                              int* __restrict__ remaining) {
  const int k = threadIdx.x;
  int open = 0;
  if (k < count && state[k].phase != kDone) {
    VolumeState& s = state[k];
    for (int i = 0; i < 27; ++i) {
      s.value[i] = acc[k * 27 + i] / total;
      acc[k * 27 + i] = 0;
    }
    if (s.phase == kFinal) {
      const double change = fmax(fabs(-s.x - s.dx), fmax(fabs(-s.y - s.dy), fabs(-s.z - s.dz)));
      s.settled = refining && change < kSettled;
      s.dx = -s.x, s.dy = -s.y, s.dz = -s.z, s.peak = s.value[13];
      s.phase = kDone;
    } else {
      int best = 13;
      for (int i = 0; i < 27; ++i)
        if (s.value[i] > s.value[best]) best = i;
      bool finish = false;
      if (best == 13) {
        if (s.h / 2 < finest * 0.999)
          finish = true;
        else
          s.h /= 2;
      } else {
        s.x += (best % 3 - 1) * s.h;
        s.y += (best / 3 % 3 - 1) * s.h;
        s.z += (best / 9 - 1) * s.h;
      }
      if (++s.passes >= kMaxPasses) finish = true;
      if (finish) {  // parabolas through the centre lines give the fraction below h
        s.x += s.h * vertex(s.value[12], s.value[13], s.value[14]);
        s.y += s.h * vertex(s.value[10], s.value[13], s.value[16]);
        s.z += s.h * vertex(s.value[4], s.value[13], s.value[22]);
        s.phase = kFinal;
      }
    }
    open = s.phase != kDone;
  }
  open = __syncthreads_count(open);
  if (threadIdx.x == 0) *remaining = open;
}

class GpuVolumeEngine final : public reg::VolumeEngine {
 public:
  GpuVolumeEngine(reg::VolumeShape shape, int upsample)
      : depth_(static_cast<int>(shape.depth)),
        rows_(static_cast<int>(shape.rows)),
        cols_(static_cast<int>(shape.cols)),
        half_(cols_ / 2 + 1),
        upsample_(upsample) {}

  std::string device() const override { return "gpu"; }
  long long size() const { return static_cast<long long>(depth_) * rows_ * cols_; }
  long long n_spec() const { return static_cast<long long>(depth_) * rows_ * half_; }

  Status init() {
    XCORR_RETURN_IF_ERROR(cufft_api().status());
    const std::size_t smem = eval_smem();
    XCORR_RETURN_IF_ERROR(check_shared_bytes(
        "the GPU 3-D phase search", static_cast<long long>(smem + sizeof(double) * kWarps * 27),
        " for volumes " + std::to_string(cols_) + " voxels wide"));
    if (smem > 48 * 1024)
      XCORR_CUDA_TRY(cudaFuncSetAttribute(eval_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(smem)));
    // Blocks of up to 8 volumes, their buffers (about 32 bytes a voxel with cuFFT's work area
    // and the references of `previous`) within a quarter of the free device memory and 4 GB.
    auto fits = phase::batch_that_fits(32.0 * static_cast<double>(size()), 8);
    if (!fits.is_ok()) return fits.status();
    batch_ = fits.value();
    const auto b = static_cast<std::size_t>(batch_);
    XCORR_RETURN_IF_ERROR(buf_.allocate(b, size(), n_spec(), 27));
    XCORR_RETURN_IF_ERROR(wx_.allocate(b * cols_));
    XCORR_RETURN_IF_ERROR(wy_.allocate(b * rows_));
    XCORR_RETURN_IF_ERROR(wz_.allocate(b * depth_));
    XCORR_RETURN_IF_ERROR(state_.allocate(b));
    XCORR_RETURN_IF_ERROR(state_h_.allocate(b));
    XCORR_CUDA_TRY(cudaMemset(state_.get(), 0, b * sizeof(VolumeState)));
    return Status::ok();
  }

  Status set_reference(const float* reference) override {
    XCORR_RETURN_IF_ERROR(buf_.allocate_reference(n_spec()));
    XCORR_RETURN_IF_ERROR(upload({reference}, buf_.in.get()));
    XCORR_RETURN_IF_ERROR(
        spectra(buf_.in.get(), 1, false, buf_.ref_spec.get(), buf_.ref_energy.get()));
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream_));
    has_reference_ = true;
    return Status::ok();
  }

  Result<std::vector<reg::Shift3>> measure(const std::vector<const float*>& volumes,
                                           const std::vector<const float*>* references) override {
    if (references == nullptr && !has_reference_)
      return Status{ErrorCode::invalid_argument, "no reference set"};
    if (references != nullptr && references->size() != volumes.size())
      return Status{ErrorCode::invalid_argument, "one reference per volume is needed"};
    if (references != nullptr)
      XCORR_RETURN_IF_ERROR(buf_.allocate_references(static_cast<std::size_t>(batch_), n_spec()));
    std::vector<reg::Shift3> out;
    out.reserve(volumes.size());
    XCORR_RETURN_IF_ERROR(phase::for_each_block(
        volumes.size(), batch_, references != nullptr, buf_,
        [&](bool refs, std::size_t first, int count) {
          const std::vector<const float*>& v = refs ? *references : volumes;
          return upload(
              {v.begin() + static_cast<long>(first), v.begin() + static_cast<long>(first) + count},
              buf_.in.get());
        },
        [&](int count) {
          return spectra(buf_.in.get(), count, false, buf_.refs_spec.get(), buf_.refs_energy.get());
        },
        [&](int count, const float2* ref, const double* ref_energy, int ref_step) -> Status {
          XCORR_RETURN_IF_ERROR(measure_on_device(buf_.in.get(), count, ref, ref_energy, ref_step));
          append_shifts(count, out);
          return Status::ok();
        }));
    return out;
  }

  int batch() const { return batch_; }

  // Volumes already on the device (count <= batch(), contiguous) against the set reference.
  Status measure_resident(const float* volumes, int count, std::vector<reg::Shift3>* out) {
    XCORR_RETURN_IF_ERROR(
        measure_on_device(volumes, count, buf_.ref_spec.get(), buf_.ref_energy.get(), 0));
    if (out != nullptr) append_shifts(count, *out);
    return Status::ok();
  }

 private:
  void append_shifts(int count, std::vector<reg::Shift3>& out) const {
    for (int k = 0; k < count; ++k)
      out.push_back({state_h_[k].dx, state_h_[k].dy, state_h_[k].dz, state_h_[k].peak});
  }

  std::size_t eval_smem() const { return sizeof(float2) * 3 * static_cast<std::size_t>(half_); }

  Status upload(const std::vector<const float*>& volumes, float* dst) {
    const Index lines = static_cast<Index>(depth_) * rows_;
    for (std::size_t k = 0; k < volumes.size(); ++k) {
      const StackView<const float> s{volumes[k], lines, cols_, 1, cols_, lines * cols_};
      XCORR_RETURN_IF_ERROR(upload_staged(s, dst + static_cast<long long>(k) * size(), stream_));
    }
    return Status::ok();
  }

  // The windowed spectra of `count` volumes at `volumes` (device) into spec (count x n_spec) and
  // their energies into energy; the windows moved by each volume's shift when `moved`.
  Status spectra(const float* volumes, int count, bool moved, float2* spec, double* energy) {
    auto p = plans_.get(count);
    if (!p.is_ok()) return p.status();
    XCORR_CUDA_TRY(cudaMemsetAsync(energy, 0, count * sizeof(double), stream_));
    if (!moved) {  // later rounds keep the volumes' sums
      XCORR_CUDA_TRY(cudaMemsetAsync(buf_.sums.get(), 0, count * sizeof(double), stream_));
      stats_kernel<<<dim3(grid_for(size(), kThreads * 16, 1024), count), kThreads, 0, stream_>>>(
          volumes, size(), buf_.sums.get());
      XCORR_LAUNCH_TRY("stats_kernel");
    }
    window_kernel<<<count, kThreads, 0, stream_>>>(state_.get(), moved, depth_, rows_, cols_,
                                                   wx_.get(), wy_.get(), wz_.get());
    XCORR_LAUNCH_TRY("window_kernel");
    prep_kernel<<<dim3(grid_for(static_cast<long long>(depth_) * rows_, 4, 1024), count), kThreads,
                  0, stream_>>>(volumes, buf_.sums.get(), wx_.get(), wy_.get(), wz_.get(), depth_,
                                rows_, cols_, buf_.real.get(), energy);
    XCORR_LAUNCH_TRY("prep_kernel");
    XCORR_CUFFT_TRY(cufft_api().value()->cufftExecR2C(p.value().first, buf_.real.get(),
                                                      reinterpret_cast<cufftComplex*>(spec)));
    return Status::ok();
  }

  // Rounds until every volume's shift settles (or kMaxRefinements more); the states end in
  // state_h_.
  Status measure_on_device(const float* volumes, int count, const float2* ref,
                           const double* ref_energy, int ref_step) {
    auto p = plans_.get(count);
    if (!p.is_ok()) return p.status();
    const double total = static_cast<double>(size()), finest = 1.0 / upsample_;
    const long long lines = static_cast<long long>(depth_) * rows_;
    for (int round = 0; round <= kMaxRefinements; ++round) {
      const bool refining = round > 0;
      XCORR_RETURN_IF_ERROR(spectra(volumes, count, refining, buf_.spec.get(), buf_.energy.get()));
      const long long n = n_spec() * count;
      cross_kernel<<<grid_for(n, kThreads * 8, 8192), kThreads, 0, stream_>>>(
          ref, ref_energy, ref_step, buf_.spec.get(), buf_.energy.get(), n_spec(), count, false,
          buf_.cross.get(), refining ? nullptr : buf_.spec.get());
      XCORR_LAUNCH_TRY("cross_kernel");
      if (!refining) {
        XCORR_CUFFT_TRY(cufft_api().value()->cufftExecC2R(
            p.value().second, reinterpret_cast<cufftComplex*>(buf_.spec.get()), buf_.real.get()));
        XCORR_CUDA_TRY(
            cudaMemsetAsync(buf_.keys.get(), 0, count * sizeof(unsigned long long), stream_));
        argmax_kernel<<<dim3(grid_for(size(), kThreads * 16, 1024), count), kThreads, 0, stream_>>>(
            buf_.real.get(), size(), buf_.keys.get());
        XCORR_LAUNCH_TRY("argmax_kernel");
      }
      start_kernel<<<(count + 63) / 64, 64, 0, stream_>>>(state_.get(), count, refining,
                                                          buf_.keys.get(), buf_.real.get(), depth_,
                                                          rows_, cols_, upsample_, buf_.acc.get());
      XCORR_LAUNCH_TRY("start_kernel");
      // At most kMaxPasses searching passes and the final evaluation, checked every few.
      const auto pass = [&]() -> Status {
        eval_kernel<<<
            dim3(static_cast<unsigned>((lines + kRowsPerEvalBlock - 1) / kRowsPerEvalBlock), count),
            kThreads, eval_smem(), stream_>>>(state_.get(), buf_.cross.get(), depth_, rows_, cols_,
                                              buf_.acc.get());
        XCORR_LAUNCH_TRY("eval_kernel");
        decide_kernel<<<1, 32 * ((count + 31) / 32), 0, stream_>>>(
            state_.get(), count, refining, buf_.acc.get(), total, finest, buf_.remaining.get());
        XCORR_LAUNCH_TRY("decide_kernel");
        return Status::ok();
      };
      XCORR_RETURN_IF_ERROR(
          phase::search_until_done(pass, kMaxPasses, kPassesPerCheck, buf_.remaining.get(),
                                   buf_.remaining_host.get(), stream_, "the GPU 3-D phase search"));
      XCORR_CUDA_TRY(cudaMemcpyAsync(state_h_.get(), state_.get(), count * sizeof(VolumeState),
                                     cudaMemcpyDeviceToHost, stream_));
      XCORR_CUDA_TRY(cudaStreamSynchronize(stream_));
      bool all_settled = refining;
      for (int k = 0; k < count && all_settled; ++k) all_settled = state_h_[k].settled != 0;
      if (all_settled) break;
    }
    return Status::ok();
  }

  int depth_, rows_, cols_, half_;
  int upsample_;
  int batch_ = 1;
  cudaStream_t stream_ = nullptr;
  bool has_reference_ = false;
  phase::BatchedPlans plans_{std::vector<int>{depth_, rows_, cols_}, stream_};
  phase::BlockBuffers buf_;
  DeviceBuffer<float> wx_, wy_, wz_;
  DeviceBuffer<VolumeState> state_;
  PinnedBuffer<VolumeState> state_h_;
};

Result<std::unique_ptr<GpuVolumeEngine>> make_engine(reg::VolumeShape shape, int upsample) {
  XCORR_RETURN_IF_ERROR(usable_device());
  if (shape.depth < 2 || shape.rows < 2 || shape.cols < 2)
    return Status{ErrorCode::invalid_argument,
                  "3-D phase correlation needs volumes of at least 2 x 2 x 2 voxels, not " +
                      std::to_string(shape.cols) + " x " + std::to_string(shape.rows) + " x " +
                      std::to_string(shape.depth)};
  if (shape.size() >= (1LL << 31))
    return Status{ErrorCode::unsupported,
                  "the GPU 3-D phase correlation takes volumes of under 2^31 voxels"};
  if (upsample < 1) return Status{ErrorCode::invalid_argument, "upsample must be >= 1"};
  auto e = std::make_unique<GpuVolumeEngine>(shape, upsample);
  XCORR_RETURN_IF_ERROR(e->init());
  return Result<std::unique_ptr<GpuVolumeEngine>>(std::move(e));
}

}  // namespace

Result<std::unique_ptr<reg::VolumeEngine>> make_gpu_volume_engine(reg::VolumeShape shape,
                                                                  int upsample) {
  auto e = make_engine(shape, upsample);
  if (!e.is_ok()) return e.status();
  return std::unique_ptr<reg::VolumeEngine>(std::move(e).value());
}

Result<engine::VolumeTiming> time_volumes_on_gpu(const float* reference,
                                                 const std::vector<const float*>& volumes,
                                                 reg::VolumeShape shape, Index measured,
                                                 int upsample) {
  if (volumes.empty() || measured < 1)
    return Status{ErrorCode::invalid_argument, "no volumes to measure"};
  auto made = make_engine(shape, upsample);
  if (!made.is_ok()) return made.status();
  GpuVolumeEngine& e = *made.value();
  XCORR_RETURN_IF_ERROR(e.set_reference(reference));
  // The volumes go up once, followed by the first b - 1 again, so that measured volumes
  // first .. first + b - 1 (volumes[k % count]) always lie side by side.
  const auto count = static_cast<Index>(volumes.size());
  const Index b = e.batch(), uploaded = count + b - 1, size = shape.size();
  DeviceBuffer<float> resident;
  XCORR_RETURN_IF_ERROR(resident.allocate(static_cast<std::size_t>(uploaded * size)));
  for (Index k = 0; k < uploaded; ++k) {
    const Index lines = shape.depth * shape.rows;
    const StackView<const float> one{
        volumes[static_cast<std::size_t>(k % count)], lines, shape.cols, 1, shape.cols, size};
    XCORR_RETURN_IF_ERROR(upload_staged(one, resident.get() + k * size, nullptr));
  }
  engine::VolumeTiming t;
  t.batch = static_cast<int>(b);
  const auto run = [&](Index n, std::vector<reg::Shift3>* out) -> Status {
    for (Index first = 0; first < n; first += b)
      XCORR_RETURN_IF_ERROR(e.measure_resident(resident.get() + (first % count) * size,
                                               static_cast<int>(std::min(b, n - first)), out));
    return Status::ok();
  };
  XCORR_RETURN_IF_ERROR(run(b, nullptr));  // warm-up: plans, first launches
  XCORR_CUDA_TRY(cudaDeviceSynchronize());
  const auto t0 = std::chrono::steady_clock::now();
  XCORR_RETURN_IF_ERROR(run(measured, &t.shifts));
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

}  // namespace xcorr::gpu
