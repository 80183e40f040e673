// Measured against modelled: every GPU kernel's shared-memory loads and stores (warp-level
// instructions and wavefronts, CUPTI's range profiler) against its bank-conflict model (all but
// the kernels is_unmodelled names, whose counters are printed only)
// (core/profiling/kernel_smem.hpp, fed by the kernel's own index functions), and the achieved
// occupancy against the theoretical. Prints one row per launch. CTest label gpu; skips, saying
// why, where counters cannot be read.
// Instructions must match exactly. Wavefronts: the model counts what each instruction's own
// addresses cost; the counters also count wavefronts lost to other traffic on the SM's shared/L1
// data array while many warps run (H200, run 17: up to +7.5 % on stores, +4.6 % on
// loads; exact on small launches), so measured must lie in [model, model x 1.10 + 64].
#include "gpu/counters.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/profiling/occupancy.hpp"
#include "gpu/engine.hpp"
#include "tests/support/configurations.hpp"
#include "tests/support/correlation_cases.hpp"
#include "tests/support/gpu_testing.hpp"

namespace xcorr {
namespace {

// The kernels added to beat the thesis (docs/perf/gpu-engine.md: the on-chip FFT, the small direct
// kernel and the fused FFT's four) have no bank-conflict model yet: a named, short list, so that a
// new kernel cannot slip past.
bool is_unmodelled(const std::string& kernel) {
  return kernel == "fft_shared_kernel" || kernel == "small_direct_kernel" ||
         kernel == "fused_rows_kernel" || kernel == "fused_forward_columns_kernel" ||
         kernel == "fused_columns_kernel" || kernel == "fused_inverse_rows_kernel";
}

TEST(GpuCounters, SharedMemoryTrafficMatchesTheModelForEveryKernel) {
  XCORR_SKIP_WITHOUT_GPU();
  Registry reg;
  gpu::add_gpu_variants(reg);
  const std::vector<testing::Case> cases = {
      // ZNCC and peak output first (the newest kernels): the epilogue's and the fused kernels
      // (one tile; several tiles).
      {Form::n_to_mn, Mode::valid, Normalization::zncc, {21, 21}, {41, 41}, 4, 64},
      {Form::n_to_mn, Mode::valid, Normalization::zncc, {21, 21}, {41, 41}, 4, 64, Output::peak},
      {Form::one_to_many,
       Mode::valid,
       Normalization::zncc,
       {17, 15},
       {120, 140},
       1,
       2,
       Output::peak},
      {Form::one_to_many, Mode::full, Normalization::none, {64, 64}, {64, 64}, 1, 16},
      {Form::n_to_mn, Mode::full, Normalization::none, {32, 32}, {32, 32}, 4, 64},
      {Form::one_to_many, Mode::valid, Normalization::none, {13, 11}, {40, 37}, 1, 7},
      {Form::n_to_m, Mode::full, Normalization::none, {17, 23}, {17, 23}, 3, 5},
      {Form::one_to_one, Mode::full, Normalization::none, {16, 16}, {16, 16}, 1, 1},
  };
  int compared = 0, unread = 0, modelled = 0, exact_loads = 0, unmodelled = 0;
  double worst_load = 0, worst_store = 0;  // measured / model - 1
  std::printf("%-34s %-44s %-28s %23s %23s %23s %23s %6s %6s\n", "case", "variant", "kernel",
              "model ld instr/wavefr", "measured ld", "model st instr/wavefr", "measured st", "occ",
              "achvd");
  for (const auto& c : cases) {
    const testing::CaseData data = testing::make_case_data(c);
    const CorrelationProblem p = data.problem(c);
    for (const testing::Configuration& conf : testing::every_configuration(reg)) {
      const Correlator* run = conf.variant;
      if (!run->can_implement(p).is_ok()) continue;
      const gpu::CounterReadout counters = gpu::read_counters(*run, p);
      auto kernels = gpu::kernel_profiles(*run, p);
      ASSERT_TRUE(kernels.is_ok()) << kernels.status().message();
      if (!counters.unavailable.empty()) {
        if (!kernels.value().empty()) {
          ++unread;
          std::printf("%s: %s\n", run->info().name.c_str(), counters.unavailable.c_str());
        }
        continue;
      }
      const std::string& name = conf.label;
      ASSERT_EQ(counters.ranges.size(), kernels.value().size()) << name;
      for (std::size_t k = 0; k < kernels.value().size(); ++k) {
        const gpu::KernelProfile& kp = kernels.value()[k];
        const profiling::SmemTraffic model = kp.smem ? kp.smem->traffic : profiling::SmemTraffic{};
        const profiling::SmemTraffic& got = counters.ranges[k].smem;
        const double occ =
            profiling::theoretical_occupancy({kp.threads_per_block, kp.registers,
                                              kp.static_shared_bytes, kp.dynamic_shared_bytes})
                .fraction;
        std::printf(
            "%-34s %-44s %-28s %11.0f/%11.0f %11.0f/%11.0f %11.0f/%11.0f %11.0f/%11.0f "
            "%5.0f%% %5.0f%%\n",
            testing::case_name(c).c_str(), name.c_str(), kp.kernel.c_str(), model.load_instructions,
            model.load_wavefronts, got.load_instructions, got.load_wavefronts,
            model.store_instructions, model.store_wavefronts, got.store_instructions,
            got.store_wavefronts, 100 * occ, 100 * counters.ranges[k].achieved_occupancy);
        // Kernels without a bank-conflict model yet (docs/perf/profile-h200.md): their counters
        // are printed above and counted here, not compared.
        if (is_unmodelled(kp.kernel)) {
          ++unmodelled;
          continue;
        }
        // Where a model declares loads behind data-dependent branches or a measured over-count
        // (KernelSmemModel; gpu_zncc_tiled only), the counters may stay below it by that much.
        const double skippable = kp.smem ? kp.smem->skippable_loads : 0.0;
        const double slack = kp.smem ? kp.smem->load_wavefront_slack : 0.0;
        EXPECT_LE(got.load_instructions, model.load_instructions) << name << " " << kp.kernel;
        EXPECT_GE(got.load_instructions, model.load_instructions - skippable)
            << name << " " << kp.kernel;
        EXPECT_EQ(got.store_instructions, model.store_instructions) << name << " " << kp.kernel;
        EXPECT_GE(got.load_wavefronts, model.load_wavefronts * (1 - slack) - skippable)
            << name << " " << kp.kernel;
        EXPECT_LE(got.load_wavefronts, model.load_wavefronts * 1.10 + 64)
            << name << " " << kp.kernel;
        EXPECT_GE(got.store_wavefronts, model.store_wavefronts) << name << " " << kp.kernel;
        EXPECT_LE(got.store_wavefronts, model.store_wavefronts * 1.10 + 64)
            << name << " " << kp.kernel;
        if (model.load_wavefronts > 0) {
          worst_load = std::max(worst_load, got.load_wavefronts / model.load_wavefronts - 1);
          exact_loads += got.load_wavefronts == model.load_wavefronts;
          ++modelled;
        }
        if (model.store_wavefronts > 0)
          worst_store = std::max(worst_store, got.store_wavefronts / model.store_wavefronts - 1);
        EXPECT_GT(counters.ranges[k].achieved_occupancy, 0) << name;
        EXPECT_LE(counters.ranges[k].achieved_occupancy, occ + 0.02) << name;
        ++compared;
      }
    }
  }
  std::printf(
      "[ counters ] %d kernel launches compared, %d variants without counters; %d with "
      "shared loads: %d exact, largest excess %.3f %% (loads), %.3f %% (stores); %d launches of "
      "kernels without a model (gpu_fft_shared, gpu_small_direct, gpu_fft_fused) printed only\n",
      compared, unread, modelled, exact_loads, 100 * worst_load, 100 * worst_store, unmodelled);
  if (compared == 0 && unread > 0) GTEST_SKIP() << "hardware counters unavailable (see above)";
  EXPECT_GT(compared, 40);
}

}  // namespace
}  // namespace xcorr
