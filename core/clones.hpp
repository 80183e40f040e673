// Hot CPU loops compiled twice, for AVX2+FMA (x86-64-v3) and for baseline x86-64, the faster one
// chosen when the program loads (GCC's target_clones; one build runs on every x86-64 CPU).
// XCORR_CLONES marks such a loop; XCORR_INLINE forces a small helper into it, so that each clone
// compiles the helper for its own target.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define XCORR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define XCORR_CLONES
#endif
#define XCORR_INLINE inline __attribute__((always_inline))
