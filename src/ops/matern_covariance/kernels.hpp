// Backend kernels of matern_covariance (signatures once; validated and dispatched by
// matern_covariance.cpp, which computes the per-call constants).
#pragma once
#include <cstdint>

#include "ops/matern_covariance/point.hpp"

namespace pmx::detail {
struct bessel_consts;
}
#include "panoramix/ops/matern_covariance.hpp"

namespace pmx::kernels {
// matern_quadrature: the exp-sinh route at the n distances h; matern_trapezoid: the trapezoid
// route (trapezoid.hpp); `out` as in the public header.
#define PMX_MATERN_KERNELS                                                                                  \
  void matern_quadrature(const executor& exec, const detail::matern_consts& k, const double* h, int64_t n, \
                         const matern_outputs& out);                                                        \
  void matern_trapezoid(const executor& exec, const detail::matern_consts& k, const double* h, int64_t n,  \
                        const matern_outputs& out)
namespace reference { PMX_MATERN_KERNELS; }  // reference.cpp: every node, serial
namespace cpu { PMX_MATERN_KERNELS; }        // cpu.cpp: windowed sums, OpenMP
namespace cuda {
PMX_MATERN_KERNELS;  // cuda.cu: one thread a distance (the exp-sinh table in constant memory)
/// The host-device closed form (bessel_k.hpp): C, dC/dσ², dC/dρ (no ν-derivatives).
void matern_bessel(const executor& exec, const detail::bessel_consts& k, const double* h, int64_t n,
                   const matern_outputs& out);
}  // namespace cuda
#undef PMX_MATERN_KERNELS

/// The closed form through Boost.Math at one distance (reference and cpu backends): C, dC/dσ²,
/// dC/dρ exactly; with `derivatives`, dC/dν and d²C/dν² by 5-point central differences.
detail::matern_point matern_bessel_point(const matern_params& p, double h, bool derivatives);

/// Writes one point's requested values into out[i].
PMX_MATERN_HD inline void store_matern(const matern_outputs& out, int64_t i, const detail::matern_point& v) {
  if (out.C) out.C[i] = v.C;
  if (out.dsigma2) out.dsigma2[i] = v.dsigma2;
  if (out.drho) out.drho[i] = v.drho;
  if (out.dnu) out.dnu[i] = v.dnu;
  if (out.d2nu) out.d2nu[i] = v.d2nu;
}
}  // namespace pmx::kernels
