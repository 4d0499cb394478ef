// Pairwise genotype distances for the Matérn covariance, from the VanRaden Gram matrix (matern.hpp).
#include <algorithm>
#include <cmath>

#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/matern.hpp"

namespace pmx {

genotype_distance_result genotype_distances(const executor& exec, const genotype_source& data, bool standardize,
                                            progress_sink* progress) {
  if (data.n_variants() == 0) throw input_error(data.name() + ": no variants for the genotype distances");
  grm_options go;
  go.method = grm_method::vanraden;
  go.nonfounders = true;  // every sample's calls impute its missing calls
  go.unscaled = true;     // Z Zᵀ itself: D_ij = F_ii + F_jj − 2 F_ij
  go.pair_counts = false;
  grm_result g = compute_grm(exec, data, go, progress);
  genotype_distance_result r;
  r.n = g.n, r.n_variants = g.n_variants;
  if (standardize) {
    double s = 0;
    for (double p : g.a1_freq) s += 2 * grm_frequency(p) * (1 - grm_frequency(p));
    if (!(s > 0)) throw input_error(data.name() + ": every variant is monomorphic; the standardised distances are undefined");
    r.scale = s;
  }
  const int64_t n = r.n;
  double* F = g.G.data();
  std::vector<double> diag(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) diag[i] = F[i * n + i];
  // In place: F_ij becomes h_ij (each entry reads only itself and the saved diagonal).
#pragma omp parallel for schedule(static) num_threads(exec.host().threads())
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double d = (diag[i] + diag[j] - 2 * F[i * n + j]) / r.scale;
      F[i * n + j] = i == j ? 0.0 : std::sqrt(std::max(d, 0.0));
    }
  r.h = std::move(g.G);
  return r;
}

}  // namespace pmx
