// A correlation request's results shared among GPUs (engine::on_devices, `xcorr correlate
// --devices`) against one GPU: every GPU variant that can run the problem, on every form, full
// and valid, unnormalised and ZNCC, surfaces and peaks, odd and prime sizes on fresh random
// data, outputs poisoned with NaN; the shared run must be the same bit for bit. A one-GPU machine
// lists device 0 two and three times (each listing its own copy of the variant and a host thread
// of its own); with two GPUs or more every GPU is listed too. A direct variant that repeats its
// own output bit for bit on one GPU must give that output bit for bit on several. Two kinds are
// held to a relative L2 difference per output matrix of 1e-6 instead (their error against
// float64 is held to 1e-5): FFT variants round with the batch a GPU transforms (cuFFT's plans and
// gpu_fft_fused's paths depend on the count), and kernels that add partial sums with atomicAdd
// (gpu_warp_shuffle's work distribution, the ZNCC epilogue's moments) add them in whatever order
// the hardware runs them, so they need not repeat themselves even on one GPU. CTest label gpu;
// skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "core/peak_search.hpp"
#include "gpu/device.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/matrix_testing.hpp"

namespace xcorr {
namespace {

struct Shape3 {
  Index rows, cols, count;
};

struct Case {
  std::string name;
  CorrelationRequest request;
  Shape3 left, right;
};

std::vector<Case> cases() {
  const auto surface = [](Form f, Mode m, Normalization n) {
    return CorrelationRequest{f, m, n, Output::surface, SubpixelMethod::none, Accuracy::fast};
  };
  const CorrelationRequest peak{Form::n_to_mn, Mode::valid,          Normalization::zncc,
                                Output::peak,  SubpixelMethod::none, Accuracy::fast};
  return {
      {"one_to_many full",
       surface(Form::one_to_many, Mode::full, Normalization::none),
       {29, 23, 1},
       {29, 23, 7}},
      {"n_to_m full",
       surface(Form::n_to_m, Mode::full, Normalization::none),
       {31, 37, 3},
       {31, 37, 5}},
      {"one_to_many valid zncc",
       surface(Form::one_to_many, Mode::valid, Normalization::zncc),
       {13, 11, 1},
       {29, 23, 7}},
      {"n_to_mn valid zncc",
       surface(Form::n_to_mn, Mode::valid, Normalization::zncc),
       {9, 11, 5},
       {41, 43, 15}},
      {"n_to_mn valid zncc peak", peak, {15, 15, 7}, {33, 33, 7}},
      {"one_to_one full",
       surface(Form::one_to_one, Mode::full, Normalization::none),
       {64, 64, 1},
       {64, 64, 1}},
  };
}

// The engine facade's registry with the GPU backend installed (once per process).
const Registry& engine_registry() {
  static const bool installed = (engine::install_gpu(), true);
  (void)installed;
  return engine::registry();
}

TEST(OnDevices, EveryGpuVariantSharesItsResultsBitForBit) {
  XCORR_SKIP_WITHOUT_GPU();
  const Registry& r = engine_registry();
  int exact = 0, close = 0;
  double worst_close = 0;
  std::set<std::string> unrepeatable;  // direct variants that did not repeat themselves
  std::uint64_t stream = 0;
  for (const Case& c : cases()) {
    const Stack<float> left =
        testing::random_stack(c.left.rows, c.left.cols, c.left.count, ++stream);
    const Stack<float> right =
        testing::random_stack(c.right.rows, c.right.cols, c.right.count, ++stream);
    CorrelationProblem p;
    p.request = c.request;
    p.left = left.view();
    p.right = right.view();
    ASSERT_TRUE(p.validate().is_ok()) << c.name << ": " << p.validate().message();
    const Shape out = p.output_shape();
    for (const auto& v : r.all()) {
      if (!engine::is_gpu_variant(*v) || !v->can_implement(p).is_ok()) continue;
      Stack<float> one = testing::poisoned_stack(out.rows, out.cols, p.output_count());
      Stack<float> again = testing::poisoned_stack(out.rows, out.cols, p.output_count());
      const Status s1 = v->run(p, one.view());
      ASSERT_TRUE(s1.is_ok()) << v->info().name << ": " << s1.message();
      ASSERT_TRUE(v->run(p, again.view()).is_ok());
      const std::size_t bytes = one.values().size() * sizeof(float);
      const bool repeats = std::memcmp(one.values().data(), again.values().data(), bytes) == 0 &&
                           computes_each_output_directly(v->info());
      for (const std::vector<int>& list : testing::split_device_lists()) {
        auto shared = engine::on_devices(*v, list);
        ASSERT_TRUE(shared.is_ok()) << shared.status().message();
        Stack<float> many = testing::poisoned_stack(out.rows, out.cols, p.output_count());
        const Status s = shared.value()->run(p, many.view());
        ASSERT_TRUE(s.is_ok()) << v->info().name << ": " << s.message();
        EXPECT_EQ(shared.value()->info().name, v->info().name);
        const std::string what =
            c.name + ", " + v->info().name + " on " + std::to_string(list.size()) + " lanes";
        if (repeats) {
          EXPECT_EQ(std::memcmp(one.values().data(), many.values().data(), bytes), 0) << what;
          ++exact;
        } else {
          for (Index m = 0; m < p.output_count(); ++m) {
            double diff = 0, norm = 0;
            const MatrixView<const float> a = one.view()[m], b = many.view()[m];
            for (Index y = 0; y < a.rows; ++y)
              for (Index x = 0; x < a.cols; ++x) {
                const double d = static_cast<double>(a.row(y)[x]) - b.row(y)[x];
                diff += d * d;
                norm += static_cast<double>(a.row(y)[x]) * a.row(y)[x];
              }
            const double rel = std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30);
            EXPECT_LE(rel, 1e-6) << what << ", matrix " << m;
            worst_close = std::max(worst_close, rel);
          }
          ++close;
          if (computes_each_output_directly(v->info())) unrepeatable.insert(v->info().name);
        }
      }
    }
  }
  std::string names;
  for (const std::string& n : unrepeatable) names += (names.empty() ? "" : ", ") + n;
  std::printf(
      "[ on devices ] %d (case, variant, device list) runs bit for bit one GPU's; %d runs of "
      "variants that do not repeat themselves (FFT; atomic sums: %s) within %.2e relative L2\n",
      exact, close, names.empty() ? "none" : names.c_str(), worst_close);
  EXPECT_GE(exact, 20);
}

TEST(OnDevices, RefusesCpuVariantsAndMissingDevices) {
  XCORR_SKIP_WITHOUT_GPU();
  const Registry& r = engine_registry();
  const Correlator* cpu = r.find("cpu_direct");
  ASSERT_NE(cpu, nullptr);
  auto refused = engine::on_devices(*cpu, {0, 0});
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("runs on the CPU"), std::string::npos);
  const Correlator* gpu = nullptr;
  for (const auto& v : r.all())
    if (engine::is_gpu_variant(*v)) gpu = v.get();
  ASSERT_NE(gpu, nullptr);
  const int beyond = static_cast<int>(gpu::list_devices().value().size());
  auto missing = engine::on_devices(*gpu, {0, beyond});
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.status().message().find("GPU " + std::to_string(beyond) + " does not exist"),
            std::string::npos)
      << missing.status().message();
}

}  // namespace
}  // namespace xcorr
