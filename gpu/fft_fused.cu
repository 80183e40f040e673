// gpu_fft_fused: FFT correlation in three kernels of our own (four for n_to_m), with padding,
// product and crop fused into the transforms (gpu_fft runs a pad kernel, cuFFT, a multiply kernel,
// cuFFT and a crop kernel, each through device memory). Overview, transform NY x NX (powers of two,
// 64 to 1024):
// 1. rows: each row of every distinct input is read once, zero-padded on load, and transformed
//    along x, two real rows per complex FFT (z = a + ib); the half spectra (NX / 2 + 1 values,
//    in the transform's bit-reversed storage order) of rows inside the inputs go to device memory
//    (rows past an input are zero and are not stored).
// 2. columns: per pair and per group of columns, the left and the right columns are read
//    (zero rows implied), transformed along y, multiplied (FL conj FR in full mode, FR conj FL in
//    valid mode, scaled by 1 / (NY NX)), transformed back, and the rows the output needs are
//    stored, already shifted to output row order.
//    Where the pairs reuse the rights (n_to_m), a kernel 2a first transforms each input's
//    columns once and stores them whole; kernel 2 then only multiplies and inverts.
// 3. inverse rows: two output rows per complex inverse FFT (Hermitian halves expanded on load);
//    the store crops and shifts the columns into the output.
// Device memory traffic: the inputs, two passes of half spectra, the output; no padded copies.
// When it wins: transforms of 256 and up, and batches at 128 (run 71: one_to_one 512,
// one_to_many 64 x64 to 256 x16, n_to_m 128 and 256, n_to_mn 128 x256).
// Constraints: NY, NX <= 1024 (full mode: inputs up to 512 x 512; valid: windows up to 1024; the
// sizes the device tests cover). Larger problems run on gpu_fft.
// ZNCC through the shared epilogue. Instantiations: 5 sizes x 5 kernels (rows, columns per
// input, columns from row spectra or from column spectra, inverse rows).
#include <algorithm>
#include <memory>
#include <mutex>
#include <type_traits>

#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_model.cuh"
#include "gpu/fft_stages.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/graph_replay.cuh"
#include "gpu/once_per_device.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {
namespace {

constexpr int kMinN = 64, kMaxN = 1024;
constexpr int kThreads = 256;

// Rows of all inputs, lefts then rights: the rows kernel's input and the row spectra's count.
__host__ __device__ inline long long input_rows(const DeviceProblem& p) {
  return static_cast<long long>(p.n_left) * p.left_rows +
         static_cast<long long>(p.n_right) * p.right_rows;
}

// Lines a block transforms at once: 4096 complex values (32 KiB) per array.
template <int N>
constexpr int lines_per_block() {
  return 4096 / N;
}
// Stages per pass after the first: 4 where that saves a pass through shared memory (256: 4 + 4
// instead of 2 + 3 + 3), else 3.
template <int N>
constexpr int later_group() {
  return N == 256 ? 4 : 3;
}
// Line layout in shared memory. Up to 256 the lines of a pass's warp differ, and a pitch of N + 1
// spreads them over the banks; from 512 a warp works on few lines, and a gap after every 2^skew
// values plus a pitch offset makes the passes conflict-free (inverse 1024: 1.33 wavefronts per
// ideal one; unskewed, 1.67 / 3.33 forward at 512 / 1024). scripts/gpu/fft_stage_banks.py counts
// the passes' float2 accesses; ncu (run 64) saw 1024's row kernel's conflicts fall from 598 k to
// 195 k (the rest: the half-spectrum and mirror accesses around the passes).
template <int N>
constexpr int skew_of() {
  return N == 512 || N == 1024 ? 3 : 0;
}
template <int N>
constexpr int pitch_of() {
  return N == 512 ? 578 : N == 1024 ? 1156 : N + 1;
}
// Slot of value x of line l.
template <int N>
__device__ __forceinline__ int at(int l, int x) {
  return l * pitch_of<N>() + fft::skewed<skew_of<N>()>(x);
}
// Resident blocks per SM that the row kernel and the product-column kernel are compiled for
// (__launch_bounds__'s second argument caps registers at 65536 / (256 x blocks)); the other two
// kernels pick their own (76-96 and 78-122 registers, no spills).
// - Row kernel: 2 (128 registers; 1024 needed 140 without the cap, one block per SM).
// - Product columns: 3 up to 256 (80 registers; their two line arrays also let 3 blocks share an
//   SM). Run 72 (H200, kernel_ms, every kernel at 3 against no cap): n_to_m 128 8x8 0.0482 /
//   0.0500 ms, n_to_mn 128 x256 0.2022 / 0.2166 ms. From 512 they would spill 200 bytes (n_to_m
//   256 4x4 slowed from 0.0578 to 0.0718 ms): 2 there.
template <int N>
constexpr int column_min_blocks() {
  return N <= 256 ? 3 : 2;
}
constexpr int kRowMinBlocks = 2;

// Kernels 1 and 3: one array of lines and the twiddles; kernel 2: two arrays (left, right).
template <int N>
constexpr int row_shared_bytes() {
  return static_cast<int>(sizeof(float2)) * (lines_per_block<N>() * pitch_of<N>() + N / 2);
}
template <int N>
constexpr int column_shared_bytes() {
  return static_cast<int>(sizeof(float2)) * (2 * lines_per_block<N>() * pitch_of<N>() + N / 2);
}

// Transform sizes (powers of two) for a problem; 0 where one exceeds kMaxN.
struct Sizes {
  int ny = 0, nx = 0;
  int cx() const { return nx / 2 + 1; }  // half-spectrum length
};
int pow2_at_least(long long n) {
  int p = kMinN;
  while (p < n && p <= kMaxN) p *= 2;
  return p <= kMaxN ? p : 0;
}
Sizes sizes_for(Mode mode, long long lh, long long lw, long long rh, long long rw) {
  if (mode == Mode::full) return {pow2_at_least(lh + rh - 1), pow2_at_least(lw + rw - 1)};
  return {pow2_at_least(rh), pow2_at_least(rw)};
}
Sizes sizes_for(const DeviceProblem& p) {
  return sizes_for(p.request.mode, p.left_rows, p.left_cols, p.right_rows, p.right_cols);
}

// Half spectra are kept in the forward transform's bit-reversed storage order, which the inverse
// rows read directly (the columns do not care about their order): storage index 2j for j < N / 2
// holds the frequencies 0 .. N / 2 - 1, index 1 holds N / 2. The other half is their mirror.
template <int N>
__device__ __forceinline__ int half_index(int j) {
  return j < N / 2 ? 2 * j : 1;
}

// Kernel 1. Real rows q = 0 .. rows - 1 of every input in one sequence (left matrices' rows,
// then right ones'; row q of the lefts is at left + q * lw): line j transforms rows 2j and 2j + 1.
// spec[q][j], j <= NX / 2: the row's half spectrum (see half_index; pitch cx).
template <int NX>
__global__ void __launch_bounds__(kThreads, kRowMinBlocks)
    fused_rows_kernel(DeviceProblem p, float2* __restrict__ spec) {
  // Compile-time sizes: every division and remainder below is by a constant.
  constexpr int kL = lines_per_block<NX>(), kP = pitch_of<NX>(), cx = NX / 2 + 1;
  extern __shared__ float2 smem[];
  float2* z = smem;
  float2* tw = smem + kL * kP;
  fft::fill_twiddles<NX, kThreads>(tw);
  const long long left_rows = static_cast<long long>(p.n_left) * p.left_rows;
  const long long rows = input_rows(p);
  const long long lines = (rows + 1) / 2;
  for (long long j0 = static_cast<long long>(blockIdx.x) * kL; j0 < lines;
       j0 += static_cast<long long>(gridDim.x) * kL) {
    __syncthreads();  // the previous lines have been read out
    // The block's rows q0 .. q0 + 2 kL - 1, from two bases with 32-bit offsets: left rows from
    // lb, right rows (q >= left_rows) from rb (row r0 of the rights).
    const long long q0 = 2 * j0, r0 = q0 > left_rows ? q0 - left_rows : 0;
    const float* lb = p.left + (q0 < left_rows ? q0 : 0) * p.left_cols;
    const float* rb = p.right + r0 * p.right_cols;
    // Every load of the thread issued before the first store (one global latency, not 16).
    constexpr int kIters = kL * NX / kThreads;
    float2 v[kIters];
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int e = it * kThreads + threadIdx.x, l = e / NX, x = e % NX;
      float ab[2];
#pragma unroll
      for (int u = 0; u < 2; ++u) {
        const long long q = q0 + 2 * l + u;
        const bool left = q < left_rows;
        const int row = static_cast<int>(left ? q - q0 : q - left_rows - r0);
        const int width = left ? p.left_cols : p.right_cols;
        ab[u] = q < rows && x < width ? __ldg((left ? lb : rb) + row * width + x) : 0.0f;
      }
      v[it] = make_float2(ab[0], ab[1]);
    }
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int e = it * kThreads + threadIdx.x;
      z[at<NX>(e / NX, e % NX)] = v[it];
    }
    __syncthreads();
    const int n = static_cast<int>(std::min<long long>(kL, lines - j0));
    fft::transform_lines<NX, kThreads, kP, true, true, later_group<NX>(), skew_of<NX>()>(z, tw, n);
    // Z = A + iB: A(k) = (Z(k) + conj Z(-k)) / 2, B(k) = (Z(k) - conj Z(-k)) / 2i, for the
    // half spectrum's storage indices (see half_index).
    for (int e = threadIdx.x; e < n * cx; e += kThreads) {
      const int l = e / cx, i = half_index<NX>(e % cx);
      const float2 zk = z[at<NX>(l, i)], zm = z[at<NX>(l, fft::mirror_index<NX>(i))];
      const long long qa = 2 * (j0 + l);
      spec[qa * cx + e % cx] = make_float2(0.5f * (zk.x + zm.x), 0.5f * (zk.y - zm.y));
      if (qa + 1 < rows)
        spec[(qa + 1) * cx + e % cx] = make_float2(0.5f * (zk.y + zm.y), -0.5f * (zk.x - zm.x));
    }
  }
}

// kL columns k0 .. k0 + kL - 1 of an h-row block of half spectra (pitch cx; rows from h to NY
// and columns from cx are zero) into lines 0 .. kL - 1 of z; the thread's loads are issued
// before its stores. No barrier.
template <int NY>
__device__ __forceinline__ void load_columns(float2* z, const float2* __restrict__ src, int h,
                                             int cx, int k0) {
  constexpr int kL = lines_per_block<NY>(), kIters = kL * NY / kThreads;
  float2 v[kIters];
#pragma unroll
  for (int it = 0; it < kIters; ++it) {
    const int e = it * kThreads + threadIdx.x, y = e / kL, l = e % kL;  // threads: along k
    v[it] = y < h && k0 + l < cx ? src[y * cx + l] : make_float2(0, 0);
  }
#pragma unroll
  for (int it = 0; it < kIters; ++it) {
    const int e = it * kThreads + threadIdx.x;
    z[at<NY>(e % kL, e / kL)] = v[it];
  }
}

// Kernel 2a, for inputs that several pairs use (see per_input_columns): work item (input i,
// columns k0 ..): the input's columns, forward along y, all NY values stored:
// cols[i][y][k] (bit-reversed y order, pitch cx); inputs: the lefts, then the rights.
template <int NY>
__global__ void __launch_bounds__(kThreads)
    fused_forward_columns_kernel(DeviceProblem p, const float2* __restrict__ spec, int cx,
                                 float2* __restrict__ cols) {
  constexpr int kL = lines_per_block<NY>(), kP = pitch_of<NY>();
  extern __shared__ float2 smem[];
  float2* z = smem;
  float2* tw = smem + kL * kP;  // one array of lines: row_shared_bytes
  fft::fill_twiddles<NY, kThreads>(tw);
  const int chunks = (cx + kL - 1) / kL, inputs = p.n_left + p.n_right;
  const long long items = static_cast<long long>(inputs) * chunks;
  for (long long item = blockIdx.x; item < items; item += gridDim.x) {
    const int i = static_cast<int>(item / chunks), k0 = static_cast<int>(item % chunks) * kL;
    const bool left = i < p.n_left;
    const long long row0 = left ? static_cast<long long>(i) * p.left_rows
                                : static_cast<long long>(p.n_left) * p.left_rows +
                                      static_cast<long long>(i - p.n_left) * p.right_rows;
    __syncthreads();  // the previous item's columns have been read out
    load_columns<NY>(z, spec + row0 * cx + k0, left ? p.left_rows : p.right_rows, cx, k0);
    __syncthreads();
    fft::transform_lines<NY, kThreads, kP, true, true, later_group<NY>(), skew_of<NY>()>(z, tw, kL);
    float2* o = cols + static_cast<long long>(i) * NY * cx + k0;
    for (int e = threadIdx.x; e < NY * kL; e += kThreads) {
      const int y = e / kL, l = e % kL;
      if (k0 + l < cx) o[static_cast<long long>(y) * cx + l] = z[at<NY>(l, y)];
    }
  }
}

// Kernel 2. Work item (pair t0 + b, columns k0 .. k0 + kL - 1): the left's and the right's
// columns, product, inverse along y; prod[b][r][k] for output rows r (row r reads
// y = (r - rs) mod NY). kSpectra: the columns come transformed from kernel 2a (cols); else from
// the row spectra (rows past an input are zero) and are transformed here, once per pair.
template <int NY, bool kSpectra>
__global__ void __launch_bounds__(kThreads, column_min_blocks<NY>())
    fused_columns_kernel(DeviceProblem p, const float2* __restrict__ spec, int cx, int t0,
                         int batch, int rs, float scale, float2* __restrict__ prod) {
  constexpr int kL = lines_per_block<NY>(), kP = pitch_of<NY>();
  extern __shared__ float2 smem[];
  float2* z = smem;  // lines 0 .. kL - 1: left columns; kL .. 2 kL - 1: right columns
  float2* tw = smem + 2 * kL * kP;
  fft::fill_twiddles<NY, kThreads>(tw);
  const bool full = p.request.mode == Mode::full;
  const int out_rows = p.out_rows;
  // Rows of a left and of a right in `spec`, and where the rights start.
  const int lh = kSpectra ? NY : p.left_rows, rh = kSpectra ? NY : p.right_rows;
  const long long right0 = static_cast<long long>(p.n_left) * lh;
  const int chunks = (cx + kL - 1) / kL;
  const long long items = static_cast<long long>(batch) * chunks;
  for (long long item = blockIdx.x; item < items; item += gridDim.x) {
    const int b = static_cast<int>(item / chunks), k0 = static_cast<int>(item % chunks) * kL;
    const int2 lr = p.pair(t0 + b);
    __syncthreads();  // the previous item's columns have been read out
    load_columns<NY>(z, spec + static_cast<long long>(lr.x) * lh * cx + k0, lh, cx, k0);
    load_columns<NY>(z + kL * kP, spec + (right0 + static_cast<long long>(lr.y) * rh) * cx + k0, rh,
                     cx, k0);
    __syncthreads();
    if constexpr (!kSpectra) {
      // Left and right apart: kL lines per pass is what the layout is conflict-free for.
      fft::transform_lines<NY, kThreads, kP, true, true, later_group<NY>(), skew_of<NY>()>(z, tw,
                                                                                           kL);
      fft::transform_lines<NY, kThreads, kP, true, true, later_group<NY>(), skew_of<NY>()>(
          z + kL * kP, tw, kL);
    }
    for (int e = threadIdx.x; e < kL * NY; e += kThreads) {
      const int l = e / NY, y = e % NY;
      const float2 fl = z[at<NY>(l, y)], fr = z[at<NY>(kL + l, y)];
      const float2 c = full ? fft::cmul_conj(fl, fr) : fft::cmul_conj(fr, fl);
      z[at<NY>(l, y)] = make_float2(c.x * scale, c.y * scale);
    }
    __syncthreads();
    fft::transform_lines<NY, kThreads, kP, true, false, later_group<NY>(), skew_of<NY>()>(z, tw,
                                                                                          kL);
    float2* o = prod + static_cast<long long>(b) * out_rows * cx + k0;
    for (int e = threadIdx.x; e < out_rows * kL; e += kThreads) {
      const int r = e / kL, l = e % kL;
      if (k0 + l >= cx) continue;
      int y = r - rs;
      if (y < 0) y += NY;
      o[static_cast<long long>(r) * cx + l] = z[at<NY>(l, y)];
    }
  }
}

// Kernel 3. Output rows s = 0 .. rows - 1 (pair-major, as the output), half spectra prod[s]:
// line j inverts rows 2j and 2j + 1 as one complex transform X = A + iB, X(-k) = conj A(k) +
// i conj B(k) (bit-reversed storage in, natural order out); out[s][c] reads column
// (c - cs) mod NX.
template <int NX>
__global__ void __launch_bounds__(kThreads)
    fused_inverse_rows_kernel(const float2* __restrict__ prod, long long rows, int out_cols, int cs,
                              float* __restrict__ out) {
  // Compile-time sizes: every division and remainder below is by a constant.
  constexpr int kL = lines_per_block<NX>(), kP = pitch_of<NX>(), cx = NX / 2 + 1;
  extern __shared__ float2 smem[];
  float2* z = smem;
  float2* tw = smem + kL * kP;
  fft::fill_twiddles<NX, kThreads>(tw);
  const long long lines = (rows + 1) / 2;
  for (long long j0 = static_cast<long long>(blockIdx.x) * kL; j0 < lines;
       j0 += static_cast<long long>(gridDim.x) * kL) {
    __syncthreads();  // the previous lines have been read out
    const int n = static_cast<int>(std::min<long long>(kL, lines - j0));
    constexpr int kIters = (kL * (NX / 2 + 1) + kThreads - 1) / kThreads;
    const float2* src = prod + 2 * j0 * cx;  // the block's rows, 32-bit offsets from here
    float2 va[kIters], vb[kIters];
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int e = it * kThreads + threadIdx.x, l = e / cx, k = e % cx;
      va[it] = l < n ? src[2 * l * cx + k] : make_float2(0, 0);
      vb[it] = l < n && 2 * (j0 + l) + 1 < rows ? src[(2 * l + 1) * cx + k] : make_float2(0, 0);
    }
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int e = it * kThreads + threadIdx.x, l = e / cx, k = e % cx;
      if (l >= n) continue;
      const float2 a = va[it], b = vb[it];
      const int i = half_index<NX>(k), m = fft::mirror_index<NX>(i);
      z[at<NX>(l, i)] = make_float2(a.x - b.y, a.y + b.x);
      if (m != i) z[at<NX>(l, m)] = make_float2(a.x + b.y, b.x - a.y);
    }
    __syncthreads();
    fft::transform_lines<NX, kThreads, kP, true, false, later_group<NX>(), skew_of<NX>()>(z, tw, n);
    // Output rows by warps, columns by lanes (no division by the run-time width).
    constexpr int kWarps = kThreads / 32;
    for (int w = threadIdx.x / 32; w < 2 * n; w += kWarps) {
      const int l = w / 2, half = w % 2;
      const long long s = 2 * (j0 + l) + half;
      if (s >= rows) continue;
      float* o = out + s * out_cols;
      for (int c = threadIdx.x % 32; c < out_cols; c += 32) {
        int x = c - cs;
        if (x < 0) x += NX;
        const float2 v = z[at<NX>(l, x)];
        o[c] = half == 0 ? v.x : v.y;
      }
    }
  }
}

// The instantiated transform sizes: 64 to 1024 (can_implement refuses the rest).
template <class F>
auto with_size(int n, F&& f) {
  return fft::with_size<kMinN, kMaxN>(n, static_cast<F&&>(f));
}

// Blocks for `items` work items: enough for every SM several times over, at most one per item.
int grid_for(long long items) {
  return static_cast<int>(std::clamp<long long>(items, 1, 16LL * sm_count()));
}

template <int N>
cudaError_t opt_in_shared() {
  static OncePerDevice once;
  return once([] {
    cudaError_t r = cudaFuncSetAttribute(
        fused_rows_kernel<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, row_shared_bytes<N>());
    if (r == cudaSuccess)
      r = cudaFuncSetAttribute(fused_inverse_rows_kernel<N>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, row_shared_bytes<N>());
    for (const void* k : {reinterpret_cast<const void*>(&fused_columns_kernel<N, false>),
                          reinterpret_cast<const void*>(&fused_columns_kernel<N, true>),
                          reinterpret_cast<const void*>(&fused_forward_columns_kernel<N>)}) {
      if (r == cudaSuccess)
        r = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 column_shared_bytes<N>());  // >= row_shared_bytes
    }
    return r;
  });
}

// Whether the inputs' columns are transformed once per input (kernel 2a) rather than once per
// pair: where every right serves two pairs or more (n_to_m with n >= 2). Where rights serve one
// pair each, writing and re-reading their whole column spectra costs more than the left's reuse
// saves (run 67, kernel_ms per input / per pair: one_to_many 256 x16 0.0830 / 0.0754 ms;
// n_to_m 128 8x8 0.0611 / 0.0649).
bool per_input_columns(const DeviceProblem& p) {
  return p.out_count >= 2 * p.n_right;
}

class FftFusedCorrelator final : public GpuCorrelator {
 public:
  const VariantInfo& info() const override { return info_; }

  Status can_implement(const CorrelationProblem& p) const override {
    XCORR_RETURN_IF_ERROR(Correlator::can_implement(p));
    const Sizes s = sizes_for(p.request.mode, p.left.rows, p.left.cols, p.right.rows, p.right.cols);
    if (s.ny == 0 || s.nx == 0)
      return {ErrorCode::unsupported,
              "gpu_fft_fused: the padded transform exceeds 1024 in a dimension (full mode: "
              "inputs up to 512; valid mode: windows up to 1024)"};
    // The product-column kernel's two line arrays are its largest block (>= the row kernels').
    const auto largest = [](int n) {
      return with_size(n, [](auto size) { return column_shared_bytes<decltype(size)::value>(); });
    };
    return check_shared_bytes(
        "gpu_fft_fused", std::max(largest(s.nx), largest(s.ny)),
        " for transforms of " + std::to_string(s.ny) + " x " + std::to_string(s.nx));
  }

  double kernel_seconds(const CorrelationProblem& p) const override {
    const Sizes s = sizes_for(p.request.mode, p.left.rows, p.left.cols, p.right.rows, p.right.cols);
    const double cx = s.cx();
    const double in_rows =
        static_cast<double>(p.left.count * p.left.rows + p.right.count * p.right.rows);
    const double pairs = static_cast<double>(p.output_count());
    const Shape out = p.surface_shape();
    // Device memory bytes of the three kernels: inputs, spectra written and read per pair,
    // products written and read, output. Fitted to run 64 (H200, kernel_ms of the anchor cases,
    // docs/perf/gpu-engine.md): ~22 us for the three launches of a small problem, then ~1.55 TB/s
    // of these bytes (the kernels are latency-bound at 12-23 % occupancy, not at DRAM's rate).
    const double bytes = in_rows * s.nx * 4 + in_rows * cx * 8 +
                         pairs * (p.left.rows + p.right.rows) * cx * 8 +
                         2 * pairs * out.rows * cx * 8 + pairs * out.rows * out.cols * 4;
    return 22e-6 + bytes / memory_rate(1.55e12) + transfer_seconds(p);
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    const Sizes s = sizes_for(p);
    std::vector<Launch> l;
    with_size(s.nx, [&](auto size) {
      constexpr int N = decltype(size)::value;
      l.push_back({"fused_rows_kernel", reinterpret_cast<const void*>(&fused_rows_kernel<N>),
                   kThreads, row_shared_bytes<N>()});
    });
    with_size(s.ny, [&](auto size) {
      constexpr int N = decltype(size)::value;
      if (per_input_columns(p)) {
        l.push_back({"fused_forward_columns_kernel",
                     reinterpret_cast<const void*>(&fused_forward_columns_kernel<N>), kThreads,
                     row_shared_bytes<N>()});
        l.push_back({"fused_columns_kernel",
                     reinterpret_cast<const void*>(&fused_columns_kernel<N, true>), kThreads,
                     column_shared_bytes<N>()});
      } else {
        l.push_back({"fused_columns_kernel",
                     reinterpret_cast<const void*>(&fused_columns_kernel<N, false>), kThreads,
                     column_shared_bytes<N>()});
      }
    });
    with_size(s.nx, [&](auto size) {
      constexpr int N = decltype(size)::value;
      l.push_back({"fused_inverse_rows_kernel",
                   reinterpret_cast<const void*>(&fused_inverse_rows_kernel<N>), kThreads,
                   row_shared_bytes<N>()});
    });
    return l;
  }

  double kernel_workspace_bytes(const DeviceProblem& p) const override {
    const Sizes s = sizes_for(p);
    const double in_rows = static_cast<double>(input_rows(p));
    const double cols = per_input_columns(p) ? static_cast<double>(p.n_left + p.n_right) * s.ny : 0;
    return (in_rows + cols + static_cast<double>(p.out_count) * p.out_rows) * s.cx() * 8;
  }

  // Allocations here; the launches are replayed as a CUDA graph when the same problem, inputs,
  // output and work buffers come again (gpu/graph_replay.cuh).
  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const Sizes s = sizes_for(p);
    if (s.ny == 0 || s.nx == 0)
      return {ErrorCode::unsupported, "gpu_fft_fused: transform larger than 1024"};
    XCORR_CUDA_TRY((with_size(s.nx, [](auto n) { return opt_in_shared<decltype(n)::value>(); })));
    XCORR_CUDA_TRY((with_size(s.ny, [](auto n) { return opt_in_shared<decltype(n)::value>(); })));
    std::lock_guard lock(mutex_);  // the work buffers and graphs
    const int cx = s.cx();
    const long long in_rows = input_rows(p);
    XCORR_RETURN_IF_ERROR(spec_.allocate(static_cast<std::size_t>(in_rows * cx)));
    if (per_input_columns(p))
      XCORR_RETURN_IF_ERROR(cols_.allocate(static_cast<std::size_t>(p.n_left + p.n_right) *
                                           static_cast<std::size_t>(s.ny) * cx));
    // Products in chunks of pairs that fit in a quarter of the free memory.
    const long long per_pair = static_cast<long long>(p.out_rows) * cx;
    int chunk = p.out_count;
    if (prod_.size() < static_cast<std::size_t>(p.out_count * per_pair)) {
      auto fit = items_in_free_memory(static_cast<double>(per_pair) * 8, p.out_count);
      if (!fit.is_ok()) return fit.status();
      chunk = fit.value();
    }
    XCORR_RETURN_IF_ERROR(prod_.allocate(static_cast<std::size_t>(chunk * per_pair)));
    if (chunk != p.out_count) return enqueue(p, s, chunk, out, stream);  // chunked: direct
    GraphKey key = graph_key(p, out);
    for (const void* b :
         {static_cast<const void*>(spec_.get()), static_cast<const void*>(cols_.get()),
          static_cast<const void*>(prod_.get())})
      key.push_back(reinterpret_cast<std::uintptr_t>(b));
    return graphs_.run(key, stream, [&](cudaStream_t st) { return enqueue(p, s, chunk, out, st); });
  }

 private:
  // The launches on `stream` (buffers allocated for `chunk` pairs of products).
  Status enqueue(const DeviceProblem& p, Sizes s, int chunk, float* out,
                 cudaStream_t stream) const {
    const int cx = s.cx();
    const bool per_input = per_input_columns(p);
    const long long in_rows = input_rows(p);
    with_size(s.nx, [&](auto size) {
      constexpr int N = decltype(size)::value;
      fused_rows_kernel<N><<<grid_for((in_rows + 1) / 2 / lines_per_block<N>() + 1), kThreads,
                             row_shared_bytes<N>(), stream>>>(p, spec_.get());
    });
    XCORR_LAUNCH_TRY("fused_rows_kernel");
    if (per_input) {
      with_size(s.ny, [&](auto size) {
        constexpr int N = decltype(size)::value;
        const long long items = static_cast<long long>(p.n_left + p.n_right) *
                                ((cx + lines_per_block<N>() - 1) / lines_per_block<N>());
        fused_forward_columns_kernel<N>
            <<<grid_for(items), kThreads, row_shared_bytes<N>(), stream>>>(p, spec_.get(), cx,
                                                                           cols_.get());
      });
      XCORR_LAUNCH_TRY("fused_forward_columns_kernel");
    }
    const bool full = p.request.mode == Mode::full;
    const int rs = full ? p.left_rows - 1 : 0, cs = full ? p.left_cols - 1 : 0;
    const float scale = 1.0f / (static_cast<float>(s.ny) * static_cast<float>(s.nx));
    const long long per_out = static_cast<long long>(p.out_rows) * p.out_cols;
    for (int t0 = 0; t0 < p.out_count; t0 += chunk) {
      const int batch = std::min(chunk, p.out_count - t0);
      with_size(s.ny, [&](auto size) {
        constexpr int N = decltype(size)::value;
        const long long items = static_cast<long long>(batch) *
                                ((cx + lines_per_block<N>() - 1) / lines_per_block<N>());
        if (per_input)
          fused_columns_kernel<N, true>
              <<<grid_for(items), kThreads, column_shared_bytes<N>(), stream>>>(
                  p, cols_.get(), cx, t0, batch, rs, scale, prod_.get());
        else
          fused_columns_kernel<N, false>
              <<<grid_for(items), kThreads, column_shared_bytes<N>(), stream>>>(
                  p, spec_.get(), cx, t0, batch, rs, scale, prod_.get());
      });
      XCORR_LAUNCH_TRY("fused_columns_kernel");
      const long long rows = static_cast<long long>(batch) * p.out_rows;
      with_size(s.nx, [&](auto size) {
        constexpr int N = decltype(size)::value;
        fused_inverse_rows_kernel<N>
            <<<grid_for((rows + 1) / 2 / lines_per_block<N>() + 1), kThreads, row_shared_bytes<N>(),
               stream>>>(prod_.get(), rows, p.out_cols, cs, out + t0 * per_out);
      });
      XCORR_LAUNCH_TRY("fused_inverse_rows_kernel");
    }
    return Status::ok();
  }

  mutable std::mutex mutex_;
  // Work buffers kept between runs (the engine thread owns the GPU); grown when needed.
  mutable DeviceBuffer<float2> spec_, cols_, prod_;
  mutable GraphReplay graphs_;
  VariantInfo info_{"gpu_fft_fused",
                    "fft",
                    "gpu",
                    "own FFT kernels: rows (padding on load), columns with the product, inverse "
                    "rows (crop on store); transforms 64 to 1024",
                    kAllForms,
                    kBothModes,
                    {Normalization::none, Normalization::zncc}};
};

}  // namespace

std::unique_ptr<Correlator> make_fft_fused_correlator() {
  return std::make_unique<FftFusedCorrelator>();
}

}  // namespace xcorr::gpu
