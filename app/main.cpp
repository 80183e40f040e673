// xcorr: command-line front end of XCorr Studio.
// Exit codes: 0 ok, 2 bad input (one-line reason on stderr), 1 internal error.
#include <exception>
#include <filesystem>
#include <iostream>

#include "app/commands.hpp"
#include "app/stop_signal.hpp"
#include "core/engine/engine.hpp"
#include "core/version.hpp"

int main(int argc, char** argv) {
  xcorr::app::install_stop_signal_handlers();
  xcorr::engine::install_gpu();  // before any command uses the engine
  xcorr::engine::set_gpu_notice([](const std::string& line) {
    std::cerr << "xcorr: note: the GPU is not used, work runs on the CPU: " << line << "\n";
  });
  CLI::App app{"xcorr: image cross-correlation for microscope image stacks (XCorr Studio)",
               "xcorr"};
  app.set_version_flag("--version", std::string("xcorr ") + xcorr::kVersion);
  app.require_subcommand(1);
  const xcorr::app::Command commands[] = {
      xcorr::app::add_correlate_command(app), xcorr::app::add_list_command(app),
      xcorr::app::add_speckle_command(app),   xcorr::app::add_bench_command(app),
      xcorr::app::add_dic_command(app),       xcorr::app::add_bench_dic_command(app),
      xcorr::app::add_profile_command(app),   xcorr::app::add_run_command(app),
      xcorr::app::add_register_command(app),  xcorr::app::add_bench_register_command(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "xcorr: error: " << e.what() << " (see --help)\n";
    return 2;
  }
  try {
    for (const auto& command : commands) {
      if (command.subcommand->parsed()) {
        const xcorr::Status s = command.action();
        if (s.is_ok()) return 0;
        if (s.code() == xcorr::ErrorCode::internal) {
          std::cerr << "xcorr: internal error: " << s.message() << "\n";
          return 1;
        }
        std::cerr << "xcorr: error: " << s.message() << "\n";
        return 2;
      }
    }
  } catch (const std::filesystem::filesystem_error& e) {  // the user's files, not our bug
    std::cerr << "xcorr: error: cannot access '" << e.path1().string()
              << "': " << e.code().message() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "xcorr: internal error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
