// B-spline coefficients on the device (gpu/dic_bspline.cuh).
#include <algorithm>

#include "core/dic/icgn_math.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/dic_bspline.cuh"

namespace xcorr::gpu {
namespace {

namespace m = dic::math;

__global__ void to_double_kernel(const float* __restrict__ in, double* __restrict__ out,
                                 long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}
// The coefficients `in` (rows x cols) as float with `pad` continued ones around them
// (math::continued_coefficient): `out` is (rows + 2 pad) x (cols + 2 pad), row-major.
__global__ void to_float_kernel(const double* __restrict__ in, float* __restrict__ out, int rows,
                                int cols, int pad) {
  const long long pc = cols + 2LL * pad, n = (rows + 2LL * pad) * pc;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] =
        static_cast<float>(m::continued_coefficient(in, rows, cols, i / pc - pad, i % pc - pad));
}
template <int D>
__global__ void prefilter_rows_kernel(double* c, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) m::bspline_prefilter<D>(c + static_cast<long long>(r) * cols, cols, 1);
}
template <int D>
__global__ void prefilter_cols_kernel(double* c, int rows, int cols) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < cols) m::bspline_prefilter<D>(c + x, rows, cols);
}
// The Gaussian prefilter (DicOptions::prefilter, math::gaussian_at), one thread per pixel:
// along rows from the frame (float) into `out`, then along columns.
struct GaussianTaps {
  double w[2 * m::kMaxGaussianRadius + 1];
  int r;
};
__global__ void gaussian_rows_kernel(const float* __restrict__ in, double* __restrict__ out,
                                     int rows, int cols, GaussianTaps g) {
  const long long n = static_cast<long long>(rows) * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long y = i / cols;
    out[i] = m::gaussian_at(in + y * cols, cols, 1, i - y * cols, g.w, g.r);
  }
}
__global__ void gaussian_cols_kernel(const double* __restrict__ in, double* __restrict__ out,
                                     int rows, int cols, GaussianTaps g) {
  const long long n = static_cast<long long>(rows) * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long y = i / cols, x = i - y * cols;
    out[i] = m::gaussian_at(in + x, rows, cols, y, g.w, g.r);
  }
}

template <int D>
__global__ void pixel_table_kernel(const float* __restrict__ c, int rows, int cols,
                                   double* __restrict__ value, float* __restrict__ gx,
                                   float* __restrict__ gy) {
  const long long n = static_cast<long long>(rows) * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long y = i / cols, x = i - y * cols;
    double v, dx, dy;
    m::bspline_value_gradient<D>(c, rows, cols, static_cast<double>(x), static_cast<double>(y), v,
                                 dx, dy);
    value[i] = v;
    gx[i] = static_cast<float>(dx);
    gy[i] = static_cast<float>(dy);
  }
}

}  // namespace

Status bspline_pixel_table(const float* c, PixelTable& t, int rows, int cols,
                           const dic::DicOptions& o, cudaStream_t stream) {
  const long long n = static_cast<long long>(rows) * cols;
  XCORR_RETURN_IF_ERROR(t.value.allocate(static_cast<std::size_t>(n)));
  XCORR_RETURN_IF_ERROR(t.gx.allocate(static_cast<std::size_t>(n)));
  XCORR_RETURN_IF_ERROR(t.gy.allocate(static_cast<std::size_t>(n)));
  const int blocks = static_cast<int>(std::min<long long>((n + 255) / 256, 8192));
  if (o.interpolation == dic::Interpolation::quintic)
    pixel_table_kernel<5>
        <<<blocks, 256, 0, stream>>>(c, rows, cols, t.value.get(), t.gx.get(), t.gy.get());
  else
    pixel_table_kernel<3>
        <<<blocks, 256, 0, stream>>>(c, rows, cols, t.value.get(), t.gx.get(), t.gy.get());
  XCORR_LAUNCH_TRY("bspline pixel table kernel");
  return Status::ok();
}

Status bspline_coefficients(const float* image, DeviceBuffer<float>& c, int rows, int cols,
                            const dic::DicOptions& o, BsplineScratch& scratch, cudaStream_t stream,
                            int pad) {
  const long long n = static_cast<long long>(rows) * cols;
  XCORR_RETURN_IF_ERROR(scratch.work.allocate(static_cast<std::size_t>(n)));
  XCORR_RETURN_IF_ERROR(
      c.allocate(static_cast<std::size_t>((rows + 2LL * pad) * (cols + 2LL * pad))));
  const int blocks = static_cast<int>(std::min<long long>((n + 255) / 256, 4096));
  GaussianTaps g{};
  g.r = m::gaussian_taps(o.prefilter, g.w);
  double* work = scratch.work.get();
  if (g.r > 0) {
    XCORR_RETURN_IF_ERROR(scratch.smooth.allocate(static_cast<std::size_t>(n)));
    gaussian_rows_kernel<<<blocks, 256, 0, stream>>>(image, scratch.smooth.get(), rows, cols, g);
    gaussian_cols_kernel<<<blocks, 256, 0, stream>>>(scratch.smooth.get(), work, rows, cols, g);
  } else {
    to_double_kernel<<<blocks, 256, 0, stream>>>(image, work, n);
  }
  if (o.interpolation == dic::Interpolation::quintic) {
    prefilter_rows_kernel<5><<<(rows + 63) / 64, 64, 0, stream>>>(work, rows, cols);
    prefilter_cols_kernel<5><<<(cols + 63) / 64, 64, 0, stream>>>(work, rows, cols);
  } else {
    prefilter_rows_kernel<3><<<(rows + 63) / 64, 64, 0, stream>>>(work, rows, cols);
    prefilter_cols_kernel<3><<<(cols + 63) / 64, 64, 0, stream>>>(work, rows, cols);
  }
  to_float_kernel<<<blocks, 256, 0, stream>>>(work, c.get(), rows, cols, pad);
  XCORR_LAUNCH_TRY("bspline prefilter kernels");
  return Status::ok();
}

}  // namespace xcorr::gpu
