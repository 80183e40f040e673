// FFT-friendly sizes: the smallest n' >= n whose only prime factors are 2, 3, 5 and 7
// (fast for FFTW and cuFFT alike).
#pragma once

#include "core/matrix.hpp"

namespace xcorr {

Index next_fast_fft_size(Index n);

}  // namespace xcorr
