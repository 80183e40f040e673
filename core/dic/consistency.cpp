#include "core/dic/consistency.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/parallel.hpp"

namespace xcorr::dic {

namespace {
constexpr Index kGrain = 16384;  // points per chunk of the host's threads

// The median of v[0, n), 1 <= n <= 8, finite values: the rest padded with +inf and the eight
// sorted by Knuth's 19 compare-exchanges, each a min and a max without branches (an insertion
// sort mispredicted about half its branches on a real frame's warps: 8.5 ms for a 2048^2 frame
// at step 4 on 16 cores, docs/perf/dic.md). The same value as sorting v[0, n).
double median_of_8(double (&v)[8], int n) {
  for (int i = n; i < 8; ++i) v[i] = std::numeric_limits<double>::infinity();
  constexpr int kNetwork[19][2] = {{0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6},
                                   {3, 7}, {0, 1}, {2, 3}, {4, 5}, {6, 7}, {2, 4}, {3, 5},
                                   {1, 4}, {3, 6}, {1, 2}, {3, 4}, {5, 6}};
  for (const auto& [a, b] : kNetwork) {
    const double lo = std::min(v[a], v[b]), hi = std::max(v[a], v[b]);
    v[a] = lo, v[b] = hi;
  }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
}  // namespace

double kth_smallest(std::vector<double> values, std::size_t k) {
  // Keys that order as the doubles do (negative ones with every bit flipped, the others with
  // the sign bit set); their top 16 bits a bucket.
  const auto key = [](double d) {
    const auto b = std::bit_cast<std::uint64_t>(d);
    return (b >> 63) != 0 ? ~b : b | (std::uint64_t{1} << 63);
  };
  constexpr Index kSmall = 1 << 16, kBuckets = 1 << 16;
  const auto n = static_cast<Index>(values.size());
  if (n > kSmall) {
    // Each chunk's bucket counts, added up; then only the k-th value's bucket is selected in.
    const Index chunks = (n + kGrain * 4 - 1) / (kGrain * 4);
    std::vector<std::uint32_t> counts(static_cast<std::size_t>(chunks * kBuckets));
    parallel_for(chunks, 1, [&](Index first, Index last) {
      for (Index c = first; c < last; ++c) {
        std::uint32_t* mine = counts.data() + c * kBuckets;
        for (Index i = c * kGrain * 4; i < std::min(n, (c + 1) * kGrain * 4); ++i)
          ++mine[key(values[static_cast<std::size_t>(i)]) >> 48];
      }
    });
    std::vector<std::uint64_t> total(kBuckets);
    parallel_for(kBuckets, 4096, [&](Index first, Index last) {
      for (Index b = first; b < last; ++b)
        for (Index c = 0; c < chunks; ++c)
          total[static_cast<std::size_t>(b)] += counts[static_cast<std::size_t>(c * kBuckets + b)];
    });
    std::uint64_t below = 0;
    std::uint64_t bucket = 0;
    while (below + total[bucket] <= k) below += total[bucket++];
    const std::vector<std::size_t> in = parallel_select(n, kGrain, [&](Index i) {
      return key(values[static_cast<std::size_t>(i)]) >> 48 == bucket;
    });
    std::vector<double> part(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) part[i] = values[in[i]];
    values = std::move(part);
    k -= below;
  }
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

std::vector<std::size_t> find_isolated(const Grid& grid, const std::vector<char>& active,
                                       const std::vector<IcgnResult>& points) {
  return parallel_select(grid.rows * grid.cols, kGrain, [&](Index i) {
    const Index r = i / grid.cols, c = i % grid.cols;
    const auto k = static_cast<std::size_t>(i);
    if (!active[k] || points[k].status != PointStatus::converged) return false;
    bool registered = false;
    for (Index dr = -1; dr <= 1; ++dr)
      for (Index dc = -1; dc <= 1; ++dc) {
        const Index nr = r + dr, nc = c + dc;
        if ((dr == 0 && dc == 0) || nr < 0 || nc < 0 || nr >= grid.rows || nc >= grid.cols)
          continue;
        const auto n = static_cast<std::size_t>(nr * grid.cols + nc);
        if (!active[n]) continue;
        if (points[n].status == PointStatus::converged) return false;  // confirmed
        registered = true;
      }
    return registered;
  });
}

std::vector<std::size_t> find_zncc_outliers(const std::vector<char>& active,
                                            const std::vector<IcgnResult>& points) {
  const auto n = static_cast<Index>(points.size());
  const auto counts = [&](std::size_t i) {
    return active[i] && points[i].status == PointStatus::converged;
  };
  // Every point's 1 - ZNCC, +inf where it does not count: the median of the m that count is then
  // the (m / 2)-th smallest of all. One pass, m counted per chunk.
  std::vector<double> loss(points.size());
  std::vector<std::size_t> per_chunk(static_cast<std::size_t>((n + kGrain - 1) / kGrain));
  parallel_for(n, kGrain, [&](Index first, Index last) {
    std::size_t m = 0;
    for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(last); ++i) {
      const bool in = counts(i);
      loss[i] = in ? 1 - points[i].zncc : std::numeric_limits<double>::infinity();
      m += in;
    }
    per_chunk[static_cast<std::size_t>(first / kGrain)] = m;
  });
  std::size_t m = 0;
  for (const std::size_t c : per_chunk) m += c;
  if (m == 0) return {};
  const double median = kth_smallest(std::move(loss), m / 2);
  const double limit = std::max(kZnccOutlierFactor * median, kZnccOutlierFloor);
  return parallel_select(n, kGrain, [&](Index k) {
    const auto i = static_cast<std::size_t>(k);
    return counts(i) && 1 - points[i].zncc > limit;
  });
}

bool beyond_search(const IcgnResult& r, const Warp& predicted, int radius) {
  const double reach = radius + 1.5;
  return r.status == PointStatus::converged &&
         (std::abs(r.p[0] - std::round(predicted[0])) > reach ||
          std::abs(r.p[3] - std::round(predicted[3])) > reach);
}

std::vector<Suspect> find_suspects(const Grid& grid, const std::vector<double>& cx,
                                   const std::vector<double>& cy, const std::vector<char>& active,
                                   const std::vector<IcgnResult>& points, double max_deviation) {
  std::vector<Suspect> out;
  const auto ok = [&](Index r, Index c) {
    if (r < 0 || c < 0 || r >= grid.rows || c >= grid.cols) return false;
    const auto k = static_cast<std::size_t>(r * grid.cols + c);
    return active[k] != 0 && points[k].status == PointStatus::converged;
  };
  // Rows in parallel (a 505 x 505 grid took 115 ms on one core of the GPU machine's host), each
  // row's suspects in its own list, joined in grid order.
  std::vector<std::vector<Suspect>> per_row(static_cast<std::size_t>(grid.rows));
  parallel_for(grid.rows, 8, [&](Index first, Index last) {
    for (Index r = first; r < last; ++r)
      for (Index c = 0; c < grid.cols; ++c) {
        if (!ok(r, c)) continue;
        const auto k = static_cast<std::size_t>(r * grid.cols + c);
        std::size_t nb[8];
        double u[8], v[8];
        int count = 0;
        for (Index dr = -1; dr <= 1; ++dr)
          for (Index dc = -1; dc <= 1; ++dc) {
            if ((dr == 0 && dc == 0) || !ok(r + dr, c + dc)) continue;
            const auto n = static_cast<std::size_t>((r + dr) * grid.cols + c + dc);
            const Warp& w = points[n].p;
            // The neighbour's warp carried to this point (its gradients times the offset).
            const double dx = cx[k] - cx[n], dy = cy[k] - cy[n];
            nb[count] = n;
            u[count] = w[0] + w[1] * dx + w[2] * dy;
            v[count++] = w[3] + w[4] * dx + w[5] * dy;
          }
        if (count == 0) continue;
        // Every prediction within max_deviation: so are their medians (a median lies between two
        // of them, and the rounded |p - m| grows with |p - m|). The usual case, decided without
        // sorting.
        const Warp& p = points[k].p;
        bool all_near = true;
        for (int e = 0; e < count; ++e) {
          all_near &= std::abs(p[0] - u[e]) <= max_deviation;
          all_near &= std::abs(p[3] - v[e]) <= max_deviation;
        }
        if (all_near) continue;
        Suspect s;
        s.index = k;
        s.median[0] = median_of_8(u, count);
        s.median[3] = median_of_8(v, count);
        if (std::abs(p[0] - s.median[0]) <= max_deviation &&
            std::abs(p[3] - s.median[3]) <= max_deviation)
          continue;
        // A suspect: the gradients' medians too (its new start).
        for (const std::size_t i : {1, 2, 4, 5}) {
          double g[8];
          for (int e = 0; e < count; ++e) g[e] = points[nb[e]].p[i];
          s.median[i] = median_of_8(g, count);
        }
        per_row[static_cast<std::size_t>(r)].push_back(s);
      }
  });
  for (const std::vector<Suspect>& row : per_row) out.insert(out.end(), row.begin(), row.end());
  return out;
}

}  // namespace xcorr::dic
