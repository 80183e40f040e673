// Phase correlation shared among several engines (one per GPU): each measure() call's frames are
// cut into chunks of the first lane's frames_per_call(), in order, and chunk c goes to lane
// c % lanes, every lane measuring its chunks at once on its own (a GPU lane: on a host thread
// with its device current). Every chunk is one the lane's engine would have measured alone in
// the same place of the same call sequence, so, on like devices, the shifts are those of one
// lane measuring every frame, bit for bit (tests/gpu/phase_multi_gpu_test.cpp).
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <vector>

#include "core/register/phase_engine.hpp"

namespace xcorr::reg {

// Runs `work` where lane `lane`'s engine lives and gives its status when done (a GPU lane: a
// host thread that made the lane's device current). Also runs each lane's destruction.
using LaneRunner =
    std::function<std::future<Status>(std::size_t lane, std::function<Status()> work)>;

// lanes: at least one, all of one device kind and shape (made by the caller on their devices).
// An engine whose lanes are not all made (null from the first missing one) only frees the others
// where they live: a caller whose lane failed hands it what it made.
std::unique_ptr<PhaseEngine> make_split_phase_engine(
    std::vector<std::unique_ptr<PhaseEngine>> lanes, LaneRunner run);

}  // namespace xcorr::reg
