// Strain from a displacement field on the point grid, as Ncorr and OpenCorr do: a least-squares
// plane u = a + b x + c y (and the same for v) over the converged points of a window x window
// neighbourhood (grid points) gives the displacement gradients; then Green-Lagrange
// (Exx = ux + (ux^2 + vx^2)/2, Eyy = vy + (uy^2 + vy^2)/2, Exy = (uy + vx + ux uy + vx vy)/2) or
// engineering (exx = ux, eyy = vy, exy = (uy + vx)/2) strain. Points with fewer than 6 converged
// neighbours (or a degenerate fit) get NaN.
#pragma once

#include <vector>

#include "core/dic/grid.hpp"
#include "core/dic/options.hpp"

namespace xcorr::dic {

struct StrainValues {
  double exx, eyy, exy;  // dimensionless
};

// u, v: one value per grid point (NaN where not converged).
std::vector<StrainValues> compute_strain(const Grid& g, const std::vector<double>& u,
                                         const std::vector<double>& v, int window, StrainKind kind);

}  // namespace xcorr::dic
