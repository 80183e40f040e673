// XCORR_HD marks plain C++ helpers __host__ __device__ when nvcc compiles them, so the CPU code
// and the CUDA kernels share one implementation of a formula.
#pragma once

#if defined(__CUDACC__)
#define XCORR_HD __host__ __device__
#else
#define XCORR_HD
#endif
