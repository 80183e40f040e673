// xcorr profile: for every variant that can run one problem, what it costs and why
// (engine::profile_problem, core/engine/profile.cpp): timings, GFLOP/s, bandwidth, and per GPU
// kernel its resources and occupancy (ours beside CUDA's), then per kernel its shared-memory
// traffic: modelled from the kernel's own index functions beside CUPTI's counters (or why they
// could not be read).
#include <cstdio>
#include <fstream>
#include <memory>

#include "app/commands.hpp"
#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"

namespace xcorr::app {
namespace {

struct ProfileOptions {
  std::string form = "one_to_many", mode = "full", norm = "none", output = "surface", out;
  std::vector<Index> size{64, 64};
  std::vector<Index> sizes;  // a sweep of square sizes instead of --size
  engine::ProfileRequest request;
};

std::string count(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}

// Shared-memory wavefronts and bank conflicts per kernel, model beside measurement.
void print_shared_memory(const std::vector<engine::VariantProfile>& rows) {
  std::printf("\nshared memory per launch (warp-level; model | measured by CUPTI)\n");
  std::printf("%-46s %-22s %27s %27s %9s\n", "variant", "kernel", "loads instr/wavefr/confl",
              "stores instr/wavefr/confl", "achieved");
  std::string last_note;
  for (const engine::VariantProfile& v : rows) {
    if (v.device != "gpu") continue;
    for (const engine::KernelRow& k : v.kernels) {
      auto cell = [](const std::optional<profiling::SmemTraffic>& t, bool load) {
        if (!t) return std::string("-");
        return load ? count(t->load_instructions) + "/" + count(t->load_wavefronts) + "/" +
                          count(t->load_conflicts())
                    : count(t->store_instructions) + "/" + count(t->store_wavefronts) + "/" +
                          count(t->store_conflicts());
      };
      const auto measured = k.counters ? std::optional(k.counters->smem) : std::nullopt;
      const profiling::SmemTraffic none;
      const auto model = k.smem_model ? k.smem_model : std::optional(none);
      std::printf("%-46s %-22s %27s %27s %8s\n", v.variant.c_str(), k.kernel.c_str(),
                  (cell(model, true) + " | " + cell(measured, true)).c_str(),
                  (cell(model, false) + " | " + cell(measured, false)).c_str(),
                  k.counters ? (count(100 * k.counters->achieved_occupancy) + "%").c_str() : "-");
      for (const profiling::SmemArray& a : k.smem_arrays) {
        std::printf(
            "    %s, %s: pitch %d, gcd degree %d, %d wavefronts (ideal %d); "
            "pad %d -> %d\n",
            a.name.c_str(), a.access.c_str(), a.pitch_elements, a.gcd_degree, a.wavefronts, a.ideal,
            a.pad_elements, a.padded_wavefronts);
      }
    }
    if (!v.counters_note.empty() && v.counters_note != last_note) {
      std::printf("    %s: %s\n", v.variant.c_str(), v.counters_note.c_str());
      last_note = v.counters_note;
    }
  }
}

Status run_profile(ProfileOptions o) {
  engine::ProfileRequest& r = o.request;
  r.form = *parse_form(o.form);
  r.mode = *parse_mode(o.mode);
  r.norm = *parse_normalization(o.norm);
  r.output = *parse_output(o.output);
  std::vector<std::pair<Index, Index>> shapes;
  if (o.sizes.empty()) shapes.push_back({o.size[0], o.size.size() > 1 ? o.size[1] : o.size[0]});
  for (const Index s : o.sizes) shapes.push_back({s, s});
  Result<std::vector<engine::VariantProfile>> rows = std::vector<engine::VariantProfile>{};
  for (const auto& [h, w] : shapes) {
    r.rows = h;
    r.cols = w;
    auto part = engine::profile_problem(r);
    if (!part.is_ok()) return part.status();
    rows.value().insert(rows.value().end(), part.value().begin(), part.value().end());
  }
  std::printf("%-46s %10s %10s %10s %9s %9s  %s\n", "variant", "median_ms", "p90_ms", "e2e_ms",
              "GFLOP/s", "GB/s", "kernels: regs smem(B) block occupancy ours/CUDA limiter");
  for (const engine::VariantProfile& v : rows.value()) {
    std::string kernels;
    for (const engine::KernelRow& k : v.kernels) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s %d %d %d %.0f%%/%.0f%% %s", k.kernel.c_str(), k.registers,
                    k.static_shared_bytes + k.dynamic_shared_bytes, k.threads_per_block,
                    100 * k.occupancy, 100 * k.cuda_occupancy, k.limiter.c_str());
      kernels += (kernels.empty() ? "" : "; ") + std::string(buf);
    }
    if (v.kernels.empty()) kernels = v.device == "gpu" ? "(library kernels: cuFFT)" : "(CPU)";
    std::printf("%-46s %10.4f %10.4f %10.4f %9.1f %9.1f  %s\n", v.variant.c_str(), v.median_ms,
                v.p90_ms, v.e2e_ms, v.gflops, v.bandwidth_gb_s, kernels.c_str());
  }
  print_shared_memory(rows.value());
  if (o.out.empty()) return Status::ok();
  const std::string text = io::lowercase_extension(o.out) == ".csv"
                               ? engine::profile_to_csv(rows.value())
                               : engine::profile_to_json(rows.value());
  return io::write_text_atomically(o.out, text);
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
  c->add_option("--sizes", o->sizes, "A sweep of square sizes, e.g. 8,16,32,64,128")
      ->delimiter(',');
  c->add_option("--n", o->request.n, "Left matrices (n_to_m, n_to_mn)")->capture_default_str();
  c->add_option("--m", o->request.m, "Right matrices (one_to_many, n_to_m) or per left (n_to_mn)")
      ->capture_default_str();
  c->add_option("--mode", o->mode, "full or valid (valid: templates of half the size)")
      ->check(CLI::IsMember({"full", "valid"}))
      ->capture_default_str();
  c->add_option("--norm", o->norm, "none or zncc")
      ->check(CLI::IsMember({"none", "zncc"}))
      ->capture_default_str();
  c->add_option("--output", o->output, "surface or peak (the maximum per pair; valid mode)")
      ->check(CLI::IsMember({"surface", "peak"}))
      ->capture_default_str();
  c->add_option("--template", o->request.template_size,
                "Valid mode: template side in px (default: half the size)")
      ->check(CLI::NonNegativeNumber);
  c->add_option("--variants", o->request.variants, "Only these variants");
  c->add_option("--repeats", o->request.repeats, "Timed runs")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  c->add_flag("!--no-counters", o->request.counters,
              "Do not read hardware counters (CUPTI kernel replay runs each kernel several times)");
  c->add_option("--out", o->out, "profile.json or profile.csv");
  return {c, [o] { return run_profile(*o); }};
}

}  // namespace xcorr::app
