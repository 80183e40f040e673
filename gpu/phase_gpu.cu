// Phase correlation on the GPU (see gpu/phase_gpu.hpp). The reference is prepared once (or, for
// `previous`, one per frame in the block); per block of frames:
//   stats_kernel     the frame's sum (its mean), float64
//   window_kernel    the Tukey window along x and y per frame, moved by the shift so far
//   prep_kernel      (pixel - mean) * window, and the energy (sum of squares, float64)
//   cuFFT R2C        batched
//   cross_kernel     R = F_ref conj(F_frame) / sqrt(E_ref E_frame) (or / |.| when whitened),
//                    kept for the search; a copy is the C2R's input in the first iteration
//   cuFFT C2R, argmax_kernel, start_kernel: the integer peak and a parabola through its
//                    neighbours (first iteration), or the shift so far (later ones)
//   eval_kernel + decide_kernel, repeated: c(s) at a 3 x 3 pattern per frame, then the move,
//                    the halving or the final parabola (PhaseCorrelator's rules, pass for pass)
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
#include "gpu/phase_gpu.hpp"
#include "gpu/phase_kernels.cuh"

namespace xcorr::gpu {
namespace {

using phase::argmax_kernel;
using phase::block_sum;
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
constexpr int kMaxPasses = 64;      // PhaseCorrelator's bound on search passes
constexpr int kPassesPerCheck = 8;  // passes launched between the host's checks

enum : int { kSearching = 0, kFinal = 1, kDone = 2 };

// One frame's search (c(s) coordinates are minus the shift, as in PhaseCorrelator).
struct FrameState {
  double x, y, h;       // search point and step (px)
  double value[9];      // the last 3 x 3 of c(s), [j * 3 + i]
  double dx, dy, peak;  // the result so far (the shift and c's value there)
  int phase, passes;
};

// Frame blockIdx.x: its windows along x (cols values) and y (rows values), moved by its state's
// shift when `moved`.
__global__ void window_kernel(const FrameState* __restrict__ state, bool moved, bool window,
                              int rows, int cols, float* __restrict__ wx, float* __restrict__ wy) {
  const int k = blockIdx.x;
  const double sx = moved ? state[k].dx : 0, sy = moved ? state[k].dy : 0;
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    wx[k * static_cast<long long>(cols) + i] = tukey_at(i, cols, sx, window);
  for (int i = threadIdx.x; i < rows; i += blockDim.x)
    wy[k * static_cast<long long>(rows) + i] = tukey_at(i, rows, sy, window);
}

// One thread per frame: the search's start. First iteration: the integer peak of the inverse
// transform and a parabola through its neighbours, step 1/8 px; later ones: the shift so far,
// step 1/16 px. Upsample 1: rounded, straight to the final evaluation.
__global__ void start_kernel(FrameState* __restrict__ state, int count, bool refining,
                             const unsigned long long* __restrict__ keys,
                             const float* __restrict__ surface, int rows, int cols, int upsample,
                             double* __restrict__ acc) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  FrameState& s = state[k];
  double x, y, h;
  if (refining) {
    x = -s.dx, y = -s.dy, h = 1.0 / 16;
  } else {
    const unsigned best = peak_key_index(keys[k]);
    const int br = static_cast<int>(best / cols), bc = static_cast<int>(best % cols);
    const float* f = surface + k * static_cast<long long>(rows) * cols;
    const auto at = [&](int r, int c) {
      return static_cast<double>(
          f[((r + rows) % rows) * static_cast<long long>(cols) + (c + cols) % cols]);
    };
    y = signed_frequency(br, rows) + vertex(at(br - 1, bc), at(br, bc), at(br + 1, bc));
    x = signed_frequency(bc, cols) + vertex(at(br, bc - 1), at(br, bc), at(br, bc + 1));
    h = 0.125;
  }
  s.h = fmax(h, 1.0 / upsample);
  s.passes = 0;
  if (upsample > 1) {
    s.phase = kSearching;
  } else {
    x = rint(x), y = rint(y);
    s.phase = kFinal;
  }
  s.x = x, s.y = y;
  for (int i = 0; i < 9; ++i) acc[k * 9 + i] = 0;
}

// c(s) at (x + (i - 1) h, y + (j - 1) h) for frame blockIdx.y (h = 0 in the final evaluation),
// over rows [blockIdx.x * kRowsPerEvalBlock, + kRowsPerEvalBlock): into acc[frame * 9 + j * 3
// + i], unnormalised. Dynamic shared memory: the 3 x half x-weights (float2).
__global__ void eval_kernel(const FrameState* __restrict__ state, const float2* __restrict__ cross,
                            int rows, int cols, double* __restrict__ acc) {
  extern __shared__ float2 weights[];
  __shared__ double partial[kWarps][9];
  const int k = blockIdx.y;
  const FrameState& s = state[k];
  if (s.phase == kDone) return;
  const int half = cols / 2 + 1;
  const double x0 = s.x, y0 = s.y, h = s.phase == kFinal ? 0.0 : s.h;
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
  double a[9] = {};
  const int first = blockIdx.x * kRowsPerEvalBlock;
  const int last = min(rows, first + kRowsPerEvalBlock);
  for (int u = first + warp; u < last; u += kWarps) {
    const float2* r = cross + (k * static_cast<long long>(rows) + u) * half;
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
    const double fu = signed_frequency(u, rows);
    for (int j = 0; j < 3; ++j) {
      double sy, cy;
      sincospi(2.0 * fu * (y0 + (j - 1) * h) / rows, &sy, &cy);
      for (int i = 0; i < 3; ++i) a[j * 3 + i] += sr[i] * cy - si[i] * sy;
    }
  }
  if (lane == 0)
    for (int i = 0; i < 9; ++i) partial[warp][i] = a[i];
  __syncthreads();
  if (threadIdx.x < 9) {
    double t = 0;
    for (int w = 0; w < kWarps; ++w) t += partial[w][threadIdx.x];
    atomicAdd(&acc[k * 9 + threadIdx.x], t);
  }
}

// One block, a thread per frame: the evaluated 3 x 3 moves the search to its best point, halves
// the step, or (below 1 / upsample) ends it with a parabola and one last evaluation; `remaining`
// gets the count of frames not done.
__global__ void decide_kernel(FrameState* __restrict__ state, int count, double* __restrict__ acc,
                              double total, double finest, int* __restrict__ remaining) {
  const int k = threadIdx.x;
  int open = 0;
  if (k < count && state[k].phase != kDone) {
    FrameState& s = state[k];
    for (int i = 0; i < 9; ++i) {
      s.value[i] = acc[k * 9 + i] / total;
      acc[k * 9 + i] = 0;
    }
    if (s.phase == kFinal) {
      s.dx = -s.x, s.dy = -s.y, s.peak = s.value[4];
      s.phase = kDone;
    } else {
      int bi = 1, bj = 1;
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i)
          if (s.value[j * 3 + i] > s.value[bj * 3 + bi]) bi = i, bj = j;
      bool finish = false;
      if (bi == 1 && bj == 1) {
        if (s.h / 2 < finest * 0.999)
          finish = true;
        else
          s.h /= 2;
      } else {
        s.x += (bi - 1) * s.h;
        s.y += (bj - 1) * s.h;
      }
      if (++s.passes >= kMaxPasses) finish = true;
      if (finish) {  // a parabola through the centre row and column gives the fraction below h
        s.x += s.h * vertex(s.value[3], s.value[4], s.value[5]);
        s.y += s.h * vertex(s.value[1], s.value[4], s.value[7]);
        s.phase = kFinal;
      }
    }
    open = s.phase != kDone;
  }
  open = __syncthreads_count(open);
  if (threadIdx.x == 0) *remaining = open;
}

class GpuPhaseEngine final : public reg::PhaseEngine {
 public:
  GpuPhaseEngine(Shape shape, const reg::PhaseOptions& o, int iterations)
      : rows_(static_cast<int>(shape.rows)),
        cols_(static_cast<int>(shape.cols)),
        half_(cols_ / 2 + 1),
        options_(o),
        iterations_(iterations) {}

  std::string device() const override { return "gpu"; }
  Index frames_per_call() const override { return batch_; }
  int batch() const { return batch_; }
  long long area() const { return static_cast<long long>(rows_) * cols_; }
  long long n_spec() const { return static_cast<long long>(rows_) * half_; }

  Status init() {
    XCORR_RETURN_IF_ERROR(cufft_api().status());
    const std::size_t smem = eval_smem();
    XCORR_RETURN_IF_ERROR(check_shared_bytes(
        "the GPU phase search", static_cast<long long>(smem + sizeof(double) * kWarps * 9),
        " for regions " + std::to_string(cols_) + " px wide"));
    if (smem > 48 * 1024)
      XCORR_CUDA_TRY(cudaFuncSetAttribute(eval_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(smem)));
    // Blocks of up to 32 frames, their buffers (about 24 bytes a pixel with cuFFT's work area)
    // within a quarter of the free device memory and 4 GB.
    auto fits = phase::batch_that_fits(24.0 * static_cast<double>(area()), 32);
    if (!fits.is_ok()) return fits.status();
    batch_ = fits.value();
    const auto b = static_cast<std::size_t>(batch_);
    XCORR_RETURN_IF_ERROR(buf_.allocate(b, area(), n_spec(), 9));
    XCORR_RETURN_IF_ERROR(wx_.allocate(b * cols_));
    XCORR_RETURN_IF_ERROR(wy_.allocate(b * rows_));
    XCORR_RETURN_IF_ERROR(state_.allocate(b));
    XCORR_RETURN_IF_ERROR(state_h_.allocate(b));
    XCORR_CUDA_TRY(cudaMemset(state_.get(), 0, b * sizeof(FrameState)));
    return Status::ok();
  }

  Status set_reference(MatrixView<const float> reference) override {
    XCORR_RETURN_IF_ERROR(check_shape(reference, "reference"));
    XCORR_RETURN_IF_ERROR(buf_.allocate_reference(n_spec()));
    XCORR_RETURN_IF_ERROR(upload({reference}, buf_.in.get()));
    XCORR_RETURN_IF_ERROR(
        spectra(buf_.in.get(), 1, false, buf_.ref_spec.get(), buf_.ref_energy.get()));
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream_));
    has_reference_ = true;
    return Status::ok();
  }

  Result<std::vector<reg::Shift>> measure(
      const std::vector<MatrixView<const float>>& frames,
      const std::vector<MatrixView<const float>>* references) override {
    if (references == nullptr && !has_reference_)
      return Status{ErrorCode::invalid_argument, "no reference set"};
    if (references != nullptr && references->size() != frames.size())
      return Status{ErrorCode::invalid_argument, "one reference per frame is needed"};
    for (const auto& f : frames) XCORR_RETURN_IF_ERROR(check_shape(f, "frame"));
    if (references != nullptr) {
      for (const auto& f : *references) XCORR_RETURN_IF_ERROR(check_shape(f, "reference"));
      XCORR_RETURN_IF_ERROR(buf_.allocate_references(static_cast<std::size_t>(batch_), n_spec()));
    }
    std::vector<reg::Shift> out;
    out.reserve(frames.size());
    XCORR_RETURN_IF_ERROR(phase::for_each_block(
        frames.size(), batch_, references != nullptr, buf_,
        [&](bool refs, std::size_t first, int count) {
          const std::vector<MatrixView<const float>>& v = refs ? *references : frames;
          return upload(
              {v.begin() + static_cast<long>(first), v.begin() + static_cast<long>(first) + count},
              buf_.in.get());
        },
        [&](int count) {
          return spectra(buf_.in.get(), count, false, buf_.refs_spec.get(), buf_.refs_energy.get());
        },
        [&](int count, const float2* ref, const double* ref_energy, int ref_step) -> Status {
          XCORR_RETURN_IF_ERROR(measure_on_device(buf_.in.get(), count, ref, ref_energy, ref_step));
          return download_shifts(count, out);
        }));
    return out;
  }

  // Frames already on the device (count <= batch(), contiguous) against the set reference;
  // the shifts stay on the device (download_shifts).
  Status measure_resident(const float* frames, int count) {
    return measure_on_device(frames, count, buf_.ref_spec.get(), buf_.ref_energy.get(), 0);
  }

  Status download_shifts(int count, std::vector<reg::Shift>& out) {
    XCORR_CUDA_TRY(cudaMemcpyAsync(state_h_.get(), state_.get(), count * sizeof(FrameState),
                                   cudaMemcpyDeviceToHost, stream_));
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream_));
    for (int k = 0; k < count; ++k)
      out.push_back({state_h_[k].dx, state_h_[k].dy, state_h_[k].peak});
    return Status::ok();
  }

 private:
  std::size_t eval_smem() const { return sizeof(float2) * 3 * static_cast<std::size_t>(half_); }

  Status check_shape(MatrixView<const float> m, const char* what) const {
    if (m.rows == rows_ && m.cols == cols_) return Status::ok();
    return Status{ErrorCode::size_mismatch, std::string("the ") + what + " is " +
                                                to_string(Shape{m.rows, m.cols}) + " px, not " +
                                                to_string(Shape{rows_, cols_})};
  }

  Status upload(const std::vector<MatrixView<const float>>& images, float* dst) {
    for (std::size_t k = 0; k < images.size(); ++k) {
      const MatrixView<const float>& m = images[k];
      const StackView<const float> s{m.data, m.rows,       m.cols,
                                     1,      m.row_stride, m.rows * m.row_stride};
      XCORR_RETURN_IF_ERROR(upload_staged(s, dst + static_cast<long long>(k) * area(), stream_));
    }
    return Status::ok();
  }

  // The windowed spectra of `count` images at `images` (device) into spec (count x n_spec) and
  // their energies into energy; the window moved by each frame's state when `moved`.
  Status spectra(const float* images, int count, bool moved, float2* spec, double* energy) {
    auto p = plans_.get(count);
    if (!p.is_ok()) return p.status();
    XCORR_CUDA_TRY(cudaMemsetAsync(buf_.sums.get(), 0, count * sizeof(double), stream_));
    XCORR_CUDA_TRY(cudaMemsetAsync(energy, 0, count * sizeof(double), stream_));
    stats_kernel<<<dim3(grid_for(area(), kThreads * 16, 256), count), kThreads, 0, stream_>>>(
        images, area(), buf_.sums.get());
    XCORR_LAUNCH_TRY("stats_kernel");
    window_kernel<<<count, kThreads, 0, stream_>>>(state_.get(), moved, options_.window, rows_,
                                                   cols_, wx_.get(), wy_.get());
    XCORR_LAUNCH_TRY("window_kernel");
    prep_kernel<<<dim3(grid_for(rows_, 4, 256), count), kThreads, 0, stream_>>>(
        images, buf_.sums.get(), wx_.get(), wy_.get(), nullptr, 1, rows_, cols_, buf_.real.get(),
        energy);
    XCORR_LAUNCH_TRY("prep_kernel");
    XCORR_CUFFT_TRY(cufft_api().value()->cufftExecR2C(p.value().first, buf_.real.get(),
                                                      reinterpret_cast<cufftComplex*>(spec)));
    return Status::ok();
  }

  Status measure_on_device(const float* frames, int count, const float2* ref,
                           const double* ref_energy, int ref_step) {
    auto p = plans_.get(count);
    if (!p.is_ok()) return p.status();
    const double total = static_cast<double>(area()), finest = 1.0 / options_.upsample;
    for (int it = 0; it < iterations_; ++it) {
      const bool refining = it > 0;
      XCORR_RETURN_IF_ERROR(spectra(frames, count, refining, buf_.spec.get(), buf_.energy.get()));
      const long long n = n_spec() * count;
      cross_kernel<<<grid_for(n, kThreads * 8, 8192), kThreads, 0, stream_>>>(
          ref, ref_energy, ref_step, buf_.spec.get(), buf_.energy.get(), n_spec(), count,
          options_.whiten, buf_.cross.get(), refining ? nullptr : buf_.spec.get());
      XCORR_LAUNCH_TRY("cross_kernel");
      if (!refining) {
        XCORR_CUFFT_TRY(cufft_api().value()->cufftExecC2R(
            p.value().second, reinterpret_cast<cufftComplex*>(buf_.spec.get()), buf_.real.get()));
        XCORR_CUDA_TRY(
            cudaMemsetAsync(buf_.keys.get(), 0, count * sizeof(unsigned long long), stream_));
        argmax_kernel<<<dim3(grid_for(area(), kThreads * 16, 256), count), kThreads, 0, stream_>>>(
            buf_.real.get(), area(), buf_.keys.get());
        XCORR_LAUNCH_TRY("argmax_kernel");
      }
      start_kernel<<<(count + 63) / 64, 64, 0, stream_>>>(state_.get(), count, refining,
                                                          buf_.keys.get(), buf_.real.get(), rows_,
                                                          cols_, options_.upsample, buf_.acc.get());
      XCORR_LAUNCH_TRY("start_kernel");
      // At most kMaxPasses searching passes and the final evaluation, checked every few.
      const auto pass = [&]() -> Status {
        eval_kernel<<<dim3((rows_ + kRowsPerEvalBlock - 1) / kRowsPerEvalBlock, count), kThreads,
                      eval_smem(), stream_>>>(state_.get(), buf_.cross.get(), rows_, cols_,
                                              buf_.acc.get());
        XCORR_LAUNCH_TRY("eval_kernel");
        decide_kernel<<<1, 32 * ((count + 31) / 32), 0, stream_>>>(
            state_.get(), count, buf_.acc.get(), total, finest, buf_.remaining.get());
        XCORR_LAUNCH_TRY("decide_kernel");
        return Status::ok();
      };
      XCORR_RETURN_IF_ERROR(
          phase::search_until_done(pass, kMaxPasses, kPassesPerCheck, buf_.remaining.get(),
                                   buf_.remaining_host.get(), stream_, "the GPU phase search"));
    }
    return Status::ok();
  }

  int rows_, cols_, half_;
  reg::PhaseOptions options_;
  int iterations_;
  int batch_ = 1;
  cudaStream_t stream_ = nullptr;
  bool has_reference_ = false;
  phase::BatchedPlans plans_{std::vector<int>{rows_, cols_}, stream_};
  phase::BlockBuffers buf_;
  DeviceBuffer<float> wx_, wy_;
  DeviceBuffer<FrameState> state_;
  PinnedBuffer<FrameState> state_h_;
};

Result<std::unique_ptr<GpuPhaseEngine>> make_engine(Shape shape, const reg::PhaseOptions& o,
                                                    int iterations) {
  XCORR_RETURN_IF_ERROR(usable_device());
  if (shape.rows < 2 || shape.cols < 2)
    return Status{ErrorCode::invalid_argument,
                  "phase correlation needs a region of at least 2 x 2 px, not " + to_string(shape)};
  if (o.upsample < 1 || iterations < 1)
    return Status{ErrorCode::invalid_argument, "upsample and iterations must be >= 1"};
  auto e = std::make_unique<GpuPhaseEngine>(shape, o, iterations);
  XCORR_RETURN_IF_ERROR(e->init());
  return Result<std::unique_ptr<GpuPhaseEngine>>(std::move(e));
}

}  // namespace

Result<std::unique_ptr<reg::PhaseEngine>> make_gpu_phase_engine(Shape shape,
                                                                const reg::PhaseOptions& o,
                                                                int iterations) {
  auto e = make_engine(shape, o, iterations);
  if (!e.is_ok()) return e.status();
  return std::unique_ptr<reg::PhaseEngine>(std::move(e).value());
}

Result<engine::PhaseTiming> time_phase_on_gpu(MatrixView<const float> reference,
                                              StackView<const float> frames, Index measured,
                                              const reg::PhaseOptions& o, int iterations) {
  if (frames.count < 1 || measured < 1)
    return Status{ErrorCode::invalid_argument, "no frames to measure"};
  auto made = make_engine(Shape{frames.rows, frames.cols}, o, iterations);
  if (!made.is_ok()) return made.status();
  GpuPhaseEngine& e = *made.value();
  XCORR_RETURN_IF_ERROR(e.set_reference(reference));
  // The frames go up once, followed by the first b - 1 again, so that measured frames
  // first .. first + b - 1 (frames[k % count]) always lie side by side.
  const Index b = e.batch(), uploaded = frames.count + b - 1;
  DeviceBuffer<float> resident;
  XCORR_RETURN_IF_ERROR(resident.allocate(static_cast<std::size_t>(uploaded * e.area())));
  for (Index k = 0; k < uploaded; ++k) {
    StackView<const float> one = frames;
    one.data = frames.data + (k % frames.count) * frames.matrix_stride;
    one.count = 1;
    XCORR_RETURN_IF_ERROR(upload_staged(one, resident.get() + k * e.area(), nullptr));
  }
  engine::PhaseTiming t;
  t.batch = static_cast<int>(b);
  const auto run = [&](Index count, std::vector<reg::Shift>* out) -> Status {
    for (Index first = 0; first < count; first += b) {
      const int n = static_cast<int>(std::min(b, count - first));
      XCORR_RETURN_IF_ERROR(
          e.measure_resident(resident.get() + (first % frames.count) * e.area(), n));
      if (out != nullptr) XCORR_RETURN_IF_ERROR(e.download_shifts(n, *out));
    }
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
