// GPU tests skip (with the reason) where no usable CUDA device is present.
#pragma once

#include <gtest/gtest.h>

#include "gpu/device.hpp"

// A macro: GTEST_SKIP only leaves the function it is written in.
#define XCORR_SKIP_WITHOUT_GPU()                                        \
  do {                                                                  \
    const auto devices_ = ::xcorr::gpu::list_devices();                 \
    if (!devices_.is_ok()) GTEST_SKIP() << devices_.status().message(); \
  } while (false)
