#!/usr/bin/env bash
# Two `xcorr bench-dic --points` files compared column by column (x, y, u, v, zncc, sigma_u,
# sigma_v, iterations, status): how many points differ in each column and the largest
# difference, one line per column, each line started with PREFIX (default two spaces).
# Usage: scripts/gpu/compare_points.sh A.csv B.csv [PREFIX]
set -euo pipefail
paste -d, "$1" "$2" | awk -F, -v prefix="${3-  }" '
  NR > 1 { for (c = 1; c <= 9; ++c) { d = $c - $(c + 9); if (d < 0) d = -d;
           if (d > 0) ++n[c]; if (d > m[c]) m[c] = d } }
  END { split("x y u v zncc sigma_u sigma_v iterations status", name, " ");
        for (c = 1; c <= 9; ++c)
          printf "%s%s: %d differ, max |difference| %.3g\n", prefix, name[c], n[c], m[c] }'
