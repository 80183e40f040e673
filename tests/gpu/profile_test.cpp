// Our occupancy calculator (core/profiling/occupancy.hpp) against CUDA's
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for every kernel of every registered GPU variant
// and parameter combination, on problems of each form; CTest label gpu.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/profiling/occupancy.hpp"
#include "gpu/device.hpp"
#include "gpu/engine.hpp"
#include "tests/support/configurations.hpp"
#include "tests/support/correlation_cases.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr {
namespace {

TEST(GpuProfile, OurOccupancyEqualsCudasForEveryKernel) {
  XCORR_SKIP_WITHOUT_GPU();
  Registry reg;
  gpu::add_gpu_variants(reg);
  const std::vector<testing::Case> cases = {
      {Form::n_to_m, Mode::full, Normalization::none, {37, 29}, {37, 29}, 3, 5},
      {Form::one_to_many, Mode::valid, Normalization::none, {13, 11}, {40, 37}, 1, 7},
      {Form::n_to_mn, Mode::valid, Normalization::zncc, {21, 21}, {41, 41}, 4, 8},
      {Form::n_to_mn, Mode::valid, Normalization::zncc, {21, 21}, {41, 41}, 4, 8, Output::peak},
      {Form::one_to_many,
       Mode::valid,
       Normalization::zncc,
       {17, 15},
       {120, 140},
       1,
       2,
       Output::peak},
      {Form::one_to_one, Mode::full, Normalization::none, {64, 64}, {64, 64}, 1, 1},
  };
  int checked = 0;
  for (const auto& c : cases) {
    const testing::CaseData data = testing::make_case_data(c);
    const CorrelationProblem p = data.problem(c);
    Stack<float> out(p.output_shape().rows, p.output_shape().cols, p.output_count());
    for (const testing::Configuration& conf : testing::every_configuration(reg)) {
      const Correlator* run = conf.variant;
      if (!run->can_implement(p).is_ok()) continue;
      const Status ran = run->run(p, out.view());
      ASSERT_TRUE(ran.is_ok()) << conf.label << ": " << ran.message();
      auto profiles = gpu::kernel_profiles(*run, p);
      ASSERT_TRUE(profiles.is_ok()) << profiles.status().message();
      for (const gpu::KernelProfile& k : profiles.value()) {
        const profiling::Occupancy o = profiling::theoretical_occupancy(
            {k.threads_per_block, k.registers, k.static_shared_bytes, k.dynamic_shared_bytes});
        EXPECT_EQ(o.blocks_per_sm, k.cuda_blocks_per_sm)
            << conf.label << " " << k.kernel << ": " << k.registers << " regs, "
            << k.static_shared_bytes << "+" << k.dynamic_shared_bytes << " B smem, "
            << k.threads_per_block << " threads";
        ++checked;
      }
    }
  }
  std::printf("[ occupancy] %d kernel launches: our calculator vs CUDA's\n", checked);
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace xcorr
