// The strip search of the DIC integer guess: see gpu/dic_guess_strips.cuh.
#include <algorithm>
#include <vector>

#include "core/zncc_rule.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_model.cuh"
#include "gpu/dic_guess.hpp"
#include "gpu/dic_guess_fit.cuh"
#include "gpu/dic_guess_strips.cuh"
#include "gpu/once_per_device.cuh"
#include "gpu/peak_key.cuh"

namespace xcorr::gpu {
namespace {

constexpr int RY = dic::kStripRows;
constexpr int BX = dic::kStripCols;
constexpr int kThreads = dic::kStripThreads;
constexpr int kMaxPoints = dic::kStripMaxPoints;
constexpr int kMeanBlocks = 256;  // fixed: the mean's summation order does not follow the device
constexpr int kMeanThreads = 256;

__device__ inline double warp_total(double v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ inline int round_up(int v, int m) {
  return (v + m - 1) / m * m;
}

// partial[b] = the sum of block b's pixels (a grid-stride loop over kMeanBlocks blocks).
__global__ void __launch_bounds__(kMeanThreads)
    mean_partial_kernel(const float* __restrict__ image, long long n,
                        double* __restrict__ partial) {
  __shared__ double warp_sums[kMeanThreads / 32];
  double v = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * kMeanThreads + threadIdx.x; i < n;
       i += static_cast<long long>(kMeanBlocks) * kMeanThreads)
    v += image[i];
  v = warp_total(v);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int w = 0; w < kMeanThreads / 32; ++w) t += warp_sums[w];
    partial[blockIdx.x] = t;
  }
}

__global__ void mean_final_kernel(const double* __restrict__ partial, long long n,
                                  double* __restrict__ mean) {
  double t = 0;
  for (int b = 0; b < kMeanBlocks; ++b) t += partial[b];
  *mean = n > 0 ? t / static_cast<double>(n) : 0.0;
}

struct StripArgs {
  StripSearch s;
  int L;  // displacements per axis: window - subset + 1
};

// One block per strip; the shared layout is core/dic/guess_strips.cpp's strip_smem_bytes.
__global__ void __launch_bounds__(kThreads) strip_guess_kernel(StripArgs a) {
  extern __shared__ __align__(16) unsigned char smem[];
  const StripSearch& s = a.s;
  const dic::GuessStrip st = s.strips[blockIdx.x];
  const int S = s.subset, h = S / 2, L = a.L, win = s.window, P = st.count;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  constexpr int kWarps = kThreads / 32;
  const dic::GuessWindow first = s.guesses[st.first];
  const int width = s.guesses[st.first + P - 1].x - first.x + S;  // the band's columns
  const int exa = round_up(st.ex, BX), eya = round_up(st.ey, RY);
  const int bp = width | 1;                 // band pitch
  const int fw = width + exa - 1;           // frame region's columns
  const int fp = fw | 1, fr = S + eya - 1;  // its pitch and rows

  // Per point: template sum, 1 / sqrt(its ss), the flat-window bound, best key, band column,
  // offsets, flat template.
  double* t_sum = reinterpret_cast<double*>(smem);
  double* t_inv = t_sum + kMaxPoints;   // 1 / sqrt(template ss)
  double* w_flat = t_inv + kMaxPoints;  // a subset of the window at most this ss is flat
  auto* best = reinterpret_cast<unsigned long long*>(w_flat + kMaxPoints);
  int* px = reinterpret_cast<int*>(best + kMaxPoints);
  int* pox = px + kMaxPoints;
  int* poy = pox + kMaxPoints;
  int* flat = poy + kMaxPoints;
  float* band = reinterpret_cast<float*>(flat + kMaxPoints);  // S x bp
  float* frame = band + S * bp;                               // fr x fp
  float* nc = frame + fr * fp;                                // RY x BX x bp: product sums
  float* cd = nc + RY * BX * bp;                              // RY x fp: frame column sums
  float* cd2 = cd + RY * fp;                                  //   of squares
  float* hs = cd2 + RY * fp;                                  // RY x fp: S-column sums of cd
  float* hs2 = hs + RY * fp;

  // 1. Staging, less the images' means (zero outside the frame: no point's window reads it).
  const float mt = static_cast<float>(*s.ref_mean), md = static_cast<float>(*s.def_mean);
  const int y0 = first.y - h, x0 = first.x - h;
  for (int r = warp; r < S; r += kWarps) {  // a warp per row, lanes along it
    const float* src = s.ref + static_cast<long long>(y0 + r) * s.cols + x0;
    for (int c = lane; c < width; c += 32) band[r * bp + c] = src[c] - mt;
  }
  const int fy0 = y0 + st.oy, fx0 = x0 + st.ox;
  for (int r = warp; r < fr; r += kWarps) {
    const int y = fy0 + r;
    const bool row_in = y >= 0 && y < s.rows;
    for (int c = lane; c < fw; c += 32) {
      const int x = fx0 + c;
      const bool in = row_in && x >= 0 && x < s.cols;
      frame[r * fp + c] = in ? s.def[static_cast<long long>(y) * s.cols + x] - md : 0.0f;
    }
  }
  if (tid < P) {
    const dic::GuessWindow g = s.guesses[st.first + tid];
    px[tid] = g.x - first.x;
    pox[tid] = g.wx - (g.x - h);
    poy[tid] = g.wy - (g.y - h);
    best[tid] = 0;
  }
  __syncthreads();

  // 2. Per point, a warp each (float64, lanes over fixed positions): the template's sum and ss
  //    and the flat rule; the window's variance (the flat-window rule's search variance).
  const double n = static_cast<double>(S) * S;
  for (int q = warp; q < P; q += kWarps) {
    // Lane l takes the elements l, l + 32, ... in row-major order (row and column carried).
    double ts = 0, ts2 = 0;
    for (int k = lane, r = lane / S, c = lane % S; k < S * S; k += 32) {
      const float v = band[r * bp + px[q] + c];
      ts += v;
      ts2 += static_cast<double>(v) * v;
      for (c += 32; c >= S; c -= S) ++r;
    }
    const float* wf = frame + (poy[q] - st.oy) * fp + px[q] + pox[q] - st.ox;
    double ws = 0, ws2 = 0;
    for (int k = lane, r = lane / win, c = lane % win; k < win * win; k += 32) {
      const float v = wf[r * fp + c];
      ws += v;
      ws2 += static_cast<double>(v) * v;
      for (c += 32; c >= win; c -= win) ++r;
    }
    ts = warp_total(ts), ts2 = warp_total(ts2);
    ws = warp_total(ws), ws2 = warp_total(ws2);
    if (lane == 0) {
      const double tss = fmax(0.0, ts2 - ts * ts / n), area = static_cast<double>(win) * win;
      t_sum[q] = ts;
      t_inv[q] = tss > 0 ? 1.0 / sqrt(tss) : 0.0;
      const double raw2 = ts2 + mt * (2 * ts + n * mt);  // the sum of the template's squares
      flat[q] = tss <= kFlatRelative * raw2 ? 1 : 0;
      // The flat-window rule's bound on a subset's ss (core/zncc_rule.hpp).
      w_flat[q] = kFlatRelative * n * (fmax(0.0, ws2 - ws * ws / area) / area);
    }
  }
  __syncthreads();

  // 3. Displacements in chunks of RY rows x BX columns (relative to (ox, oy)).
  const int hw = fw - S + 1;
  const double inv_n = 1.0 / n;
  for (int dy0 = 0; dy0 < eya; dy0 += RY) {
    // The frame's column sums over S rows at the chunk's RY rows, then their S-column sums.
    for (int i = tid; i < RY * fw; i += kThreads) {
      const int j = i / fw, c = i % fw;
      const float* f = frame + (dy0 + j) * fp + c;
      float v1 = 0, v2 = 0;
      for (int r = 0; r < S; ++r) {
        const float v = f[r * fp];
        v1 += v;
        v2 = fmaf(v, v, v2);
      }
      cd[j * fp + c] = v1;
      cd2[j * fp + c] = v2;
    }
    __syncthreads();
    for (int i = tid; i < RY * hw; i += kThreads) {
      const int j = i / hw, c = i % hw;
      float v1 = 0, v2 = 0;
      for (int k = 0; k < S; ++k) {
        v1 += cd[j * fp + c + k];
        v2 += cd2[j * fp + c + k];
      }
      hs[j * fp + c] = v1;
      hs2[j * fp + c] = v2;
    }
    for (int dx0 = 0; dx0 < exa; dx0 += BX) {
      // Product sums down each band column: nc[j][x][c] = sum_r band[r][c] *
      // frame[dy0 + j + r][c + dx0 + x]. w[(r + j) % RY] holds frame row dy0 + r + j.
      for (int i = tid; i < BX * width; i += kThreads) {
        const int x = i / width, c = i % width;
        const float* b = band + c;
        const float* f = frame + dy0 * fp + c + dx0 + x;
        float acc[RY], w[RY];
#pragma unroll
        for (int j = 0; j < RY; ++j) acc[j] = 0.0f, w[j] = 0.0f;
#pragma unroll
        for (int u = 0; u < RY - 1; ++u) w[u] = f[u * fp];
        int r0 = 0;
        for (; r0 + RY <= S; r0 += RY) {  // whole rounds of RY rows, then the rest
#pragma unroll
          for (int u = 0; u < RY; ++u) {
            const int r = r0 + u;
            w[(u + RY - 1) % RY] = f[(r + RY - 1) * fp];
            const float t = b[r * bp];
#pragma unroll
            for (int j = 0; j < RY; ++j) acc[j] = fmaf(t, w[(u + j) % RY], acc[j]);
          }
        }
#pragma unroll
        for (int u = 0; u < RY; ++u) {
          const int r = r0 + u;
          if (r < S) {
            w[(u + RY - 1) % RY] = f[(r + RY - 1) * fp];
            const float t = b[r * bp];
#pragma unroll
            for (int j = 0; j < RY; ++j) acc[j] = fmaf(t, w[(u + j) % RY], acc[j]);
          }
        }
#pragma unroll
        for (int j = 0; j < RY; ++j) nc[(j * BX + x) * bp + c] = acc[j];
      }
      __syncthreads();
      // Each point's ZNCC at the chunk's displacements within its own range.
      for (int i = tid; i < P * RY * BX; i += kThreads) {
        const int x = i % BX, j = (i / BX) % RY, q = i / (BX * RY);
        const int iy = st.oy + dy0 + j - poy[q], ix = st.ox + dx0 + x - pox[q];
        if (iy < 0 || iy >= L || ix < 0 || ix >= L) continue;
        const float* row = nc + (j * BX + x) * bp + px[q];
        float num = 0;
        for (int k = 0; k < S; ++k) num += row[k];
        const int hc = px[q] + dx0 + x;
        // core/zncc_rule.hpp's value and rules; the ratio in float32 (one rounding more).
        const double sd = hs[j * fp + hc], sd2 = hs2[j * fp + hc];
        const double numerator = num - t_sum[q] * sd * inv_n;
        const double w_ss = sd2 - sd * sd * inv_n;
        float z = 0.0f;
        if (flat[q] == 0 && w_ss > w_flat[q]) {
          z = static_cast<float>(numerator * t_inv[q]) * rsqrtf(static_cast<float>(w_ss));
          z = fminf(1.0f, fmaxf(-1.0f, z));
        }
        atomicMax(&best[q], peak_key(z, static_cast<unsigned>(iy * L + ix)));
      }
      __syncthreads();
    }
  }

  // 4. The maxima as displacements.
  if (tid < P) {
    const unsigned k = peak_key_index(best[tid]);
    s.start[s.dest[st.first + tid]] =
        make_int2(pox[tid] + static_cast<int>(k % L), poy[tid] + static_cast<int>(k / L));
  }
}

}  // namespace

Status ImageMean::compute(const float* image, std::size_t pixels, cudaStream_t stream) {
  XCORR_RETURN_IF_ERROR(partial_.allocate(kMeanBlocks));
  XCORR_RETURN_IF_ERROR(value_.allocate(1));
  const auto n = static_cast<long long>(pixels);
  mean_partial_kernel<<<kMeanBlocks, kMeanThreads, 0, stream>>>(image, n, partial_.get());
  XCORR_LAUNCH_TRY("mean_partial_kernel");
  mean_final_kernel<<<1, 1, 0, stream>>>(partial_.get(), n, value_.get());
  XCORR_LAUNCH_TRY("mean_final_kernel");
  return Status::ok();
}

std::size_t strip_budget(int subset, int window) {
  const DeviceInfo& d = current_device();
  const auto optin = static_cast<long long>(d.shared_memory_per_block_optin_bytes);
  const long long third = static_cast<long long>(d.shared_memory_per_multiprocessor_bytes) / 3 -
                          static_cast<long long>(d.reserved_shared_memory_per_block_bytes);
  const int L = window - subset + 1;
  const auto one = static_cast<long long>(dic::strip_smem_bytes(subset, subset, L, L));
  if (L < 1 || one > optin) return 0;
  return static_cast<std::size_t>(std::min(optin, std::max(third, one)));
}

Status strip_guess(const StripSearch& s, cudaStream_t stream) {
  if (s.strip_count == 0) return Status::ok();
  static OncePerDevice once;
  const cudaError_t e = once([] {
    return cudaFuncSetAttribute(strip_guess_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(max_shared_bytes_per_block()));
  });
  XCORR_RETURN_IF_ERROR(cuda_status(e, "cudaFuncSetAttribute(strip_guess_kernel)"));
  XCORR_RETURN_IF_ERROR(check_shared_bytes("the strip search of the integer guess",
                                           static_cast<long long>(s.budget)));
  const StripArgs args{s, s.window - s.subset + 1};
  strip_guess_kernel<<<s.strip_count, kThreads, s.budget, stream>>>(args);
  XCORR_LAUNCH_TRY("strip_guess_kernel");
  return Status::ok();
}

namespace {

Status upload_matrix(MatrixView<const float> m, DeviceBuffer<float>& dev) {
  std::vector<float> packed(static_cast<std::size_t>(m.rows * m.cols));
  for (Index r = 0; r < m.rows; ++r)
    std::copy(m.row(r), m.row(r) + m.cols, packed.begin() + r * m.cols);
  XCORR_RETURN_IF_ERROR(dev.allocate(packed.size()));
  XCORR_CUDA_TRY(
      cudaMemcpy(dev.get(), packed.data(), packed.size() * sizeof(float), cudaMemcpyHostToDevice));
  return Status::ok();
}

template <class T>
Status upload_vector(const std::vector<T>& v, DeviceBuffer<T>& dev) {
  XCORR_RETURN_IF_ERROR(dev.allocate(v.size()));
  XCORR_CUDA_TRY(cudaMemcpy(dev.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return Status::ok();
}

}  // namespace

Result<std::vector<std::array<int, 2>>> strip_guesses(MatrixView<const float> ref,
                                                      MatrixView<const float> def,
                                                      const std::vector<dic::GuessWindow>& points,
                                                      int subset, int window, std::size_t budget,
                                                      int max_span) {
  if (ref.rows != def.rows || ref.cols != def.cols)
    return Status{ErrorCode::invalid_argument, "the images differ in size"};
  if (budget == 0) budget = strip_budget(subset, window);
  std::vector<dic::GuessStrip> strips;
  const int n = static_cast<int>(points.size());
  if (budget == 0 ||
      !dic::plan_strips(points.data(), 0, n, subset, window, budget, max_span, strips)) {
    return Status{ErrorCode::unsupported, "one point's strip does not fit the shared memory"};
  }
  DeviceBuffer<float> r, d;
  DeviceBuffer<dic::GuessWindow> g;
  DeviceBuffer<dic::GuessStrip> st;
  DeviceBuffer<int> dest;
  DeviceBuffer<int2> start;
  XCORR_RETURN_IF_ERROR(upload_matrix(ref, r));
  XCORR_RETURN_IF_ERROR(upload_matrix(def, d));
  XCORR_RETURN_IF_ERROR(upload_vector(points, g));
  XCORR_RETURN_IF_ERROR(upload_vector(strips, st));
  std::vector<int> order(points.size());
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  XCORR_RETURN_IF_ERROR(upload_vector(order, dest));
  XCORR_RETURN_IF_ERROR(start.allocate(points.size()));
  XCORR_CUDA_TRY(cudaMemset(start.get(), 0x80, points.size() * sizeof(int2)));  // poison
  ImageMean mr, md;
  const auto pixels = static_cast<std::size_t>(ref.rows * ref.cols);
  XCORR_RETURN_IF_ERROR(mr.compute(r.get(), pixels, nullptr));
  XCORR_RETURN_IF_ERROR(md.compute(d.get(), pixels, nullptr));
  StripSearch s;
  s.ref = r.get(), s.def = d.get();
  s.rows = static_cast<int>(ref.rows), s.cols = static_cast<int>(ref.cols);
  s.ref_mean = mr.get(), s.def_mean = md.get();
  s.guesses = g.get(), s.strips = st.get();
  s.strip_count = static_cast<int>(strips.size());
  s.subset = subset, s.window = window, s.budget = budget;
  s.dest = dest.get(), s.start = start.get();
  XCORR_RETURN_IF_ERROR(strip_guess(s, nullptr));
  std::vector<int2> got(points.size());
  XCORR_CUDA_TRY(
      cudaMemcpy(got.data(), start.get(), got.size() * sizeof(int2), cudaMemcpyDeviceToHost));
  std::vector<std::array<int, 2>> out(got.size());
  for (std::size_t i = 0; i < got.size(); ++i) out[i] = {got[i].x, got[i].y};
  return out;
}

Result<std::vector<std::array<double, 2>>> guess_starts(
    MatrixView<const float> ref, MatrixView<const float> def,
    const std::vector<dic::GuessWindow>& points, const std::vector<std::array<int, 2>>& peaks,
    int subset, int window) {
  if (ref.rows != def.rows || ref.cols != def.cols || peaks.size() != points.size())
    return Status{ErrorCode::invalid_argument, "the images differ in size, or the peaks in count"};
  DeviceBuffer<float> r, d;
  DeviceBuffer<dic::GuessWindow> g;
  DeviceBuffer<int> dest;
  DeviceBuffer<int2> peak;
  DeviceBuffer<double2> start;
  XCORR_RETURN_IF_ERROR(upload_matrix(ref, r));
  XCORR_RETURN_IF_ERROR(upload_matrix(def, d));
  XCORR_RETURN_IF_ERROR(upload_vector(points, g));
  const int n = static_cast<int>(points.size());
  std::vector<int> order(points.size());
  std::vector<int2> p(points.size());
  for (int i = 0; i < n; ++i) {
    order[static_cast<std::size_t>(i)] = n - 1 - i;  // slots in reverse: dest is followed
    p[static_cast<std::size_t>(n - 1 - i)] =
        make_int2(peaks[static_cast<std::size_t>(i)][0], peaks[static_cast<std::size_t>(i)][1]);
  }
  XCORR_RETURN_IF_ERROR(upload_vector(order, dest));
  XCORR_RETURN_IF_ERROR(upload_vector(p, peak));
  XCORR_RETURN_IF_ERROR(start.allocate(points.size()));
  XCORR_CUDA_TRY(cudaMemset(start.get(), 0xff, points.size() * sizeof(double2)));  // NaN poison
  GuessFitArgs a;
  a.ref = r.get(), a.def = d.get(), a.cols = static_cast<int>(ref.cols);
  a.guesses = g.get(), a.count = n, a.subset = subset, a.window = window;
  a.dest = dest.get(), a.peak = peak.get(), a.start = start.get();
  XCORR_RETURN_IF_ERROR(fit_guesses(a, nullptr));
  std::vector<double2> got(points.size());
  XCORR_CUDA_TRY(
      cudaMemcpy(got.data(), start.get(), got.size() * sizeof(double2), cudaMemcpyDeviceToHost));
  std::vector<std::array<double, 2>> out(got.size());
  for (int i = 0; i < n; ++i) {
    const double2 v = got[static_cast<std::size_t>(n - 1 - i)];
    out[static_cast<std::size_t>(i)] = {v.x, v.y};
  }
  return out;
}

}  // namespace xcorr::gpu
