#include "core/profiling/kernel_smem.hpp"

#include <map>

#include "core/smem/block_per_shift_layout.hpp"
#include "core/smem/warp_per_shift_layout.hpp"

namespace xcorr::profiling {
namespace {

using Addresses = std::array<std::uint32_t, kWarp>;

// Lanes [first, first + 32) of a block-strided loop over `count` elements: active mask.
std::uint32_t active_below(int first, int count) {
  const int n = count - first;
  if (n <= 0) return 0;
  return n >= kWarp ? 0xffffffffu : (1u << n) - 1u;
}

void add(SmemTraffic& t, const SmemTraffic& part, double times) {
  t.load_instructions += part.load_instructions * times;
  t.load_wavefronts += part.load_wavefronts * times;
  t.load_ideal += part.load_ideal * times;
  t.store_instructions += part.store_instructions * times;
  t.store_wavefronts += part.store_wavefronts * times;
  t.store_ideal += part.store_ideal * times;
}

std::uint32_t bytes(int slot) {
  return static_cast<std::uint32_t>(slot) * 4u;
}

// One warp instruction (none when no lane is active), priced by smem_cost, `times` over.
void add_access(int width_bytes, const Addresses& a, std::uint32_t active, double times,
                double& instructions, double& wavefronts, double& ideal) {
  if (active == 0) return;
  const SmemCost c = smem_cost(width_bytes, a, active);
  instructions += times;
  wavefronts += c.wavefronts * times;
  ideal += c.ideal * times;
}

}  // namespace

void SmemTally::load(int width_bytes, const Addresses& a, std::uint32_t active, double times) {
  add_access(width_bytes, a, active, times, t_.load_instructions, t_.load_wavefronts,
             t_.load_ideal);
}

void SmemTally::store(int width_bytes, const Addresses& a, std::uint32_t active, double times) {
  add_access(width_bytes, a, active, times, t_.store_instructions, t_.store_wavefronts,
             t_.store_ideal);
}

SmemArray describe_array(std::string name, std::string access, int pitch_elements, int width_bytes,
                         int lanes_per_row) {
  SmemArray s;
  s.name = std::move(name);
  s.access = std::move(access);
  s.width_bytes = width_bytes;
  s.pitch_elements = pitch_elements;
  s.lanes_per_row = lanes_per_row;
  const SmemCost now = row_walk_cost(pitch_elements, width_bytes, lanes_per_row);
  s.wavefronts = now.wavefronts;
  s.ideal = now.ideal;
  s.gcd_degree = stride_conflict_degree(pitch_elements * width_bytes / 4);
  const Padding p = conflict_free_padding(pitch_elements, width_bytes, lanes_per_row);
  s.pad_elements = p.pad_elements;
  s.padded_wavefronts = p.cost.wavefronts;
  return s;
}

KernelSmemModel model_tiled(const smem::TiledGeometry& g, int RY, int RX, long long out_count) {
  const int BY = smem::kTiledWarps * RY, BX = 32 * RX;
  const int grid_x = (g.out_cols + BX - 1) / BX, grid_y = (g.out_rows + BY - 1) / BY;
  SmemTally per_pair;  // every pair costs the same in every block column/row
  Addresses a{};
  for (int by = 0; by < grid_y; ++by) {
    for (int bx = 0; bx < grid_x; ++bx) {
      const smem::TiledBlock b = smem::tiled_block(g, RY, RX, bx, by);
      for (int warp = 0; warp < smem::kTiledWarps; ++warp) {
        for (int ii = warp; ii < b.nI; ii += smem::kTiledWarps) {
          for (int jj0 = 0; jj0 < b.nJ; jj0 += kWarp) {
            for (int l = 0; l < kWarp; ++l) a[l] = bytes(smem::tiled_template_slot(b, ii, jj0 + l));
            per_pair.store(4, a, active_below(jj0, b.nJ));
          }
        }
        for (int yy = warp; yy < b.s_rows; yy += smem::kTiledWarps) {
          for (int xx0 = 0; xx0 < b.s_cols; xx0 += kWarp) {
            for (int l = 0; l < kWarp; ++l) a[l] = bytes(smem::tiled_window_slot(b, yy, xx0 + l));
            per_pair.store(4, a, active_below(xx0, b.s_cols));
          }
        }
        const smem::TiledWarp t = smem::tiled_warp(g, b, RY, warp);
        if (t.u0w >= g.out_rows) continue;
        for (int j = b.j_lo; j < b.j_hi; ++j) {
          auto window = [&](int row) {
            for (int rx = 0; rx < RX; ++rx) {
              for (int l = 0; l < kWarp; ++l)
                a[l] = bytes(smem::tiled_window_read(b, t, j, row, rx, l));
              per_pair.load(4, a, 0xffffffffu);
            }
          };
          for (int r = 0; r < RY - 1; ++r) window(r);
          for (int ii = 0; ii < t.n_iter; ii += RY) {
            for (int q = 0; q < RY; q += 4) {
              a.fill(bytes(smem::tiled_template_read(b, t, j, ii + q)));
              per_pair.load(16, a, 0xffffffffu);
            }
            for (int s = 0; s < RY; ++s) window(ii + s + RY - 1);
          }
        }
      }
    }
  }
  KernelSmemModel m;
  add(m.traffic, per_pair.traffic(), static_cast<double>(out_count));
  // The arrays as the last block stages them (full mode: the whole template, the largest pitch).
  const smem::TiledBlock b0 = smem::tiled_block(g, RY, RX, grid_x - 1, grid_y - 1);
  m.arrays.push_back(
      describe_array("template (column-major)", "staging store: lanes along a row", b0.tp, 4, 1));
  m.arrays.push_back(describe_array("source window (row-major)", "compute load: lanes along a row",
                                    b0.s_cols, 4, kWarp));
  return m;
}

KernelSmemModel model_warp_per_shift_shared(const WarpPerShiftSharedLaunch& l) {
  constexpr int kThreads = 32 * smem::kWpsSharedWarpsPerBlock;
  KernelSmemModel m;
  Addresses a{};
  int max_xw = 1;
  for (int cg = 0; cg < l.col_groups; ++cg) {
    const int c0 = cg * l.group_cols, c1 = smem::imin(l.out_cols, c0 + l.group_cols);
    const smem::ColumnRange cols = smem::right_columns(l.full, c0, c1, l.w, l.W);
    const int xw = cols.last - cols.first;
    max_xw = smem::imax(max_xw, xw);
    // One staged right's outputs (every right of the group costs the same: a uniform shift).
    SmemTally per_right;
    for (int r = 0; r < l.out_rows; ++r) {
      for (int c = c0; c < c1; ++c) {
        const smem::Overlap o = smem::overlap_at(l.full, r, c, l.h, l.w);
        const int ow = o.j1 - o.j0, n = ow * (o.i1 - o.i0);
        for (int e0 = 0; e0 < n; e0 += kWarp) {  // smem::OverlapWalk: element e0 + lane
          std::uint32_t on = 0;
          std::array<int, kWarp> li{}, ri{};
          for (int lane = 0; lane < kWarp; ++lane) {
            const int e = e0 + lane;
            if (e >= n) continue;
            on |= 1u << lane;
            const int i = o.i0 + e / ow, j = o.j0 + e % ow;
            li[lane] = smem::wps_left_slot(i * l.w + j);
            ri[lane] =
                smem::wps_right_slot(l.h, l.w, l.H, xw, 0, (i - o.dy) * xw - o.dx - cols.first + j);
          }
          for (int lane = 0; lane < kWarp; ++lane) a[lane] = bytes(on >> lane & 1u ? li[lane] : 0);
          per_right.load(4, a, on);
          for (int lane = 0; lane < kWarp; ++lane) a[lane] = bytes(on >> lane & 1u ? ri[lane] : 0);
          per_right.load(4, a, on);
        }
      }
    }
    for (const auto& [rights, groups] : l.rights_per_group) {
      // Staging, by each of the group's blocks: the left, then each right's column range.
      SmemTally staging;
      for (int warp = 0; warp < smem::kWpsSharedWarpsPerBlock; ++warp) {
        for (int k0 = 32 * warp; k0 < l.h * l.w; k0 += kThreads) {
          for (int lane = 0; lane < kWarp; ++lane) a[lane] = bytes(smem::wps_left_slot(k0 + lane));
          staging.store(4, a, active_below(k0, l.h * l.w));
        }
        for (int b = 0; b < rights; ++b) {
          for (int k0 = 32 * warp; k0 < l.H * xw; k0 += kThreads) {
            for (int lane = 0; lane < kWarp; ++lane)
              a[lane] = bytes(smem::wps_right_slot(l.h, l.w, l.H, xw, b, k0 + lane));
            staging.store(4, a, active_below(k0, l.H * xw));
          }
        }
      }
      add(m.traffic, staging.traffic(), static_cast<double>(groups) * l.blocks_per_group);
      add(m.traffic, per_right.traffic(), static_cast<double>(groups) * rights);
    }
  }
  const int lw = smem::imin(kWarp, l.w);  // lanes along a full-width overlap row
  m.arrays.push_back(describe_array(
      "left (row-major)", "compute load: 32 consecutive overlap elements (rows of the overlap)",
      l.w, 4, lw));
  m.arrays.push_back(describe_array(
      "staged rights (row-major)",
      "compute load: 32 consecutive overlap elements (rows of the overlap)", max_xw, 4, lw));
  return m;
}

KernelSmemModel model_block_per_shift(long long outputs) {
  SmemTally per_output;
  Addresses a{};
  for (int warp = 0; warp < smem::kBpsThreads / kWarp; ++warp) {  // lane 0 of each warp stores
    a[0] = bytes(smem::bps_partial_slot(warp));
    per_output.store(4, a, 1u);
  }
  a[0] = bytes(smem::bps_partial_slot(0));  // thread 0 reads all four as one 16-byte load
  per_output.load(16, a, 1u);
  KernelSmemModel m;
  add(m.traffic, per_output.traffic(), static_cast<double>(outputs));
  m.arrays.push_back(describe_array("partial sums", "one lane per warp", 1, 4, kWarp));
  return m;
}

}  // namespace xcorr::profiling

namespace xcorr::profiling {

KernelSmemModel model_zncc_tiled(const smem::ZnccTilePlan& q, bool peak, long long results) {
  using namespace smem;  // NOLINT: the layout's index functions
  const int warps = q.warps();
  Addresses a{};
  const std::uint32_t all = 0xffffffffu;
  // Lanes of warp w that own tile outputs (tid < tile_threads).
  auto active_of = [&](int w) { return active_below(32 * w, q.tile_threads()); };
  // block_sum<N>: lane 0 stores N doubles, then every warp reads N doubles of every warp.
  auto block_sum = [&](SmemTally& t, int n) {
    for (int w = 0; w < warps; ++w) {
      for (int k = 0; k < n; ++k) {
        a.fill(0);
        a[0] = bytes(zncc_r_slot(q, w, k));
        t.store(8, a, 1u);
      }
      for (int k = 0; k < n; ++k) {
        for (int v = 0; v < warps; ++v) {
          a.fill(bytes(zncc_r_slot(q, v, k)));
          t.load(8, a, all);
        }
      }
    }
  };
  SmemTally per_result;
  for (int ty = 0; ty < q.tiles_y; ++ty) {
    for (int tx = 0; tx < q.tiles_x; ++tx) {
      const int U0 = ty * q.TR, V0 = tx * q.TC;
      const int rows_in = imin(q.s_rows, q.H - U0), cols_in = imin(q.s_cols, q.W - V0);
      SmemTally& t = per_result;
      for (int w = 0; w < warps; ++w) {
        // 1. Staging stores (template: lanes down a column).
        for (int j = w; j < q.w; j += warps) {
          for (int i0 = 0; i0 < q.n_iter; i0 += kWarp) {
            for (int l = 0; l < kWarp; ++l) a[l] = bytes(zncc_t_slot(q, i0 + l, j));
            t.store(4, a, active_below(i0, q.n_iter));
          }
        }
        for (int y = w; y < q.s_rows; y += warps) {
          for (int x0 = 0; x0 < q.s_cols; x0 += kWarp) {
            for (int l = 0; l < kWarp; ++l) a[l] = bytes(zncc_s_slot(q, y, x0 + l));
            t.store(4, a, active_below(x0, q.s_cols));
          }
        }
      }
      block_sum(t, 4);
      for (int w = 0; w < warps; ++w) {
        // 2. Zero mean in place: a load and a store per element.
        for (int j = w; j < q.w; j += warps) {
          for (int i0 = 0; i0 < q.h; i0 += kWarp) {
            for (int l = 0; l < kWarp; ++l) a[l] = bytes(zncc_t_slot(q, i0 + l, j));
            t.load(4, a, active_below(i0, q.h));
            t.store(4, a, active_below(i0, q.h));
          }
        }
        for (int y = w; y < rows_in; y += warps) {
          for (int x0 = 0; x0 < cols_in; x0 += kWarp) {
            for (int l = 0; l < kWarp; ++l) a[l] = bytes(zncc_s_slot(q, y, x0 + l));
            t.load(4, a, active_below(x0, cols_in));
            t.store(4, a, active_below(x0, cols_in));
          }
        }
      }
      block_sum(t, 2);
      // 3. Horizontal sums: thread y = tid + k * threads walks row y: w loads, a float2 store,
      //    then per further column the entering value and the run's new first value.
      for (int y0 = 0; y0 < q.hs_rows(); y0 += kWarp) {
        const std::uint32_t on = active_below(y0, q.hs_rows());
        for (int j = 0; j < q.w; ++j) {
          for (int l = 0; l < kWarp; ++l) a[l] = bytes(zncc_s_slot(q, y0 + l, j));
          t.load(4, a, on);
        }
        for (int l = 0; l < kWarp; ++l) a[l] = bytes(zncc_h_slot(q, y0 + l, 0));
        t.store(8, a, on);
        for (int c = 1; c < q.TC; ++c) {
          for (int l = 0; l < kWarp; ++l) a[l] = bytes(zncc_s_slot(q, y0 + l, c + q.w - 1));
          t.load(4, a, on);
          for (int l = 0; l < kWarp; ++l) a[l] = bytes(zncc_s_slot(q, y0 + l, c));
          t.load(4, a, on);
          for (int l = 0; l < kWarp; ++l) a[l] = bytes(zncc_h_slot(q, y0 + l, c));
          t.store(8, a, on);
        }
      }
      for (int w = 0; w < warps; ++w) {
        const std::uint32_t on = active_of(w);
        if (on == 0) continue;
        auto lane_g = [&](int l) { return zncc_group(q, imin(32 * w + l, q.tile_threads() - 1)); };
        auto lane_c = [&](int l) { return zncc_col(q, imin(32 * w + l, q.tile_threads() - 1)); };
        // 4. Main loop: (RY - 1) window loads, then per step group tg / 4 16-byte template
        // loads (one address) and RY window loads.
        for (int j = 0; j < q.w; ++j) {
          auto window = [&](int row) {
            for (int l = 0; l < kWarp; ++l)
              a[l] = bytes(zncc_s_slot(q, lane_g(l) * q.RY + row, lane_c(l) + j));
            t.load(4, a, on);
          };
          for (int k = 0; k < q.RY - 1; ++k) window(k);
          for (int ii = 0; ii < q.n_iter; ii += q.RY) {
            for (int k = 0; k < q.tg; k += 4) {
              a.fill(bytes(zncc_t_slot(q, ii, j) + k));
              t.load(16, a, on);
            }
            for (int s = 0; s < q.RY; ++s) window(ii + s + q.RY - 1);
          }
        }
        // 5. Window sums: h rows, then two per further row (a row: its hs float2 and its
        //    run's first value r); peak: the tile's ZNCC stores.
        auto hs_load = [&](int row_offset) {
          for (int l = 0; l < kWarp; ++l)
            a[l] = bytes(zncc_h_slot(q, lane_g(l) * q.RY + row_offset, lane_c(l)));
          t.load(8, a, on);
          for (int l = 0; l < kWarp; ++l)
            a[l] = bytes(zncc_s_slot(q, lane_g(l) * q.RY + row_offset, lane_c(l)));
          t.load(4, a, on);
        };
        for (int i = 0; i < q.h; ++i) hs_load(i);
        for (int k = 0; k < q.RY; ++k) {
          if (k > 0) {
            hs_load(k - 1 + q.h);
            hs_load(k - 1);
          }
          if (peak) {
            for (int l = 0; l < kWarp; ++l)
              a[l] = bytes(zncc_z_slot(q, lane_g(l) * q.RY + k, lane_c(l)));
            t.store(4, a, on);
          }
        }
      }
      if (peak) {
        // 6. Lane 0 of each warp stores its key; every warp reads all keys.
        for (int w = 0; w < warps; ++w) {
          a.fill(0);
          a[0] = bytes(zncc_r_slot(q, w, 0));
          t.store(8, a, 1u);
          for (int v = 0; v < warps; ++v) {
            a.fill(bytes(zncc_r_slot(q, v, 0)));
            t.load(8, a, all);
          }
        }
        // 7. One tile: thread 0 reads the 3x3 neighbourhood (nine single-lane loads).
        if (q.single_tile()) {
          a.fill(0);
          for (int k = 0; k < 9; ++k) t.load(4, a, 1u);
        }
      }
    }
  }
  KernelSmemModel m;
  add(m.traffic, per_result.traffic(), static_cast<double>(results));
  // Measured on the H200 (docs/perf/zncc-gpu.md, counters test): nvcc moves step 7's nine
  // neighbourhood loads inside the interior-peak branch, so blocks whose peak lies on the
  // border skip them; and the load wavefronts come out 0.6-13.4 % below this model (RY 5 and 6
  // on several tiles worst, RY 4 1.5-7.6 %; stores and the other instructions exact), an
  // over-count whose access is not found yet.
  if (peak && q.single_tile()) m.skippable_loads = 9.0 * static_cast<double>(results);
  m.load_wavefront_slack = 0.15;
  m.arrays.push_back(describe_array("window (column-major, pitch chosen for the main loop)",
                                    "staging store: lanes along a row", q.sp, 4, 1));
  m.arrays.push_back(describe_array("window sums (float2, column-major)",
                                    "epilogue load: lanes along a row", q.hp, 8, 1));
  return m;
}

}  // namespace xcorr::profiling
