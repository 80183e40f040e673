#include "gpu/profile.hpp"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/profiling/occupancy.hpp"
#include "core/synth/speckle.hpp"
#include "gpu/engine.hpp"

namespace xcorr::gpu {
namespace {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

Result<std::vector<VariantProfile>> profile_problem(
    const ProfileRequest& r, const std::function<bool(long long, long long)>& progress) {
  const Index lr = r.mode == Mode::valid ? std::max<Index>(1, r.rows / 2) : r.rows;
  const Index lc = r.mode == Mode::valid ? std::max<Index>(1, r.cols / 2) : r.cols;
  const Index n_right = r.form == Form::n_to_mn ? r.n * r.m : r.form == Form::one_to_one ? 1 : r.m;
  const Index n_left = r.form == Form::one_to_one || r.form == Form::one_to_many ? 1 : r.n;
  const Stack<float> left = synth::uniform_noise(lr, lc, n_left, 1),
                     right = synth::uniform_noise(r.rows, r.cols, n_right, 2);
  const CorrelationProblem p{{r.form, r.mode, r.norm}, left.view(), right.view()};
  XCORR_RETURN_IF_ERROR(p.validate());
  const double flops = 2 * p.direct_multiply_adds();
  const double bytes = 4.0 * static_cast<double>(left.values().size() + right.values().size() +
                                                 p.output_shape().area() * p.output_count());
  std::vector<const Correlator*> todo;
  for (const auto& v : engine_registry().all()) {
    if (!v->info().auto_eligible || !v->can_implement(p).is_ok()) continue;
    if (!r.variants.empty() &&
        std::find(r.variants.begin(), r.variants.end(), v->info().name) == r.variants.end())
      continue;
    todo.push_back(v.get());
  }
  Stack<float> out(p.output_shape().rows, p.output_shape().cols, p.output_count());
  std::vector<VariantProfile> rows;
  for (const Correlator* v : todo) {
    VariantProfile row;
    row.variant = v->info().name;
    row.device = v->info().device;
    row.params = format_params(v->info().params, v->params());
    row.form = to_string(r.form);
    row.mode = to_string(r.mode);
    row.norm = to_string(r.norm);
    row.rows = r.rows, row.cols = r.cols, row.n = n_left, row.m = n_right;
    if (is_gpu_variant(*v)) {
      auto t = time_on_gpu(*v, p, 2, std::max(1, r.repeats));
      if (!t.is_ok()) return t.status();
      row.median_ms = t.value().kernel_median_ms, row.min_ms = t.value().kernel_min_ms;
      row.p90_ms = t.value().kernel_p90_ms, row.e2e_ms = t.value().e2e_median_ms;
      auto kernels = kernel_profiles(*v, p);
      if (!kernels.is_ok()) return kernels.status();
      for (const KernelProfile& k : kernels.value()) {
        const auto occ = profiling::theoretical_occupancy(
            {k.threads_per_block, k.registers, k.static_shared_bytes, k.dynamic_shared_bytes});
        row.kernels.push_back({k.kernel, k.registers, k.static_shared_bytes, k.dynamic_shared_bytes,
                               k.local_bytes, k.threads_per_block, occ.fraction,
                               k.cuda_blocks_per_sm * ((k.threads_per_block + 31) / 32) / 64.0,
                               occ.limiter});
      }
    } else {
      std::vector<double> times;
      for (int k = 0; k < std::max(1, r.repeats / 5); ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        XCORR_RETURN_IF_ERROR(v->run(p, out.view()));
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
      }
      row.median_ms = quantile(times, 0.5), row.min_ms = quantile(times, 0);
      row.p90_ms = quantile(times, 0.9), row.e2e_ms = row.median_ms;
    }
    row.gflops = flops / (row.median_ms * 1e-3) / 1e9;
    row.bandwidth_gb_s = bytes / (row.median_ms * 1e-3) / 1e9;
    rows.push_back(std::move(row));
    if (progress &&
        !progress(static_cast<long long>(rows.size()), static_cast<long long>(todo.size())))
      return Status{ErrorCode::cancelled, "profile cancelled"};
  }
  return rows;
}

std::string profile_to_json(const std::vector<VariantProfile>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const VariantProfile& r : rows) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const KernelRow& k : r.kernels) {
      kernels.push_back({{"kernel", k.kernel},
                         {"registers", k.registers},
                         {"static_shared_bytes", k.static_shared_bytes},
                         {"dynamic_shared_bytes", k.dynamic_shared_bytes},
                         {"local_bytes", k.local_bytes},
                         {"threads_per_block", k.threads_per_block},
                         {"occupancy", k.occupancy},
                         {"occupancy_limiter", k.limiter},
                         {"cuda_occupancy", k.cuda_occupancy},
                         {"bank_conflicts_modelled", nullptr},
                         {"counters", "unavailable: CUPTI range profiler not integrated yet"}});
    }
    out.push_back({{"variant", r.variant},
                   {"device", r.device},
                   {"params", r.params},
                   {"form", r.form},
                   {"mode", r.mode},
                   {"norm", r.norm},
                   {"rows", r.rows},
                   {"cols", r.cols},
                   {"n", r.n},
                   {"m", r.m},
                   {"median_ms", r.median_ms},
                   {"min_ms", r.min_ms},
                   {"p90_ms", r.p90_ms},
                   {"e2e_ms", r.e2e_ms},
                   {"gflops", r.gflops},
                   {"bandwidth_gb_s", r.bandwidth_gb_s},
                   {"kernels", kernels}});
  }
  return out.dump(1) + "\n";
}

Result<std::vector<VariantProfile>> profile_from_json(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_array()) return Status{ErrorCode::parse_error, "a profile is a JSON list of rows"};
    std::vector<VariantProfile> rows;
    for (const auto& e : j) {
      VariantProfile r;
      r.variant = e.at("variant").get<std::string>();
      r.device = e.value("device", std::string());
      r.params = e.value("params", std::string());
      r.form = e.value("form", std::string());
      r.mode = e.value("mode", std::string());
      r.norm = e.value("norm", std::string());
      r.rows = e.value("rows", Index{0});
      r.cols = e.value("cols", Index{0});
      r.n = e.value("n", Index{0});
      r.m = e.value("m", Index{0});
      r.median_ms = e.at("median_ms").get<double>();
      r.min_ms = e.value("min_ms", 0.0);
      r.p90_ms = e.value("p90_ms", 0.0);
      r.e2e_ms = e.value("e2e_ms", 0.0);
      r.gflops = e.value("gflops", 0.0);
      r.bandwidth_gb_s = e.value("bandwidth_gb_s", 0.0);
      for (const auto& k : e.value("kernels", nlohmann::json::array())) {
        r.kernels.push_back({k.at("kernel").get<std::string>(), k.value("registers", 0),
                             k.value("static_shared_bytes", 0), k.value("dynamic_shared_bytes", 0),
                             k.value("local_bytes", 0), k.value("threads_per_block", 0),
                             k.value("occupancy", 0.0), k.value("cuda_occupancy", 0.0),
                             k.value("occupancy_limiter", std::string())});
      }
      rows.push_back(std::move(r));
    }
    return rows;
  } catch (const nlohmann::json::exception& e) {
    return Status{ErrorCode::parse_error, std::string("not a profile: ") + e.what()};
  }
}

std::string profile_to_csv(const std::vector<VariantProfile>& rows) {
  std::string s =
      "variant,device,median_ms,min_ms,p90_ms,e2e_ms,gflops,bandwidth_gb_s,kernel,registers,"
      "shared_bytes,threads_per_block,occupancy,occupancy_limiter,cuda_occupancy\n";
  for (const VariantProfile& r : rows) {
    const std::string head = r.variant + "," + r.device + "," + std::to_string(r.median_ms) + "," +
                             std::to_string(r.min_ms) + "," + std::to_string(r.p90_ms) + "," +
                             std::to_string(r.e2e_ms) + "," + std::to_string(r.gflops) + "," +
                             std::to_string(r.bandwidth_gb_s);
    if (r.kernels.empty()) s += head + ",,,,,,,\n";
    for (const KernelRow& k : r.kernels) {
      s += head + "," + k.kernel + "," + std::to_string(k.registers) + "," +
           std::to_string(k.static_shared_bytes + k.dynamic_shared_bytes) + "," +
           std::to_string(k.threads_per_block) + "," + std::to_string(k.occupancy) + "," +
           k.limiter + "," + std::to_string(k.cuda_occupancy) + "\n";
    }
  }
  return s;
}

}  // namespace xcorr::gpu
