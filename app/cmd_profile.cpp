// xcorr profile: for every variant that can run one problem, what it costs and why: timings
// (median, min, p90 of kernel-only time with CUDA events on the GPU, wall time on the CPU;
// end-to-end), GFLOP/s, achieved bandwidth, and per GPU kernel its resources
// (cudaFuncGetAttributes), our theoretical occupancy and limiter beside CUDA's.
// Not yet: the modelled bank conflicts per kernel address function and CUPTI counters; the
// output says so instead of inventing numbers.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "core/profiling/occupancy.hpp"
#include "gpu/engine.hpp"

namespace xcorr::app {
namespace {

struct ProfileOptions {
  std::string form = "one_to_many", mode = "full", norm = "none", out;
  std::vector<Index> size{64, 64};
  Index n = 1, m = 16;
  std::vector<std::string> variants;
  int repeats = 10;
};

Stack<float> pattern(Index rows, Index cols, Index count, unsigned seed) {
  Stack<float> s(rows, cols, count);
  std::uint32_t x = seed * 2654435761u + 1;
  for (float& v : s.values()) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v = static_cast<float>(x >> 8) / 16777216.0f;
  }
  return s;
}

double median_ms(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

Status run_profile(const ProfileOptions& o) {
  const auto form = parse_form(o.form);
  const auto mode = parse_mode(o.mode);
  const auto norm = parse_normalization(o.norm);
  XCORR_CHECK(form && mode && norm, "CLI11 validated the enum options");
  const Index rows = o.size[0], cols = o.size.size() > 1 ? o.size[1] : o.size[0];
  // valid mode: the left is the template, half the window's size.
  const Index lr = *mode == Mode::valid ? std::max<Index>(1, rows / 2) : rows;
  const Index lc = *mode == Mode::valid ? std::max<Index>(1, cols / 2) : cols;
  const Index n_right = *form == Form::n_to_mn ? o.n * o.m : *form == Form::one_to_one ? 1 : o.m;
  const Index n_left = *form == Form::one_to_one || *form == Form::one_to_many ? 1 : o.n;
  const Stack<float> left = pattern(lr, lc, n_left, 1), right = pattern(rows, cols, n_right, 2);
  const CorrelationProblem p{{*form, *mode, *norm}, left.view(), right.view()};
  XCORR_RETURN_IF_ERROR(p.validate());
  const double flops = 2 * p.direct_multiply_adds();
  const double bytes = 4.0 * static_cast<double>(left.values().size() + right.values().size() +
                                                 p.output_shape().area() * p.output_count());
  nlohmann::json rows_json = nlohmann::json::array();
  std::printf("%-46s %10s %10s %10s %9s %9s  %s\n", "variant", "median_ms", "p90_ms", "e2e_ms",
              "GFLOP/s", "GB/s", "kernels: regs smem(B) block occupancy ours/CUDA limiter");
  Stack<float> out(p.output_shape().rows, p.output_shape().cols, p.output_count());
  for (const auto& v : gpu::engine_registry().all()) {
    const std::string& name = v->info().name;
    if (!v->info().auto_eligible || !v->can_implement(p).is_ok()) continue;
    if (!o.variants.empty() &&
        std::find(o.variants.begin(), o.variants.end(), name) == o.variants.end())
      continue;
    double med = 0, mn = 0, p90 = 0, e2e = 0;
    nlohmann::json kernels = nlohmann::json::array();
    std::string kernel_text;
    if (gpu::is_gpu_variant(*v)) {
      auto t = gpu::time_on_gpu(*v, p, 2, o.repeats);
      if (!t.is_ok()) return t.status();
      med = t.value().kernel_median_ms, mn = t.value().kernel_min_ms;
      p90 = t.value().kernel_p90_ms, e2e = t.value().e2e_median_ms;
      auto profiles = gpu::kernel_profiles(*v, p);
      if (!profiles.is_ok()) return profiles.status();
      for (const auto& k : profiles.value()) {
        const auto occ = profiling::theoretical_occupancy(
            {k.threads_per_block, k.registers, k.static_shared_bytes, k.dynamic_shared_bytes});
        const double cuda_occ = k.cuda_blocks_per_sm * ((k.threads_per_block + 31) / 32) / 64.0;
        kernels.push_back({{"kernel", k.kernel},
                           {"registers", k.registers},
                           {"static_shared_bytes", k.static_shared_bytes},
                           {"dynamic_shared_bytes", k.dynamic_shared_bytes},
                           {"local_bytes", k.local_bytes},
                           {"threads_per_block", k.threads_per_block},
                           {"occupancy", occ.fraction},
                           {"occupancy_limiter", occ.limiter},
                           {"cuda_occupancy", cuda_occ},
                           {"bank_conflicts_modelled", nullptr},
                           {"counters", "unavailable: CUPTI range profiler not integrated yet"}});
        char buf[200];
        std::snprintf(buf, sizeof buf, "%s %d %d %d %.0f%%/%.0f%% %s", k.kernel.c_str(),
                      k.registers, k.static_shared_bytes + k.dynamic_shared_bytes,
                      k.threads_per_block, 100 * occ.fraction, 100 * cuda_occ, occ.limiter.c_str());
        kernel_text += (kernel_text.empty() ? "" : "; ") + std::string(buf);
      }
      if (profiles.value().empty()) kernel_text = "(library kernels: cuFFT)";
    } else {
      std::vector<double> times;
      for (int r = 0; r < std::max(1, o.repeats / 5); ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        XCORR_RETURN_IF_ERROR(v->run(p, out.view()));
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
      }
      med = median_ms(times, 0.5), mn = median_ms(times, 0), p90 = median_ms(times, 0.9), e2e = med;
      kernel_text = "(CPU: no GPU kernels)";
    }
    const double gflops = flops / (med * 1e-3) / 1e9, gbs = bytes / (med * 1e-3) / 1e9;
    std::printf("%-46s %10.4f %10.4f %10.4f %9.1f %9.1f  %s\n", name.c_str(), med, p90, e2e, gflops,
                gbs, kernel_text.c_str());
    rows_json.push_back({{"variant", name},
                         {"device", v->info().device},
                         {"params", format_params(v->info().params, v->params())},
                         {"form", o.form},
                         {"mode", o.mode},
                         {"norm", o.norm},
                         {"rows", rows},
                         {"cols", cols},
                         {"n", n_left},
                         {"m", n_right},
                         {"median_ms", med},
                         {"min_ms", mn},
                         {"p90_ms", p90},
                         {"e2e_ms", e2e},
                         {"gflops", gflops},
                         {"bandwidth_gb_s", gbs},
                         {"kernels", kernels}});
  }
  if (o.out.empty()) return Status::ok();
  const bool csv = io::lowercase_extension(o.out) == ".csv";
  return io::write_atomically(o.out, [&](const std::filesystem::path& tmp) -> Status {
    std::ofstream f(tmp);
    if (!csv) {
      f << rows_json.dump(1) << "\n";
    } else {
      f << "variant,device,median_ms,min_ms,p90_ms,e2e_ms,gflops,bandwidth_gb_s,kernel,registers,"
           "shared_bytes,threads_per_block,occupancy,occupancy_limiter,cuda_occupancy\n";
      for (const auto& r : rows_json) {
        const std::string head =
            r["variant"].get<std::string>() + "," + r["device"].get<std::string>() + "," +
            r["median_ms"].dump() + "," + r["min_ms"].dump() + "," + r["p90_ms"].dump() + "," +
            r["e2e_ms"].dump() + "," + r["gflops"].dump() + "," + r["bandwidth_gb_s"].dump();
        if (r["kernels"].empty()) f << head << ",,,,,,,\n";
        for (const auto& k : r["kernels"]) {
          f << head << "," << k["kernel"].get<std::string>() << "," << k["registers"] << ","
            << (k["static_shared_bytes"].get<int>() + k["dynamic_shared_bytes"].get<int>()) << ","
            << k["threads_per_block"] << "," << k["occupancy"] << ","
            << k["occupancy_limiter"].get<std::string>() << "," << k["cuda_occupancy"] << "\n";
        }
      }
    }
    return f ? Status::ok() : Status{ErrorCode::io_error, "cannot write '" + o.out + "'"};
  });
}

}  // namespace

Command add_profile_command(CLI::App& app) {
  auto o = std::make_shared<ProfileOptions>();
  CLI::App* c = app.add_subcommand(
      "profile", "Time every variant on one problem, with GPU kernel resources and occupancy");
  c->add_option("--form", o->form, "Input form")
      ->check(CLI::IsMember({"one_to_one", "one_to_many", "n_to_mn", "n_to_m"}))
      ->capture_default_str();
  c->add_option("--size", o->size, "rows[,cols] of the right matrices (px)")
      ->delimiter(',')
      ->capture_default_str();
  c->add_option("--n", o->n, "Left matrices (n_to_m, n_to_mn)")->capture_default_str();
  c->add_option("--m", o->m, "Right matrices (one_to_many, n_to_m) or per left (n_to_mn)")
      ->capture_default_str();
  c->add_option("--mode", o->mode, "full or valid (valid: templates of half the size)")
      ->check(CLI::IsMember({"full", "valid"}))
      ->capture_default_str();
  c->add_option("--norm", o->norm, "none or zncc")
      ->check(CLI::IsMember({"none", "zncc"}))
      ->capture_default_str();
  c->add_option("--variants", o->variants, "Only these variants");
  c->add_option("--repeats", o->repeats, "Timed runs")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  c->add_option("--out", o->out, "profile.json or profile.csv");
  return {c, [o] { return run_profile(*o); }};
}

}  // namespace xcorr::app
