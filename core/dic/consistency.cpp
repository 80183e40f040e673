#include "core/dic/consistency.hpp"

#include <algorithm>
#include <cmath>

#include "core/parallel.hpp"

namespace xcorr::dic {

namespace {
constexpr Index kGrain = 16384;  // points per chunk of the host's threads
}  // namespace

std::vector<std::size_t> find_isolated(const Grid& grid, const std::vector<char>& active,
                                       const std::vector<IcgnResult>& points) {
  return parallel_select(grid.rows * grid.cols, kGrain, [&](Index i) {
    const Index r = i / grid.cols, c = i % grid.cols;
    const auto k = static_cast<std::size_t>(i);
    if (!active[k] || points[k].status != PointStatus::converged) return false;
    int registered = 0, converged = 0;
    for (Index dr = -1; dr <= 1; ++dr)
      for (Index dc = -1; dc <= 1; ++dc) {
        const Index nr = r + dr, nc = c + dc;
        if ((dr == 0 && dc == 0) || nr < 0 || nc < 0 || nr >= grid.rows || nc >= grid.cols)
          continue;
        const auto n = static_cast<std::size_t>(nr * grid.cols + nc);
        if (!active[n]) continue;
        ++registered;
        converged += points[n].status == PointStatus::converged;
      }
    return registered > 0 && converged == 0;
  });
}

std::vector<std::size_t> find_zncc_outliers(const std::vector<char>& active,
                                            const std::vector<IcgnResult>& points) {
  const auto n = static_cast<Index>(points.size());
  const std::vector<std::size_t> converged = parallel_select(n, kGrain, [&](Index k) {
    const auto i = static_cast<std::size_t>(k);
    return active[i] && points[i].status == PointStatus::converged;
  });
  if (converged.empty()) return {};
  const auto m = static_cast<Index>(converged.size());
  const auto loss_of = [&](Index i) {
    return 1 - points[converged[static_cast<std::size_t>(i)]].zncc;
  };
  std::vector<double> loss(converged.size());
  parallel_for(m, kGrain, [&](Index first, Index last) {
    for (Index i = first; i < last; ++i) loss[static_cast<std::size_t>(i)] = loss_of(i);
  });
  std::nth_element(loss.begin(), loss.begin() + static_cast<long>(loss.size() / 2), loss.end());
  const double limit = std::max(kZnccOutlierFactor * loss[loss.size() / 2], kZnccOutlierFloor);
  std::vector<std::size_t> out =
      parallel_select(m, kGrain, [&](Index i) { return loss_of(i) > limit; });
  for (std::size_t& k : out) k = converged[k];
  return out;
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
  const auto median = [](double* v, int n) {  // of n <= 8 values (insertion-sorts them)
    for (int i = 1; i < n; ++i)
      for (int j = i; j > 0 && v[j - 1] > v[j]; --j) std::swap(v[j - 1], v[j]);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
        Suspect s;
        s.index = k;
        s.median[0] = median(u, count);
        s.median[3] = median(v, count);
        const Warp& p = points[k].p;
        if (std::abs(p[0] - s.median[0]) <= max_deviation &&
            std::abs(p[3] - s.median[3]) <= max_deviation)
          continue;
        // A suspect: the gradients' medians too (its new start).
        for (const std::size_t i : {1, 2, 4, 5}) {
          double g[8];
          for (int e = 0; e < count; ++e) g[e] = points[nb[e]].p[i];
          s.median[i] = median(g, count);
        }
        per_row[static_cast<std::size_t>(r)].push_back(s);
      }
  });
  for (const std::vector<Suspect>& row : per_row) out.insert(out.end(), row.begin(), row.end());
  return out;
}

}  // namespace xcorr::dic
