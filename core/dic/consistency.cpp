#include "core/dic/consistency.hpp"

#include <algorithm>
#include <cmath>

namespace xcorr::dic {

std::vector<std::size_t> find_isolated(const Grid& grid, const std::vector<char>& active,
                                       const std::vector<IcgnResult>& points) {
  std::vector<std::size_t> out;
  for (Index r = 0; r < grid.rows; ++r)
    for (Index c = 0; c < grid.cols; ++c) {
      const auto k = static_cast<std::size_t>(r * grid.cols + c);
      if (!active[k] || points[k].status != PointStatus::converged) continue;
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
      if (registered > 0 && converged == 0) out.push_back(k);
    }
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
  std::vector<double> values[6];
  for (Index r = 0; r < grid.rows; ++r)
    for (Index c = 0; c < grid.cols; ++c) {
      if (!ok(r, c)) continue;
      for (auto& v : values) v.clear();
      const auto k = static_cast<std::size_t>(r * grid.cols + c);
      for (Index dr = -1; dr <= 1; ++dr)
        for (Index dc = -1; dc <= 1; ++dc) {
          if ((dr == 0 && dc == 0) || !ok(r + dr, c + dc)) continue;
          const auto n = static_cast<std::size_t>((r + dr) * grid.cols + c + dc);
          const Warp& w = points[n].p;
          // The neighbour's warp carried to this point (its gradients times the offset).
          const double dx = cx[k] - cx[n], dy = cy[k] - cy[n];
          values[0].push_back(w[0] + w[1] * dx + w[2] * dy);
          values[3].push_back(w[3] + w[4] * dx + w[5] * dy);
          for (int i : {1, 2, 4, 5}) values[i].push_back(w[static_cast<std::size_t>(i)]);
        }
      if (values[0].empty()) continue;
      Suspect s;
      s.index = k;
      for (int i = 0; i < 6; ++i) {
        std::vector<double>& v = values[i];
        std::sort(v.begin(), v.end());
        const std::size_t m = v.size() / 2;
        s.median[static_cast<std::size_t>(i)] = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
      }
      const Warp& p = points[s.index].p;
      if (std::abs(p[0] - s.median[0]) > max_deviation ||
          std::abs(p[3] - s.median[3]) > max_deviation)
        out.push_back(s);
    }
  return out;
}

}  // namespace xcorr::dic
