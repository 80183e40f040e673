// The GPUs a job runs on, as users write them (the `devices` option of DIC jobs, the CLI's
// --devices, the desktop app's GPUs field): "0" or "0,1,3" (CUDA device numbers as `xcorr list`
// shows them, each once) or "all".
#pragma once

#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace xcorr {

// The device numbers, in the order written. `visible`: how many devices this process sees
// ("all" is 0 .. visible - 1, and a number beyond them is an error naming it); negative checks
// the text alone ("all" gives an empty list then). Errors name the text and what is wrong.
Result<std::vector<int>> parse_device_list(std::string_view text, int visible);

}  // namespace xcorr
