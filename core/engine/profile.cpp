// Profiles of one correlation problem across every variant that can run it
// (core/engine/engine.hpp): timings (kernel-only with CUDA events on the GPU, wall time on the
// CPU), GFLOP/s, bandwidth, and per GPU kernel its resources, occupancy (ours and CUDA's), modelled
// shared-memory traffic and bank conflicts and, when CUPTI can read them, the measured counters;
// their JSON and CSV.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/engine/engine.hpp"
#include "core/engine/gpu_backend.hpp"
#include "core/io/json_parse.hpp"
#include "core/profiling/occupancy.hpp"
#include "core/synth/speckle.hpp"

namespace xcorr::engine {
namespace {

std::string fmt_number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

// Measured counters, one CUPTI range per launch in launch order.
void attach_counters(const Correlator& v, const CorrelationProblem& p, VariantProfile& row) {
  const CounterReadout c = gpu_backend()->read_counters(v, p);
  if (!c.unavailable.empty()) {
    row.counters_note = c.unavailable;
  } else if (c.ranges.size() != row.kernels.size()) {
    row.counters_note = "counters not matched: CUPTI recorded " + std::to_string(c.ranges.size()) +
                        " kernel ranges for " + std::to_string(row.kernels.size()) + " launches";
  } else {
    for (std::size_t k = 0; k < c.ranges.size(); ++k) row.kernels[k].counters = c.ranges[k];
  }
}

nlohmann::json traffic_json(const profiling::SmemTraffic& t) {
  return {{"load_instructions", t.load_instructions}, {"load_wavefronts", t.load_wavefronts},
          {"load_conflicts", t.load_conflicts()},     {"store_instructions", t.store_instructions},
          {"store_wavefronts", t.store_wavefronts},   {"store_conflicts", t.store_conflicts()}};
}

profiling::SmemTraffic traffic_from_json(const nlohmann::json& j) {
  profiling::SmemTraffic t;
  t.load_instructions = j.value("load_instructions", 0.0);
  t.load_wavefronts = j.value("load_wavefronts", 0.0);
  t.load_ideal = t.load_wavefronts - j.value("load_conflicts", 0.0);
  t.store_instructions = j.value("store_instructions", 0.0);
  t.store_wavefronts = j.value("store_wavefronts", 0.0);
  t.store_ideal = t.store_wavefronts - j.value("store_conflicts", 0.0);
  return t;
}

nlohmann::json kernel_json(const KernelRow& k) {
  nlohmann::json j = {
      {"kernel", k.kernel},
      {"registers", k.registers},
      {"static_shared_bytes", k.static_shared_bytes},
      {"dynamic_shared_bytes", k.dynamic_shared_bytes},
      {"local_bytes", k.local_bytes},
      {"threads_per_block", k.threads_per_block},
      {"occupancy", k.occupancy},
      {"occupancy_limiter", k.limiter},
      {"cuda_occupancy", k.cuda_occupancy},
      {"smem_model", k.smem_model ? traffic_json(*k.smem_model) : nlohmann::json()}};
  nlohmann::json arrays = nlohmann::json::array();
  for (const profiling::SmemArray& a : k.smem_arrays) {
    arrays.push_back({{"name", a.name},
                      {"access", a.access},
                      {"width_bytes", a.width_bytes},
                      {"pitch_elements", a.pitch_elements},
                      {"lanes_per_row", a.lanes_per_row},
                      {"wavefronts", a.wavefronts},
                      {"ideal", a.ideal},
                      {"gcd_degree", a.gcd_degree},
                      {"pad_elements", a.pad_elements},
                      {"padded_wavefronts", a.padded_wavefronts}});
  }
  j["smem_arrays"] = arrays;
  if (k.counters) {
    nlohmann::json c = traffic_json(k.counters->smem);
    c["range"] = k.counters->range;
    c["achieved_occupancy"] = k.counters->achieved_occupancy;
    c["duration_ms"] = k.counters->duration_ms;
    j["counters"] = c;
  } else {
    j["counters"] = nullptr;
  }
  return j;
}

KernelRow kernel_from_json(const nlohmann::json& k) {
  KernelRow r;
  r.kernel = k.at("kernel").get<std::string>();
  r.registers = k.value("registers", 0);
  r.static_shared_bytes = k.value("static_shared_bytes", 0);
  r.dynamic_shared_bytes = k.value("dynamic_shared_bytes", 0);
  r.local_bytes = k.value("local_bytes", 0);
  r.threads_per_block = k.value("threads_per_block", 0);
  r.occupancy = k.value("occupancy", 0.0);
  r.cuda_occupancy = k.value("cuda_occupancy", 0.0);
  r.limiter = k.value("occupancy_limiter", std::string());
  if (k.contains("smem_model") && k["smem_model"].is_object())
    r.smem_model = traffic_from_json(k["smem_model"]);
  for (const auto& a : k.value("smem_arrays", nlohmann::json::array())) {
    profiling::SmemArray s;
    s.name = a.value("name", std::string());
    s.access = a.value("access", std::string());
    s.width_bytes = a.value("width_bytes", 4);
    s.pitch_elements = a.value("pitch_elements", 0);
    s.lanes_per_row = a.value("lanes_per_row", 1);
    s.wavefronts = a.value("wavefronts", 0);
    s.ideal = a.value("ideal", 0);
    s.gcd_degree = a.value("gcd_degree", 1);
    s.pad_elements = a.value("pad_elements", 0);
    s.padded_wavefronts = a.value("padded_wavefronts", 0);
    r.smem_arrays.push_back(s);
  }
  if (k.contains("counters") && k["counters"].is_object()) {
    KernelCounters c;
    c.smem = traffic_from_json(k["counters"]);
    c.range = k["counters"].value("range", std::string());
    c.achieved_occupancy = k["counters"].value("achieved_occupancy", 0.0);
    c.duration_ms = k["counters"].value("duration_ms", 0.0);
    r.counters = c;
  }
  return r;
}

}  // namespace

Result<std::vector<VariantProfile>> profile_problem(
    const ProfileRequest& r, const std::function<bool(long long, long long)>& progress) {
  const Index half_r = r.template_size > 0 ? r.template_size : std::max<Index>(1, r.rows / 2);
  const Index half_c = r.template_size > 0 ? r.template_size : std::max<Index>(1, r.cols / 2);
  const Index lr = r.mode == Mode::valid ? half_r : r.rows;
  const Index lc = r.mode == Mode::valid ? half_c : r.cols;
  const Index n_right = r.form == Form::n_to_mn ? r.n * r.m : r.form == Form::one_to_one ? 1 : r.m;
  const Index n_left = r.form == Form::one_to_one || r.form == Form::one_to_many ? 1 : r.n;
  const Stack<float> left = synth::uniform_noise(lr, lc, n_left, 1),
                     right = synth::uniform_noise(r.rows, r.cols, n_right, 2);
  const CorrelationProblem p{
      {r.form, r.mode, r.norm, r.output, SubpixelMethod::quadratic2d}, left.view(), right.view()};
  XCORR_RETURN_IF_ERROR(p.validate());
  const double flops = 2 * p.direct_multiply_adds();
  const double bytes = 4.0 * static_cast<double>(left.values().size() + right.values().size() +
                                                 p.output_shape().area() * p.output_count());
  std::vector<const Correlator*> todo;
  for (const auto& v : registry().all()) {
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
    row.output = to_string(r.output);
    row.rows = r.rows, row.cols = r.cols, row.n = n_left, row.m = n_right;
    if (is_gpu_variant(*v)) {
      auto t = time_on_gpu(*v, p, 2, std::max(1, r.repeats));
      if (!t.is_ok()) return t.status();
      row.median_ms = t.value().kernel_median_ms, row.min_ms = t.value().kernel_min_ms;
      row.p90_ms = t.value().kernel_p90_ms, row.e2e_ms = t.value().e2e_median_ms;
      auto kernels = gpu_backend()->kernel_profiles(*v, p);
      if (!kernels.is_ok()) return kernels.status();
      // The limits of the device the registry runs on (GPU 0, as emulated by XCORR_GPU_PROFILE).
      const auto gpus = devices();
      const profiling::SmLimits sm = gpus.is_ok() && !gpus.value().empty()
                                         ? gpus.value().front().sm_limits()
                                         : profiling::SmLimits{};
      for (const KernelProfile& k : kernels.value()) {
        const auto occ = profiling::theoretical_occupancy(
            {k.threads_per_block, k.registers, k.static_shared_bytes, k.dynamic_shared_bytes}, sm);
        KernelRow kr;
        kr.kernel = k.kernel;
        kr.registers = k.registers;
        kr.static_shared_bytes = k.static_shared_bytes;
        kr.dynamic_shared_bytes = k.dynamic_shared_bytes;
        kr.local_bytes = k.local_bytes;
        kr.threads_per_block = k.threads_per_block;
        kr.occupancy = occ.fraction;
        kr.cuda_occupancy = k.cuda_blocks_per_sm * ((k.threads_per_block + 31) / 32) /
                            static_cast<double>(sm.max_warps);
        kr.limiter = occ.limiter;
        if (k.smem) {
          kr.smem_model = k.smem->traffic;
          kr.smem_arrays = k.smem->arrays;
        }
        row.kernels.push_back(std::move(kr));
      }
      if (r.counters) attach_counters(*v, p, row);
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
    for (const KernelRow& k : r.kernels) kernels.push_back(kernel_json(k));
    out.push_back({{"variant", r.variant},
                   {"device", r.device},
                   {"params", r.params},
                   {"form", r.form},
                   {"mode", r.mode},
                   {"norm", r.norm},
                   {"output", r.output},
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
                   {"kernels", kernels},
                   {"counters_note", r.counters_note}});
  }
  return out.dump(1) + "\n";
}

Result<std::vector<VariantProfile>> profile_from_json(const std::string& text) {
  auto parsed = io::parse_json(text, "the profile");
  if (!parsed.is_ok()) return parsed.status();
  try {
    const nlohmann::json& j = parsed.value();
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
      r.output = e.value("output", std::string("surface"));
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
      for (const auto& k : e.value("kernels", nlohmann::json::array()))
        r.kernels.push_back(kernel_from_json(k));
      r.counters_note = e.value("counters_note", std::string());
      rows.push_back(std::move(r));
    }
    return rows;
  } catch (const nlohmann::json::exception& e) {
    return Status{ErrorCode::parse_error, std::string("not a profile: ") + e.what()};
  }
}

std::string profile_to_csv(const std::vector<VariantProfile>& rows) {
  // Numbers with enough digits for counters in the billions; empty cells for what is missing.
  auto num = [](double v) { return fmt_number(v); };
  auto traffic = [&](const std::optional<profiling::SmemTraffic>& t) {
    if (!t) return std::string(",,,,,");
    return num(t->load_instructions) + "," + num(t->load_wavefronts) + "," +
           num(t->load_conflicts()) + "," + num(t->store_instructions) + "," +
           num(t->store_wavefronts) + "," + num(t->store_conflicts());
  };
  std::string s =
      "variant,device,params,median_ms,min_ms,p90_ms,e2e_ms,gflops,bandwidth_gb_s,kernel,"
      "registers,shared_bytes,local_bytes,threads_per_block,occupancy,occupancy_limiter,"
      "cuda_occupancy,achieved_occupancy,"
      "model_ld_instr,model_ld_wavefronts,model_ld_conflicts,model_st_instr,model_st_wavefronts,"
      "model_st_conflicts,"
      "measured_ld_instr,measured_ld_wavefronts,measured_ld_conflicts,measured_st_instr,"
      "measured_st_wavefronts,measured_st_conflicts,smem_arrays,counters_note\n";
  auto quoted = [](std::string v) {
    std::string q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const VariantProfile& r : rows) {
    const std::string head = r.variant + "," + r.device + "," + quoted(r.params) + "," +
                             num(r.median_ms) + "," + num(r.min_ms) + "," + num(r.p90_ms) + "," +
                             num(r.e2e_ms) + "," + num(r.gflops) + "," + num(r.bandwidth_gb_s);
    if (r.kernels.empty()) s += head + std::string(23, ',') + quoted(r.counters_note) + "\n";
    for (const KernelRow& k : r.kernels) {
      std::string arrays;
      for (const profiling::SmemArray& a : k.smem_arrays) {
        arrays += (arrays.empty() ? "" : "; ") + a.name + ": pitch " +
                  std::to_string(a.pitch_elements) + ", gcd " + std::to_string(a.gcd_degree) +
                  ", " + std::to_string(a.wavefronts) + " wavefronts, pad " +
                  std::to_string(a.pad_elements) + " -> " + std::to_string(a.padded_wavefronts);
      }
      s += head + "," + k.kernel + "," + std::to_string(k.registers) + "," +
           std::to_string(k.static_shared_bytes + k.dynamic_shared_bytes) + "," +
           std::to_string(k.local_bytes) + "," + std::to_string(k.threads_per_block) + "," +
           num(k.occupancy) + "," + k.limiter + "," + num(k.cuda_occupancy) + "," +
           (k.counters ? num(k.counters->achieved_occupancy) : "") + "," + traffic(k.smem_model) +
           "," + traffic(k.counters ? std::optional(k.counters->smem) : std::nullopt) + "," +
           quoted(arrays) + "," + quoted(r.counters_note) + "\n";
    }
  }
  return s;
}

}  // namespace xcorr::engine
