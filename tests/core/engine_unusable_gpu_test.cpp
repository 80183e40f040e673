// The engine facade with a GPU backend whose device this build cannot serve (the GPU of a lab
// whose architecture the build lacks, or a driver too old): a fake backend lists one device
// with the reason gpu/device_model.cu gives. Every device choice must say that one line: auto
// runs on the CPU, gpu and gpu_* methods fail with it, and the GPU variants are never added.
// The real thing (an sm_80 build on an sm_90 GPU) runs on the GPU machine:
// docs/perf/gpu-support.md.
#include <gtest/gtest.h>

#include "core/dic/options.hpp"
#include "core/engine/engine.hpp"
#include "core/engine/gpu_backend.hpp"
#include "core/register/phase_engine.hpp"

namespace xcorr::engine {
namespace {

const char* const kWhy =
    "GPU 0, NVIDIA Fake (sm_86): this build has no kernels for it (built for machine code for "
    "sm_90; PTX for compute_90)";

bool variants_added = false;
int notices = 0;
std::string notice;

Result<std::vector<DeviceInfo>> fake_devices() {
  DeviceInfo d;
  d.name = "NVIDIA Fake";
  d.compute_major = 8, d.compute_minor = 6;
  d.multiprocessors = 82;
  d.unusable = kWhy;
  return std::vector<DeviceInfo>{d};
}

void fake_add_variants(Registry&) {
  variants_added = true;
}

Result<std::unique_ptr<dic::FrameRegistrar>> fake_dic(const Registry&) {
  return Status{ErrorCode::internal, "the GPU registrar must not be made for an unusable GPU"};
}

Result<std::unique_ptr<reg::PhaseEngine>> fake_phase(Shape, const reg::PhaseOptions&, int) {
  return Status{ErrorCode::internal, "the GPU phase engine must not be made for an unusable GPU"};
}

class UnusableGpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    GpuBackend b{};
    b.add_variants = fake_add_variants;
    b.devices = fake_devices;
    b.make_dic_registrar = fake_dic;
    b.make_phase_engine = fake_phase;
    set_gpu_backend(b);
    set_gpu_notice([](const std::string& line) {
      ++notices;
      notice = line;
    });
  }
};

TEST_F(UnusableGpu, TheRegistryHasNoGpuVariantsAndSaysWhyOnce) {
  ASSERT_TRUE(built_with_cuda());
  (void)registry();
  (void)registry();
  EXPECT_FALSE(variants_added);
  for (const auto& v : registry().all()) EXPECT_EQ(v->info().device, "cpu") << v->info().name;
  EXPECT_EQ(notices, 1);
  EXPECT_EQ(notice, kWhy);
  EXPECT_EQ(gpu_not_used(), kWhy);
  EXPECT_EQ(gpu_usable().message(), kWhy);
}

TEST_F(UnusableGpu, AGpuMethodFailsWithTheReason) {
  const auto m = find_method(registry(), "gpu_zncc_tiled");
  ASSERT_FALSE(m.is_ok());
  EXPECT_EQ(m.status().code(), ErrorCode::unsupported);  // exit 2, not "internal error"
  EXPECT_EQ(m.status().message(), std::string("method 'gpu_zncc_tiled' needs a GPU: ") + kWhy);
  const auto other = find_method(registry(), "no_such_variant");
  ASSERT_FALSE(other.is_ok());
  EXPECT_EQ(other.status().code(), ErrorCode::invalid_argument);
}

TEST_F(UnusableGpu, DicAutoRunsOnTheCpuAndGpuFailsWithTheReason) {
  dic::DicOptions o;
  o.device = "auto";
  auto cpu = make_dic_registrar(o);
  ASSERT_TRUE(cpu.is_ok()) << cpu.status().message();
  EXPECT_EQ(cpu.value()->device(), "cpu");
  o.device = "gpu";
  auto gpu = make_dic_registrar(o);
  ASSERT_FALSE(gpu.is_ok());
  EXPECT_EQ(gpu.status().code(), ErrorCode::unsupported);
  EXPECT_EQ(gpu.status().message(), kWhy);
  o.devices = "0";
  o.device = "auto";
  EXPECT_TRUE(make_dic_registrar(o).is_ok());
}

// The GPU DIC path's own guess method: named, it needs the GPU whatever --device says.
TEST_F(UnusableGpu, TheStripGuessMethodNeedsTheGpu) {
  dic::DicOptions o;
  o.method = "gpu_guess_strips";
  for (const char* device : {"auto", "gpu"}) {
    o.device = device;
    auto r = make_dic_registrar(o);
    ASSERT_FALSE(r.is_ok()) << device;
    EXPECT_EQ(r.status().code(), ErrorCode::unsupported) << device;
    EXPECT_EQ(r.status().message(), std::string("method 'gpu_guess_strips' needs a GPU: ") + kWhy);
  }
  o.device = "cpu";
  auto cpu = make_dic_registrar(o);
  ASSERT_FALSE(cpu.is_ok());
  EXPECT_EQ(cpu.status().code(), ErrorCode::invalid_argument);
  EXPECT_EQ(cpu.status().message(),
            "--method gpu_guess_strips runs on the GPU, not with --device cpu");
}

TEST_F(UnusableGpu, RegistrationAutoRunsOnTheCpuAndGpuFailsWithTheReason) {
  const reg::PhaseOptions o;
  auto cpu = make_phase_engine({64, 64}, o, 1, "auto");
  ASSERT_TRUE(cpu.is_ok()) << cpu.status().message();
  EXPECT_EQ(cpu.value()->device(), "cpu");
  auto gpu = make_phase_engine({64, 64}, o, 1, "gpu");
  ASSERT_FALSE(gpu.is_ok());
  EXPECT_EQ(gpu.status().message(), kWhy);
}

}  // namespace
}  // namespace xcorr::engine
