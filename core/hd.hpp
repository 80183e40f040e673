// XCORR_HD marks plain C++ helpers __host__ __device__ when nvcc compiles them, so the CPU code
// and the CUDA kernels share one implementation of a formula.
#pragma once

#if defined(__CUDACC__)
#define XCORR_HD __host__ __device__
#else
#define XCORR_HD
#endif

// Full unrolling of small fixed loops in shared helpers (keeps their arrays in registers on the
// GPU); nothing on the host.
#if defined(__CUDACC__)
#define XCORR_UNROLL _Pragma("unroll")
#else
#define XCORR_UNROLL
#endif
