// xcorr list: the registered correlation variants and the GPU devices.
#include <cstdio>
#include <string>

#include "app/commands.hpp"
#include "core/engine/engine.hpp"

namespace xcorr::app {
namespace {

template <class T>
std::string join(const std::vector<T>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + std::string(to_string(x));
  return s;
}

Status run_list() {
  std::printf("%-46s %-6s %-12s %-38s %-11s %-9s %-13s %s\n", "variant", "device", "family",
              "forms", "modes", "norms", "outputs", "summary");
  for (const auto& v : engine::registry().all()) {
    const VariantInfo& i = v->info();
    std::printf("%-46s %-6s %-12s %-38s %-11s %-9s %-13s %s\n", i.name.c_str(), i.device.c_str(),
                i.family.c_str(), join(i.forms).c_str(), join(i.modes).c_str(),
                join(i.norms).c_str(), join(i.outputs).c_str(), i.summary.c_str());
    for (const Param& prm : i.params) {
      std::printf(
          "%14s --param %s=%s (default %s): %s\n", "", prm.name.c_str(),
          describe_values(prm).c_str(),
          format_params({prm}, {{prm.name, prm.default_value}}).substr(prm.name.size() + 1).c_str(),
          prm.doc.c_str());
    }
  }
  const auto devices = engine::devices();
  if (!devices.is_ok()) {
    std::printf("\nGPU: none (%s)\n", devices.status().message().c_str());
  } else {
    for (const auto& d : devices.value()) {
      std::printf(
          "\nGPU %d: %s, %s, %d SMs, %.1f GiB, %zu KiB shared memory per block, %.2f GHz, "
          "%.0f GB/s%s\n",
          d.index, d.name.c_str(), d.arch().c_str(), d.multiprocessors,
          static_cast<double>(d.global_memory_bytes) / (1 << 30),
          d.shared_memory_per_block_optin_bytes >> 10, d.clock_ghz, d.memory_bandwidth_gbs,
          d.profile.empty() ? "" : (" (emulating " + d.profile + ")").c_str());
      if (!d.unusable.empty())
        std::printf("  not used, GPU work runs on the CPU: %s\n", d.unusable.c_str());
    }
  }
  return Status::ok();
}

}  // namespace

Command add_list_command(CLI::App& app) {
  CLI::App* c =
      app.add_subcommand("list", "List the registered correlation variants and GPU devices");
  return {c, [] { return run_list(); }};
}

}  // namespace xcorr::app
