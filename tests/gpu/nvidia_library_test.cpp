// Run-time loading of NVIDIA's libraries (gpu/nvidia_library.hpp): a missing library or symbol
// is an error that names it; a present one resolves to a working function. Uses libm (on every
// machine) for the working case, so it runs without a GPU; cuFFT itself is loaded by the GPU
// tests on the device (gpu_fft is registered only when it loads).
#include "gpu/nvidia_library.hpp"

#include <gtest/gtest.h>

namespace xcorr::gpu {
namespace {

TEST(NvidiaLibrary, AMissingLibraryIsNamedWithTheWayToGetIt) {
  auto p = nvidia_symbol("libxcorr_no_such_library.so.7", "cuNothing", "f");
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.status().code(), ErrorCode::unsupported);
  EXPECT_NE(p.status().message().find("cuNothing is not installed"), std::string::npos)
      << p.status().message();
  EXPECT_NE(p.status().message().find("libxcorr_no_such_library.so.7"), std::string::npos);
  EXPECT_NE(p.status().message().find("LD_LIBRARY_PATH"), std::string::npos);
  EXPECT_NE(p.status().message().find("is neither on the loader's path nor in /"),
            std::string::npos);
}

TEST(NvidiaLibrary, AMissingFunctionIsNamed) {
  auto p = nvidia_symbol("libm.so.6", "libm", "xcorr_no_such_function");
  ASSERT_FALSE(p.is_ok());
  EXPECT_NE(p.status().message().find("lacks xcorr_no_such_function"), std::string::npos)
      << p.status().message();
}

TEST(NvidiaLibrary, APresentFunctionIsCallable) {
  double (*cosine)(double) = nullptr;
  const Status s = load_function("libm.so.6", "libm", "cos", cosine);
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.5), 0.87758256189037276);
}

}  // namespace
}  // namespace xcorr::gpu
