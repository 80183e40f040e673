// Subcommands of the `xcorr` CLI. Each add_* registers its subcommand and options on `app` and
// returns it with the action to run when it was chosen. Actions return a Status: the caller maps
// expected failures to exit code 2 and internal errors to 1.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "core/status.hpp"

namespace xcorr::app {

using Action = std::function<Status()>;

struct Command {
  CLI::App* subcommand;
  Action action;
};

Command add_correlate_command(CLI::App& app);
Command add_list_command(CLI::App& app);
Command add_speckle_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_dic_command(CLI::App& app);
Command add_bench_dic_command(CLI::App& app);
Command add_bench_register_command(CLI::App& app);
Command add_profile_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_register_command(CLI::App& app);

}  // namespace xcorr::app
