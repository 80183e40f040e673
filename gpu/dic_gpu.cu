// DIC frame registration on the GPU (see gpu/dic_gpu.hpp): the orchestration of a frame's
// stages, all on the device:
//   1. B-spline coefficients of the reference (when it or the interpolation options change),
//      its PixelTable (when the points are pixel centres) and those of the frame
//      (gpu/dic_bspline.cuh).
//   2. Integer guess: by strips of a grid row's points (gpu/dic_guess_strips.cuh; --method auto
//      with the fast accuracy), while the frame's coefficients are made on a stream of their
//      own; or, for a named --method or the exact accuracy, a gather kernel cuts the reference
//      subsets and the search windows into two stacks, the engine's GPU variant for the n_to_mn
//      valid zncc peak request finds each pair's maximum, a small kernel turns each record into
//      (u, v).
//   3. IC-GN, one warp per point (gpu/dic_icgn.cuh).
// Then, for reliability-guided propagation, the waves (GpuRegistrar::waves).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "core/dic/consistency.hpp"
#include "core/dic/guess_strips.hpp"
#include "core/dic/initial_guess.hpp"
#include "core/parallel.hpp"
#include "core/round.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/cuda_event.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_model.cuh"
#include "gpu/dic_bspline.cuh"
#include "gpu/dic_gpu.hpp"
#include "gpu/dic_guess_fit.cuh"
#include "gpu/dic_guess_strips.cuh"
#include "gpu/dic_icgn.cuh"
#include "gpu/dic_timed.hpp"
#include "gpu/engine.hpp"
#include "gpu/gpu_correlator.cuh"
#include "gpu/host_staging.cuh"

namespace xcorr::gpu {
namespace {

// Whether every active point of `in` is a pixel centre (x and y integral), over the host's
// threads.
bool on_pixels(const dic::FrameInputs& in) {
  const std::vector<char>& active = *in.active;
  const std::vector<double>& cx = *in.cx;
  const std::vector<double>& cy = *in.cy;
  std::atomic<bool> all{true};
  parallel_for(static_cast<Index>(active.size()), 16384, [&](Index first, Index last) {
    for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last); ++k)
      if (active[k] != 0 && (cx[k] != std::floor(cx[k]) || cy[k] != std::floor(cy[k]))) {
        all = false;
        return;
      }
  });
  return all;
}

using GuessPoint = dic::GuessWindow;

// Block k: template k (S x S from the reference) and window k (win x win from the frame).
__global__ void gather_kernel(const float* __restrict__ ref, const float* __restrict__ def,
                              int cols, const GuessPoint* __restrict__ pts, int S, int win,
                              float* __restrict__ templates, float* __restrict__ windows) {
  const GuessPoint p = pts[blockIdx.x];
  const int h = S / 2;
  float* t = templates + static_cast<long long>(blockIdx.x) * S * S;
  float* w = windows + static_cast<long long>(blockIdx.x) * win * win;
  for (int i = threadIdx.x; i < S * S; i += blockDim.x)
    t[i] = ref[static_cast<long long>(p.y - h + i / S) * cols + p.x - h + i % S];
  for (int i = threadIdx.x; i < win * win; i += blockDim.x)
    w[i] = def[static_cast<long long>(p.wy + i / win) * cols + p.wx + i % win];
}

// One thread per guessed point: its peak record (the engine's peak output) -> integer (u, v),
// written to start[dest[k]] (its place among the listed points).
__global__ void guess_from_peaks_kernel(const float* __restrict__ records, int count,
                                        const GuessPoint* __restrict__ pts, int S,
                                        const int* __restrict__ dest, int2* __restrict__ start) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const float* rec = records + static_cast<long long>(k) * kPeakFields;
  const GuessPoint p = pts[k];
  start[dest[k]] = make_int2(p.wx + static_cast<int>(rec[1]) - (p.x - S / 2),
                             p.wy + static_cast<int>(rec[0]) - (p.y - S / 2));
}

// The search window's side (px): the subset plus the search radius each way, within the image.
int guess_window(const dic::DicOptions& o, int rows, int cols) {
  return dic::guess_window(o.subset, o.search_radius, rows, cols);
}

CorrelationProblem guess_shape(int count, int S, int win, const dic::DicOptions& o) {
  return dic::guess_shape(count, S, win, o.accuracy);
}

// Whether o asks for the strip search: by name, or auto where the fast accuracy allows it.
bool strip_method(const dic::DicOptions& o) {
  return o.method == kStripGuessMethod || (o.method == "auto" && o.accuracy == Accuracy::fast);
}

constexpr Index kHostChunks = 64;    // the grid's chunks for the host's passes over it
constexpr int kGuessBatch = 262144;  // points per engine call (memory: ~12 KB each at R = 10)

// A deformed frame on the device: its pixels and B-spline coefficients, what they were made
// with (rows -1: nothing usable), and the events around the coefficients' work.
struct Deformed {
  DeviceBuffer<float> img, c;  // c: with kDeformedPad continued coefficients around (IC-GN's)
  ImageMean mean;              // of img (the strip search's shift)
  int rows = -1, cols = -1;
  dic::Interpolation interpolation = dic::Interpolation::quintic;
  double prefilter = -1;
  CudaEvent ev[2];
  // Whether they are of an image of r x k px, made with o's interpolation and prefilter.
  bool made_for(int r, int k, const dic::DicOptions& o) const {
    return rows == r && cols == k && interpolation == o.interpolation && prefilter == o.prefilter;
  }
};

class GpuRegistrar final : public TimedRegistrar {
 public:
  // On the device current on the creating thread; any thread may call it (the session's
  // "registered ahead" thread, a lane's): every call makes that device current first.
  explicit GpuRegistrar(const Registry& engine) : engine_(engine) { (void)cudaGetDevice(&device_); }
  std::string device() const override { return "gpu"; }
  bool may_run_ahead() const override { return true; }
  double last_seconds() const override { return last_seconds_; }
  Result<std::string> guess_method(const dic::DicOptions& o, Index rows, Index cols,
                                   Index points) const override {
    return gpu_guess_method(engine_, o, static_cast<int>(rows), static_cast<int>(cols), points);
  }
  bool has_waves() const override { return true; }
  // The reliability-guided waves over `pts` (the frame's independent results), on this device,
  // with the coefficients of the frame it registered last.
  Status waves(const dic::FrameInputs& in, const dic::DicOptions& o,
               std::vector<dic::IcgnResult>& pts) override {
    XCORR_CUDA_TRY(cudaSetDevice(device_));
    stages_.waves = 0;
    stages_.wave_points = 0;
    return reliability_waves(in, o, pts, nullptr);
  }
  GpuDicStages stages() const override { return stages_; }

  Result<const dic::FrameRegistration*> register_frame(const dic::FrameInputs& in,
                                                       const dic::DicOptions& o) override {
    XCORR_CUDA_TRY(cudaSetDevice(device_));
    const int S = o.subset;
    XCORR_RETURN_IF_ERROR(check_shared_bytes(
        "the GPU IC-GN", icgn_warp_bytes(S, o.shape == dic::ShapeFunction::second_order),
        " for subset " + std::to_string(S) + " px"));
    cudaStream_t stream = nullptr;
    const int rows = static_cast<int>(in.reference.rows),
              cols = static_cast<int>(in.reference.cols);
    const auto pixels = static_cast<std::size_t>(rows) * cols;
    const std::vector<char>& active = *in.active;
    const std::size_t n_all = active.size();
    // Host lists and results in pinned memory, reused frame after frame (see PinnedBuffer in
    // gpu/device_buffer.cuh).
    XCORR_RETURN_IF_ERROR(guess_of_h_.allocate(n_all));
    XCORR_RETURN_IF_ERROR(cx_h_.allocate(n_all));
    XCORR_RETURN_IF_ERROR(cy_h_.allocate(n_all));
    XCORR_RETURN_IF_ERROR(guess_h_.allocate(n_all));
    XCORR_RETURN_IF_ERROR(results_h_.allocate(n_all));
    // The reference's coefficients, and its PixelTable when every listed point is a pixel centre
    // (the grid of reference mode; incremental mode moves the centres with the points, and
    // IC-GN then computes each reference subset), timed apart: stages().reference.
    on_pixels_ = on_pixels(in);
    const bool new_reference = in.reference_changed || ref_c_.size() < pixels ||
                               ref_interpolation_ != o.interpolation ||
                               ref_prefilter_ != o.prefilter;
    const bool new_table = on_pixels_ && (new_reference || !table_fresh_);
    if (new_reference) XCORR_RETURN_IF_ERROR(upload_image(in.reference, ref_img_, stream));
    if (new_reference || new_table) XCORR_CUDA_TRY(cudaEventRecord(ref_ev_[0].get(), stream));
    if (new_reference) {
      XCORR_RETURN_IF_ERROR(
          bspline_coefficients(ref_img_.get(), ref_c_, rows, cols, o, bspline_, stream));
      XCORR_RETURN_IF_ERROR(ref_mean_.compute(ref_img_.get(), pixels, stream));
      table_fresh_ = false;
    }
    if (new_table) {
      XCORR_RETURN_IF_ERROR(bspline_pixel_table(ref_c_.get(), ref_table_, rows, cols, o, stream));
      table_fresh_ = true;
    }
    if (new_reference || new_table) XCORR_CUDA_TRY(cudaEventRecord(ref_ev_[1].get(), stream));
    if (new_reference) {  // on the host while the device works
      ref_interpolation_ = o.interpolation;
      ref_prefilter_ = o.prefilter;
      noise_ = dic::noise_model(in.reference, o.interpolation, o.prefilter);
    }
    // The deformed frame's pixels and coefficients: preloaded (they were enqueued while the host
    // worked, timed apart: stages().coefficients), or the same frame again (the consistency
    // check's second pass; still on the device), or made here.
    const bool preloaded = in.deformed_preloaded && next_->made_for(rows, cols, o);
    if (preloaded) std::swap(def_, next_);
    const bool have_deformed = preloaded || (!in.deformed_changed && def_->made_for(rows, cols, o));
    if (in.deformed_changed || in.deformed_preloaded) next_->rows = -1;  // used, or stale
    if (!have_deformed) {
      def_->rows = -1;  // until the coefficients below are made
      XCORR_RETURN_IF_ERROR(upload_image(in.deformed, def_->img, stream));
    }
    const auto wait0 = std::chrono::steady_clock::now();
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
    const auto t0 = std::chrono::steady_clock::now();  // images on the device from here
    stages_.images_wait = std::chrono::duration<double>(t0 - wait0).count();
    // The coefficients on a stream of their own: the integer guess reads the pixels, only IC-GN
    // waits for them (their filters leave most of the device idle).
    if (!have_deformed)
      XCORR_RETURN_IF_ERROR(make_coefficients(*def_, rows, cols, o, stream, coefficients_.get()));
    XCORR_CUDA_TRY(cudaEventRecord(ev_[0].get(), stream));

    // Points to compute (while the device computes the coefficients, unless preloaded), their
    // positions, and the integer guesses of those whose rounded subset lies in the reference (the
    // others keep (0, 0) and IC-GN reports them outside_roi). The grid goes in chunks over the
    // host's threads: count per chunk, then write in place from the chunk's offsets (one thread
    // took ~5 ms at 2048^2 step 4, a quarter of the device's whole integer guess).
    const int h = S / 2;
    const int win = guess_window(o, rows, cols), R = (win - S) / 2;
    const std::vector<double>& cx = *in.cx;
    const std::vector<double>& cy = *in.cy;
    const std::vector<dic::Warp>& predicted = *in.predicted;
    auto guessed = [&](std::size_t k, int& x, int& y) {  // the rounded subset inside
      x = round_half_away(cx[k]);
      y = round_half_away(cy[k]);
      return x - h >= 0 && y - h >= 0 && x + h < cols && y + h < rows;
    };
    // The integer guess by strips (gpu/dic_guess_strips.cuh) unless another method is asked for.
    const std::size_t budget = strip_method(o) ? strip_budget(S, win) : 0;
    if (o.method == kStripGuessMethod && budget == 0) {
      return Status{ErrorCode::unsupported,
                    std::string(kStripGuessMethod) + ": one subset of " + std::to_string(S) +
                        " px does not fit this GPU's shared memory (use --method auto)"};
    }
    const bool by_strips = budget > 0;
    const std::size_t per = (n_all + kHostChunks - 1) / kHostChunks;
    parallel_for(kHostChunks, 1, [&](Index first, Index last) {
      for (Index c = first; c < last; ++c) {
        Chunk& ch = chunks_[static_cast<std::size_t>(c)];
        ch.begin = std::min(n_all, static_cast<std::size_t>(c) * per);
        ch.end = std::min(n_all, ch.begin + per);
        ch.listed = ch.guessed = 0;
        for (std::size_t k = ch.begin; k < ch.end; ++k) {
          int x = 0, y = 0;
          if (!active[k]) continue;
          ++ch.listed;
          ch.guessed += guessed(k, x, y) ? 1 : 0;
        }
      }
    });
    int count = 0, guesses = 0;
    for (Chunk& ch : chunks_) {
      ch.first_listed = count, ch.first_guess = guesses;
      count += ch.listed, guesses += ch.guessed;
    }
    parallel_for(kHostChunks, 1, [&](Index first, Index last) {
      for (Index c = first; c < last; ++c) {
        Chunk& ch = chunks_[static_cast<std::size_t>(c)];
        int i = ch.first_listed, g = ch.first_guess;
        for (std::size_t k = ch.begin; k < ch.end; ++k) {
          if (!active[k]) continue;
          cx_h_[i] = cx[k];
          cy_h_[i] = cy[k];
          int x = 0, y = 0;
          if (guessed(k, x, y)) {
            const int px = round_half_away(predicted[k][0]), py = round_half_away(predicted[k][3]);
            guess_h_[g] = {x, y, std::clamp(x + px - h - R, 0, cols - win),
                           std::clamp(y + py - h - R, 0, rows - win)};
            guess_of_h_[g++] = i;
          }
          ++i;
        }
        ch.strips.clear();
        if (by_strips) {
          (void)dic::plan_strips(guess_h_.get(), ch.first_guess, g, S, win, budget, dic::kStripSpan,
                                 ch.strips);
        }
      }
    });
    dic::FrameRegistration& reg = reg_;
    reg.variant.clear();
    if (reg.points.size() != n_all)
      for (Chunk& ch : chunks_) ch.defaults = false;  // other chunks
    reg.points.resize(n_all);
    if (count == 0) {
      std::fill(reg.points.begin(), reg.points.end(), dic::IcgnResult{});
      for (Chunk& ch : chunks_) ch.defaults = true;
      return &reg_;
    }
    const auto n_listed = static_cast<std::size_t>(count);
    XCORR_RETURN_IF_ERROR(upload(cx_h_.get(), n_listed, cx_, stream));
    XCORR_RETURN_IF_ERROR(upload(cy_h_.get(), n_listed, cy_, stream));
    // Integer guesses go straight into peak_ on the device, their refined starts into start_
    // (points without a guess start at (0, 0)).
    XCORR_RETURN_IF_ERROR(peak_.allocate(n_listed));
    XCORR_RETURN_IF_ERROR(start_.allocate(n_listed));
    XCORR_CUDA_TRY(cudaMemsetAsync(start_.get(), 0, sizeof(double2) * count, stream));
    XCORR_RETURN_IF_ERROR(
        upload(guess_of_h_.get(), static_cast<std::size_t>(guesses), guess_of_, stream));
    if (by_strips) {
      XCORR_RETURN_IF_ERROR(strip_integer_guess(guesses, S, win, budget, rows, cols, stream));
      reg.variant = kStripGuessMethod;
    } else {
      // One variant for the whole frame, chosen for its listed points (one batch at most): a
      // device that registers part of a frame (gpu/dic_multi_gpu.cpp) is handed the same choice,
      // so the results do not depend on how a frame is split.
      auto chosen = guess_variant(guess_shape(std::min(count, kGuessBatch), S, win, o), o.method);
      if (!chosen.is_ok()) return chosen.status();
      const auto* g = dynamic_cast<const GpuCorrelator*>(chosen.value());
      if (g == nullptr) {
        return Status{ErrorCode::invalid_argument, "--method " + o.method +
                                                       " is not a GPU variant (the GPU DIC path "
                                                       "needs one)"};
      }
      XCORR_RETURN_IF_ERROR(integer_guess(*g, guess_h_.get(), guesses, S, win, cols, o, stream));
      reg.variant = g->info().name;
    }
    XCORR_CUDA_TRY(cudaEventRecord(ev_[1].get(), stream));
    // Progress (when asked for) at the two stages' ends: a frame takes milliseconds here, about
    // a second for 10^7 points; the extra synchronisation costs microseconds.
    const dic::PointProgress* progress =
        in.progress != nullptr && *in.progress ? in.progress : nullptr;
    if (progress != nullptr) {
      XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
      if (!(*progress)(count, 2 * static_cast<Index>(count)))
        return Status{ErrorCode::cancelled, "cancelled inside a frame"};
    }

    // IC-GN, once the frame's coefficients are made.
    XCORR_CUDA_TRY(cudaStreamWaitEvent(stream, def_->ev[1].get(), 0));
    XCORR_RETURN_IF_ERROR(out_.allocate(static_cast<std::size_t>(count)));
    XCORR_RETURN_IF_ERROR(factor_.allocate(static_cast<std::size_t>(count)));
    const IcgnArgs args = icgn_args(o, ref_c_.get(), on_pixels_ ? &ref_table_ : nullptr,
                                    def_->c.get(), rows, cols, cx_.get(), cy_.get(), start_.get(),
                                    nullptr, count, noise_, out_.get(), factor_.get());
    XCORR_RETURN_IF_ERROR(launch_icgn(args, o, stream));
    XCORR_CUDA_TRY(cudaEventRecord(ev_[2].get(), stream));
    XCORR_CUDA_TRY(cudaMemcpyAsync(results_h_.get(), out_.get(), n_listed * sizeof(IcgnOut),
                                   cudaMemcpyDeviceToHost, stream));
    XCORR_CUDA_TRY(cudaEventRecord(ev_[3].get(), stream));
    XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
    stages_.preloaded = preloaded;
    stages_.coefficients = preloaded || !have_deformed ? def_->ev[1].seconds_since(def_->ev[0]) : 0;
    stages_.reference = new_reference || new_table ? ref_ev_[1].seconds_since(ref_ev_[0]) : 0;
    stages_.integer_guess = ev_[1].seconds_since(ev_[0]);
    stages_.icgn = ev_[2].seconds_since(ev_[1]);
    stages_.download = ev_[3].seconds_since(ev_[2]);
    if (guesses > 0) {  // the last batch's (one batch up to kGuessBatch points)
      stages_.guess_gather = guess_ev_[1].seconds_since(guess_ev_[0]);
      stages_.guess_search = guess_ev_[2].seconds_since(guess_ev_[1]);
    }
    // Results back to their grid points, chunk by chunk; inactive points get the default.
    const auto results0 = std::chrono::steady_clock::now();
    parallel_for(kHostChunks, 1, [&](Index first, Index last) {
      for (Index c = first; c < last; ++c) {
        Chunk& ch = chunks_[static_cast<std::size_t>(c)];
        if (ch.listed == 0 && ch.defaults) continue;
        ch.defaults = ch.listed == 0;
        int i = ch.first_listed;
        for (std::size_t k = ch.begin; k < ch.end; ++k) {
          dic::IcgnResult& q = reg.points[k];
          if (!active[k]) {
            q = dic::IcgnResult{};
            continue;
          }
          q = to_result(results_h_[i++]);
        }
      }
    });
    stages_.results_host =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - results0).count();
    stages_.propagation = 0;
    stages_.waves = 0;
    stages_.wave_points = 0;
    if (o.propagation == dic::Propagation::reliability_guided) {
      for (Chunk& ch : chunks_) ch.defaults = false;  // the waves write points
      const auto w0 = std::chrono::steady_clock::now();
      XCORR_RETURN_IF_ERROR(reliability_waves(in, o, reg_.points, stream));
      stages_.propagation =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    }
    last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (progress != nullptr &&
        !(*progress)(2 * static_cast<Index>(count), 2 * static_cast<Index>(count)))
      return Status{ErrorCode::cancelled, "cancelled inside a frame"};
    return &reg_;
  }

  void preload(MatrixView<const float> deformed, const dic::DicOptions& o) override {
    next_->rows = -1;
    const Status s = [&]() -> Status {
      XCORR_CUDA_TRY(cudaSetDevice(device_));
      const int rows = static_cast<int>(deformed.rows), cols = static_cast<int>(deformed.cols);
      const auto pixels = static_cast<std::size_t>(rows) * cols;
      // Into pinned memory on the host's threads (the previous preload's copy from it is done
      // first), then to the device and through the coefficients without waiting: the
      // coefficients on their own stream, as a frame's own are, so that the call that takes the
      // frame waits only for its pixels (the integer guess reads them; IC-GN waits for d.ev[1]).
      XCORR_CUDA_TRY(cudaEventSynchronize(next_uploaded_.get()));
      XCORR_RETURN_IF_ERROR(next_h_.allocate(pixels));
      float* host = next_h_.get();
      parallel_for(rows, std::max(1, 262144 / std::max(1, cols)), [&](Index first, Index last) {
        for (Index r = first; r < last; ++r)
          std::copy(deformed.row(r), deformed.row(r) + cols, host + r * cols);
      });
      cudaStream_t stream = nullptr;
      XCORR_RETURN_IF_ERROR(next_->img.allocate(pixels));
      XCORR_CUDA_TRY(cudaMemcpyAsync(next_->img.get(), host, pixels * sizeof(float),
                                     cudaMemcpyHostToDevice, stream));
      XCORR_CUDA_TRY(cudaEventRecord(next_uploaded_.get(), stream));
      return make_coefficients(*next_, rows, cols, o, stream, coefficients_.get());
    }();
    if (!s.is_ok()) next_->rows = -1;  // the frame's own call starts over
  }

 private:
  // d.img's mean, enqueued on `stream`, and its B-spline coefficients (rows x cols px) with o's
  // interpolation, enqueued on `side` after what `stream` holds, between d.ev's records (work
  // on `stream` that reads d.c waits for d.ev[1]); d describes them once enqueued.
  Status make_coefficients(Deformed& d, int rows, int cols, const dic::DicOptions& o,
                           cudaStream_t stream, cudaStream_t side) {
    XCORR_RETURN_IF_ERROR(
        d.mean.compute(d.img.get(), static_cast<std::size_t>(rows) * cols, stream));
    if (side != stream) {
      XCORR_CUDA_TRY(cudaEventRecord(side_ready_.get(), stream));
      XCORR_CUDA_TRY(cudaStreamWaitEvent(side, side_ready_.get(), 0));
    }
    XCORR_CUDA_TRY(cudaEventRecord(d.ev[0].get(), side));
    XCORR_RETURN_IF_ERROR(
        bspline_coefficients(d.img.get(), d.c, rows, cols, o, bspline_, side, kDeformedPad));
    XCORR_CUDA_TRY(cudaEventRecord(d.ev[1].get(), side));
    d.rows = rows, d.cols = cols;
    d.interpolation = o.interpolation;
    d.prefilter = o.prefilter;
    return Status::ok();
  }

  // Reliability-guided work on the GPU: every point has had its independent pass (integer guess,
  // IC-GN); the points that did not converge are then started from their best converged
  // 4-neighbour's warp (highest ZNCC, as the CPU's propagation starts them), in waves: each wave
  // registers every failed point that has a converged neighbour, once per point, until no point
  // is left that could be started. Points whose integer-guess match lies outside their search
  // range (the CPU checks its seeds the same way), and converged points further than
  // max_deviation from their neighbours' prediction (consistency.hpp), count as failed first, so
  // a wave may reach them from a neighbour. low_texture and outside_roi are properties of the
  // reference subset: not tried again.
  Status reliability_waves(const dic::FrameInputs& in, const dic::DicOptions& o,
                           std::vector<dic::IcgnResult>& pts, cudaStream_t stream) {
    const dic::Grid& grid = *in.grid;
    const std::vector<char>& active = *in.active;
    const std::vector<double>& cx = *in.cx;
    const std::vector<double>& cy = *in.cy;
    const std::size_t n = pts.size();
    for (std::size_t k = 0; k < n; ++k)
      if (active[k] && dic::beyond_search(pts[k], (*in.predicted)[k], o.search_radius))
        pts[k].status = dic::PointStatus::outside_image;
    // A false peak inside the search range (the true match lies beyond it) can converge far
    // from what its neighbours say (4.5 px in a test run): such points wait for a neighbour's
    // start, as the CPU's propagation would have reached them first. Its neighbours may only
    // converge in the waves, so the check runs again after them (3 rounds at most); what still
    // disagrees then is inconsistent.
    std::vector<char> tried(n, 0);
    std::vector<std::size_t> wave;
    std::vector<double> wx, wy, warps;
    const auto retry = [&](std::size_t k) {
      const dic::PointStatus s = pts[k].status;
      return active[k] && !tried[k] && s != dic::PointStatus::converged &&
             s != dic::PointStatus::low_texture && s != dic::PointStatus::outside_roi;
    };
    const auto mark_suspects = [&](bool retry_them) {
      if (o.max_deviation <= 0) return false;
      const std::vector<dic::Suspect> suspects =
          dic::find_suspects(grid, cx, cy, active, pts, o.max_deviation);
      for (const dic::Suspect& s : suspects) {
        pts[s.index].status = dic::PointStatus::inconsistent;
        if (retry_them) tried[s.index] = 0;
      }
      return !suspects.empty();
    };
    // Waves until no failed point has a converged neighbour it has not been started from.
    const auto run_waves = [&]() -> Status {
      std::vector<std::size_t> failed;  // the candidates, scanned by each wave
      for (std::size_t k = 0; k < n; ++k)
        if (retry(k)) failed.push_back(k);
      for (;;) {
        wave.clear(), wx.clear(), wy.clear(), warps.clear();
        std::erase_if(failed, [&](std::size_t k) { return !retry(k); });
        for (const std::size_t k : failed) {
          const Index r = static_cast<Index>(k) / grid.cols, c = static_cast<Index>(k) % grid.cols;
          const Index nr[4] = {r - 1, r + 1, r, r}, nc[4] = {c, c, c - 1, c + 1};
          std::size_t best = n;
          for (int e = 0; e < 4; ++e) {
            if (nr[e] < 0 || nc[e] < 0 || nr[e] >= grid.rows || nc[e] >= grid.cols) continue;
            const auto q = static_cast<std::size_t>(nr[e] * grid.cols + nc[e]);
            if (active[q] && pts[q].status == dic::PointStatus::converged &&
                (best == n || pts[q].zncc > pts[best].zncc))
              best = q;
          }
          if (best == n) continue;
          const dic::Warp& p = pts[best].p;
          const double dx = cx[k] - cx[best], dy = cy[k] - cy[best];
          const double start[6] = {p[0] + p[1] * dx + p[2] * dy, p[1], p[2],
                                   p[3] + p[4] * dx + p[5] * dy, p[4], p[5]};
          wave.push_back(k);
          wx.push_back(cx[k]);
          wy.push_back(cy[k]);
          warps.insert(warps.end(), start, start + 6);
        }
        if (wave.empty()) return Status::ok();
        const int count = static_cast<int>(wave.size());
        ++stages_.waves;
        stages_.wave_points += count;
        XCORR_RETURN_IF_ERROR(upload(wx.data(), wave.size(), wave_cx_, stream));
        XCORR_RETURN_IF_ERROR(upload(wy.data(), wave.size(), wave_cy_, stream));
        XCORR_RETURN_IF_ERROR(upload(warps.data(), warps.size(), wave_start_, stream));
        XCORR_RETURN_IF_ERROR(wave_out_.allocate(wave.size()));
        XCORR_RETURN_IF_ERROR(factor_.allocate(wave.size()));
        const IcgnArgs args =
            icgn_args(o, ref_c_.get(), on_pixels_ ? &ref_table_ : nullptr, def_->c.get(),
                      static_cast<int>(in.reference.rows), static_cast<int>(in.reference.cols),
                      wave_cx_.get(), wave_cy_.get(), nullptr, wave_start_.get(), count, noise_,
                      wave_out_.get(), factor_.get());
        XCORR_RETURN_IF_ERROR(launch_icgn(args, o, stream));
        wave_h_.resize(wave.size());
        XCORR_CUDA_TRY(cudaMemcpyAsync(wave_h_.data(), wave_out_.get(),
                                       wave.size() * sizeof(IcgnOut), cudaMemcpyDeviceToHost,
                                       stream));
        XCORR_CUDA_TRY(cudaStreamSynchronize(stream));
        for (std::size_t i = 0; i < wave.size(); ++i) {
          tried[wave[i]] = 1;
          pts[wave[i]] = to_result(wave_h_[i]);
        }
      }
    };
    mark_suspects(true);
    for (int round = 0; round < 3; ++round) {
      XCORR_RETURN_IF_ERROR(run_waves());
      if (!mark_suspects(round < 2)) break;
    }
    return Status::ok();
  }

  template <class T>
  static Status upload(const T* host, std::size_t n, DeviceBuffer<T>& dev, cudaStream_t stream) {
    XCORR_RETURN_IF_ERROR(dev.allocate(n));
    XCORR_CUDA_TRY(cudaMemcpyAsync(dev.get(), host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
    return Status::ok();
  }

  static Status upload_image(MatrixView<const float> image, DeviceBuffer<float>& dev,
                             cudaStream_t stream) {
    XCORR_RETURN_IF_ERROR(dev.allocate(static_cast<std::size_t>(image.rows * image.cols)));
    // Through the pinned staging (several host threads pack a whole frame), not a pageable copy.
    return upload_staged(
        {image.data, image.rows, image.cols, 1, image.row_stride, image.rows * image.row_stride},
        dev.get(), stream);
  }

  // Batches of gather -> `g` (device-resident) -> argmax; peak_[guess_of_[i]] = (u, v) of
  // guess[i], start_[guess_of_[i]] its refined start.
  Status integer_guess(const GpuCorrelator& g, const GuessPoint* guess, int n, int S, int win,
                       int cols, const dic::DicOptions& o, cudaStream_t stream) {
    for (int first = 0; first < n; first += kGuessBatch) {
      const int count = std::min(kGuessBatch, n - first);
      const CorrelationProblem shape = guess_shape(count, S, win, o);
      XCORR_RETURN_IF_ERROR(
          upload(guess + first, static_cast<std::size_t>(count), points_, stream));
      XCORR_RETURN_IF_ERROR(templates_.allocate(static_cast<std::size_t>(count) * S * S));
      XCORR_RETURN_IF_ERROR(windows_.allocate(static_cast<std::size_t>(count) * win * win));
      XCORR_RETURN_IF_ERROR(peaks_.allocate(static_cast<std::size_t>(count) * kPeakFields));
      XCORR_CUDA_TRY(cudaEventRecord(guess_ev_[0].get(), stream));
      gather_kernel<<<count, 128, 0, stream>>>(ref_img_.get(), def_->img.get(), cols, points_.get(),
                                               S, win, templates_.get(), windows_.get());
      XCORR_LAUNCH_TRY("gather_kernel");
      XCORR_CUDA_TRY(cudaEventRecord(guess_ev_[1].get(), stream));
      const DeviceProblem dp = make_device_problem(shape, templates_.get(), windows_.get());
      XCORR_RETURN_IF_ERROR(g.run_device(dp, peaks_.get(), stream));
      XCORR_CUDA_TRY(cudaEventRecord(guess_ev_[2].get(), stream));
      guess_from_peaks_kernel<<<(count + 127) / 128, 128, 0, stream>>>(
          peaks_.get(), count, points_.get(), S, guess_of_.get() + first, peak_.get());
      XCORR_LAUNCH_TRY("guess_from_peaks_kernel");
      XCORR_RETURN_IF_ERROR(fit_starts(count, guess_of_.get() + first, S, win, cols, stream));
    }
    return Status::ok();
  }

  // The strips of every chunk (planned on the host's threads) -> the device, then the search;
  // peak_[guess_of_[i]] = (u, v) of guess i, start_[guess_of_[i]] its refined start. Timed as
  // the guess's search (no gather).
  Status strip_integer_guess(int n, int S, int win, std::size_t budget, int rows, int cols,
                             cudaStream_t stream) {
    std::size_t n_strips = 0;
    for (const Chunk& ch : chunks_) n_strips += ch.strips.size();
    XCORR_RETURN_IF_ERROR(strips_h_.allocate(n_strips));
    std::size_t at = 0;
    for (const Chunk& ch : chunks_) {
      std::copy(ch.strips.begin(), ch.strips.end(), strips_h_.get() + at);
      at += ch.strips.size();
    }
    XCORR_RETURN_IF_ERROR(upload(guess_h_.get(), static_cast<std::size_t>(n), points_, stream));
    XCORR_RETURN_IF_ERROR(upload(strips_h_.get(), n_strips, strips_, stream));
    XCORR_CUDA_TRY(cudaEventRecord(guess_ev_[0].get(), stream));
    XCORR_CUDA_TRY(cudaEventRecord(guess_ev_[1].get(), stream));
    StripSearch s;
    s.ref = ref_img_.get(), s.def = def_->img.get();
    s.rows = rows, s.cols = cols;
    s.ref_mean = ref_mean_.get(), s.def_mean = def_->mean.get();
    s.guesses = points_.get(), s.strips = strips_.get();
    s.strip_count = static_cast<int>(n_strips);
    s.subset = S, s.window = win, s.budget = budget;
    s.dest = guess_of_.get(), s.start = peak_.get();
    XCORR_RETURN_IF_ERROR(strip_guess(s, stream));
    XCORR_RETURN_IF_ERROR(fit_starts(n, guess_of_.get(), S, win, cols, stream));
    XCORR_CUDA_TRY(cudaEventRecord(guess_ev_[2].get(), stream));
    return Status::ok();
  }

  // The refined starts of the `n` guesses in points_ (core/dic/guess_fit.hpp): start_[dest[i]]
  // from peak_[dest[i]].
  Status fit_starts(int n, const int* dest, int S, int win, int cols, cudaStream_t stream) {
    GuessFitArgs a;
    a.ref = ref_img_.get(), a.def = def_->img.get(), a.cols = cols;
    a.guesses = points_.get(), a.count = n, a.subset = S, a.window = win;
    a.dest = dest, a.peak = peak_.get(), a.start = start_.get();
    return fit_guesses(a, stream);
  }

  // `method`: auto, a variant name, or "name:param=value,..." (a configured variant, kept).
  Result<const Correlator*> guess_variant(const CorrelationProblem& shape,
                                          const std::string& method) {
    const std::size_t colon = method.find(':');
    if (colon == std::string::npos) return choose_variant(engine_, shape, method, "gpu");
    auto base = choose_variant(engine_, shape, method.substr(0, colon), "gpu");
    if (!base.is_ok()) return base.status();
    if (configured_text_ != method) {
      auto made = configure_variant(engine_, method.substr(0, colon), method.substr(colon + 1));
      if (!made.is_ok()) return made.status();
      configured_ = std::move(made).value();
      configured_text_ = method;
    }
    return configured_.get();
  }

  const Registry& engine_;
  int device_ = 0;  // the CUDA device it works on
  std::unique_ptr<Correlator> configured_;
  std::string configured_text_;
  double last_seconds_ = -1;
  GpuDicStages stages_;
  CudaEvent ev_[4], guess_ev_[3], ref_ev_[2];
  CudaStream coefficients_;  // the frame's coefficients beside the integer guess
  CudaEvent side_ready_;     // what the main stream held when they were enqueued
  // Host lists and results of the last frame (pinned, reused; see register_frame).
  PinnedBuffer<int> guess_of_h_;  // per guess: its index among the listed (active) points
  PinnedBuffer<double> cx_h_, cy_h_;
  PinnedBuffer<GuessPoint> guess_h_;
  PinnedBuffer<dic::GuessStrip> strips_h_;
  PinnedBuffer<IcgnOut> results_h_;
  dic::FrameRegistration reg_;
  // The grid's chunks for the host passes: grid points [begin, end), their listed (active)
  // points from first_listed, their guesses from first_guess.
  struct Chunk {
    std::size_t begin = 0, end = 0;
    int listed = 0, guessed = 0, first_listed = 0, first_guess = 0;
    std::vector<dic::GuessStrip> strips;  // of its guesses, when the guess goes by strips
    // reg_.points[begin, end) hold only defaults: a chunk without listed points, written so
    // once and skipped while it stays so (a GPU's part of a shared frame leaves most chunks so).
    bool defaults = false;
  };
  std::vector<Chunk> chunks_ = std::vector<Chunk>(kHostChunks);
  DeviceBuffer<float> ref_img_, templates_, windows_, peaks_;
  DeviceBuffer<float> ref_c_;
  PixelTable ref_table_;      // of ref_c_ when table_fresh_
  bool table_fresh_ = false;  // ref_table_ holds ref_c_'s table
  bool on_pixels_ = false;    // the last frame's listed points are all pixel centres
  DeviceBuffer<double> cx_, cy_;
  BsplineScratch bspline_;  // the coefficients' float64 work
  // What the reference's coefficients were computed with.
  dic::Interpolation ref_interpolation_ = dic::Interpolation::quintic;
  double ref_prefilter_ = -1;
  Deformed slots_[2];
  Deformed* def_ = &slots_[0];   // the frame registered last
  Deformed* next_ = &slots_[1];  // a preloaded frame (preload())
  PinnedBuffer<float> next_h_;   // its pixels, for an upload that does not hold the host
  CudaEvent next_uploaded_;      // next_h_ may be written again
  dic::math::NoiseModel noise_;
  DeviceBuffer<int2> peak_;      // per listed point: the integer guess (u, v), px
  DeviceBuffer<double2> start_;  // and IC-GN's start from it (guess_fit), px
  // The reliability waves' points: positions, start warps (6 each), results.
  DeviceBuffer<double> wave_cx_, wave_cy_, wave_start_;
  DeviceBuffer<IcgnOut> wave_out_;
  std::vector<IcgnOut> wave_h_;
  DeviceBuffer<int> guess_of_;
  DeviceBuffer<GuessPoint> points_;
  DeviceBuffer<dic::GuessStrip> strips_;
  ImageMean ref_mean_;  // of ref_img_
  DeviceBuffer<IcgnOut> out_;
  DeviceBuffer<IcgnFactor> factor_;  // first-order IC-GN's, for the points' sigma
};

}  // namespace

Result<std::unique_ptr<dic::FrameRegistrar>> make_gpu_registrar(const Registry& engine) {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();
    return Status{ErrorCode::unsupported,
                  std::string("no usable CUDA device: ") +
                      (e != cudaSuccess ? cudaGetErrorString(e) : "none found")};
  }
  return std::unique_ptr<dic::FrameRegistrar>(std::make_unique<GpuRegistrar>(engine));
}

Result<std::string> gpu_guess_method(const Registry& engine, const dic::DicOptions& o, int rows,
                                     int cols, Index points) {
  if (strip_method(o) && strip_budget(o.subset, guess_window(o, rows, cols)) > 0)
    return std::string(kStripGuessMethod);
  return dic::frame_guess_method(engine, o.method, o.accuracy, rows, cols, o.subset,
                                 o.search_radius, points, kGuessBatch, "gpu");
}

double last_gpu_frame_seconds(const dic::FrameRegistrar& r) {
  const auto* g = dynamic_cast<const TimedRegistrar*>(&r);
  return g != nullptr ? g->last_seconds() : -1;
}

GpuDicStages last_gpu_stage_seconds(const dic::FrameRegistrar& r) {
  const auto* g = dynamic_cast<const TimedRegistrar*>(&r);
  return g != nullptr ? g->stages() : GpuDicStages{};
}

}  // namespace xcorr::gpu
