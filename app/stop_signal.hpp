// Ctrl-C or SIGTERM in the command-line programs (xcorr, xcorr-mpi): the output being written is
// left as it was (its temporary copy removed), then the signal ends the process as it would
// have. A batch's committed frames stay for resume.
#pragma once

#include <csignal>

#include "core/io/atomic_write.hpp"

namespace xcorr::app {

extern "C" inline void on_stop_signal(int sig) {
  io::remove_temporaries_now();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

inline void install_stop_signal_handlers() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

}  // namespace xcorr::app
