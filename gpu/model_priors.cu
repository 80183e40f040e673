// Model pieces shared by the GPU variants' priors (declared in gpu/variants.cuh).
#include "gpu/device_model.cuh"
#include "gpu/variants.cuh"

namespace xcorr::gpu {

double transfer_seconds(const CorrelationProblem& p) {
  const double bytes = 4.0 * static_cast<double>(p.left.rows * p.left.cols * p.left.count +
                                                 p.right.rows * p.right.cols * p.right.count +
                                                 p.output_shape().area() * p.output_count());
  return 10e-6 + bytes / 20e9;
}

double zncc_epilogue_seconds(const CorrelationProblem& p) {
  // Statistics, zero-mean copies (read + write), window sums (16-byte float64 pairs) and the
  // normalisation's read-modify-write, at ~2 TB/s; six launches at ~7 us (refitted to the H200
  // run of docs/perf/zncc-gpu.md: gpu_fft's ZNCC on 32 in 512^2 took 86 us, 64 in 2048^2 443 us).
  const Shape s = p.surface_shape();
  const double in = 4.0 * static_cast<double>(p.left.rows * p.left.cols * p.left.count +
                                              p.right.rows * p.right.cols * p.right.count);
  const double hs = 16.0 * static_cast<double>(p.right.count * p.right.rows * s.cols);
  const double outs = static_cast<double>(s.area() * p.output_count());
  const double per_out = 8.0 + 16.0 * static_cast<double>(p.left.rows + 64) / 32.0;
  return 45e-6 + (3 * in + 2 * hs + outs * per_out) / memory_rate(2e12);
}

double peak_reduce_seconds(const CorrelationProblem& p) {
  // One read of every surface, two launches.
  return 6e-6 +
         4.0 * static_cast<double>(p.surface_shape().area() * p.output_count()) / memory_rate(3e12);
}

}  // namespace xcorr::gpu
