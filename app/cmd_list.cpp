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
      std::printf("\nGPU %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", d.index, d.name.c_str(),
                  d.compute_major, d.compute_minor, d.multiprocessors,
                  static_cast<double>(d.global_memory_bytes) / (1 << 30));
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
