// A surface maximum as one 64-bit key, so that blocks can combine maxima with atomicMax:
// high 32 bits the value's bits made monotonic (larger float -> larger unsigned), low 32 bits
// ~index, so that on equal values the smaller row-major index wins (find_peak's rule). Zero
// means "nothing yet" (below every finite value). -0 is taken as +0 so the two tie.
#pragma once

#include <cuda_runtime.h>

namespace xcorr::gpu {

__host__ __device__ inline unsigned long long peak_key(float value, unsigned index) {
  unsigned bits = 0;
  const float v = value == 0.0f ? 0.0f : value;
#if defined(__CUDA_ARCH__)
  bits = __float_as_uint(v);
#else
  __builtin_memcpy(&bits, &v, sizeof bits);
#endif
  bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  return (static_cast<unsigned long long>(bits) << 32) | (0xFFFFFFFFu - index);
}

__host__ __device__ inline float peak_key_value(unsigned long long key) {
  unsigned bits = static_cast<unsigned>(key >> 32);
  bits = (bits & 0x80000000u) ? (bits & 0x7FFFFFFFu) : ~bits;
  float v = 0;
#if defined(__CUDA_ARCH__)
  v = __uint_as_float(bits);
#else
  __builtin_memcpy(&v, &bits, sizeof v);
#endif
  return v;
}

__host__ __device__ inline unsigned peak_key_index(unsigned long long key) {
  return 0xFFFFFFFFu - static_cast<unsigned>(key & 0xFFFFFFFFull);
}

// The larger of two keys across a warp (every lane returns it).
__device__ inline unsigned long long warp_max_key(unsigned long long k) {
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_xor_sync(0xffffffffu, k, o);
    k = other > k ? other : k;
  }
  return k;
}

}  // namespace xcorr::gpu
