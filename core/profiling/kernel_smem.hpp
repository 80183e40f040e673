// Bank-conflict models of our shared-memory kernels, fed by the kernels' own index functions
// (core/smem/*_layout.hpp, shared with the CUDA code): each model walks every warp-level shared
// load and store one launch executes and prices it with smem_cost (the wavefront model validated
// on the H200). Totals are per launch, in warp-level instructions and wavefronts, the same units
// as CUPTI's smsp__sass_inst_executed_op_shared_{ld,st}.sum and
// l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum, so model and counters compare 1:1.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/profiling/smem_model.hpp"
#include "core/smem/tiled_layout.hpp"
#include "core/smem/zncc_tile_layout.hpp"

namespace xcorr::profiling {

struct SmemTraffic {
  double load_instructions = 0, load_wavefronts = 0, load_ideal = 0;
  double store_instructions = 0, store_wavefronts = 0, store_ideal = 0;
  double load_conflicts() const { return load_wavefronts - load_ideal; }
  double store_conflicts() const { return store_wavefronts - store_ideal; }
};

// One shared array and the warp access that walks it across rows: lanes cover
// (32 / lanes_per_row) rows x lanes_per_row columns of a row-major array of `pitch_elements`
// (lanes_per_row = 1: one column, the classic case). `wavefronts` is that access's cost now;
// `gcd_degree` the classic gcd(pitch in 4-byte words, 32) (Baskaran et al., ICS'08);
// `pad_elements` the smallest padding that makes the access cost its ideal, and its cost.
struct SmemArray {
  std::string name, access;
  int width_bytes = 4, pitch_elements = 0, lanes_per_row = 1;
  int wavefronts = 0, ideal = 0, gcd_degree = 1, pad_elements = 0, padded_wavefronts = 0;
};

// `skippable_loads`: load instructions the hardware may not execute because the compiler put
// them behind a data-dependent branch (counted in traffic; the counters may read up to this many
// fewer instructions and wavefronts). `load_wavefront_slack`: the fraction by which measured
// load wavefronts were seen below the model on the H200 where the model is known to over-count
// (0 = the model is a lower bound, as for the thesis kernels).
struct KernelSmemModel {
  SmemTraffic traffic;
  std::vector<SmemArray> arrays;
  double skippable_loads = 0;
  double load_wavefront_slack = 0;
};

SmemArray describe_array(std::string name, std::string access, int pitch_elements, int width_bytes,
                         int lanes_per_row);

// Accumulates warp accesses: byte addresses of the 32 lanes, `active` lane mask, repeated `times`.
class SmemTally {
 public:
  void load(int width_bytes, const std::array<std::uint32_t, kWarp>& a, std::uint32_t active,
            double times = 1);
  void store(int width_bytes, const std::array<std::uint32_t, kWarp>& a, std::uint32_t active,
             double times = 1);
  const SmemTraffic& traffic() const { return t_; }

 private:
  SmemTraffic t_;
};

// gpu_tiled_RYxRX on a problem with `out_count` outputs.
KernelSmemModel model_tiled(const smem::TiledGeometry& g, int RY, int RX, long long out_count);

// gpu_warp_per_shift_shared: one launch of the kernel for one layout.
struct WarpPerShiftSharedLaunch {
  bool full = true;
  int h = 0, w = 0, H = 0, W = 0, out_rows = 0, out_cols = 0;
  int group_cols = 1, col_groups = 1;
  int blocks_per_group = 1;  // gridDim.x: every block of a group stages it
  // (rights staged in a pair group, number of pair groups with that many).
  std::vector<std::pair<int, long long>> rights_per_group;
};
KernelSmemModel model_warp_per_shift_shared(const WarpPerShiftSharedLaunch& l);

// gpu_zncc_tiled: one launch over `results` results (every tile of every result), surface or
// peak output.
KernelSmemModel model_zncc_tiled(const smem::ZnccTilePlan& q, bool peak, long long results);

// gpu_block_per_shift: `outputs` outputs, each reduced through the partial-sum array.
KernelSmemModel model_block_per_shift(long long outputs);

}  // namespace xcorr::profiling
