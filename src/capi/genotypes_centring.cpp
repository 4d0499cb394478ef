// Allele frequencies (computed with PLINK 2's rules or set by the caller) and the per-variant
// scale of Z: the centring the products use.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "capi/genotypes.hpp"
#include "capi/status.hpp"
#include "panoramix/allele_frequencies.hpp"
#include "panoramix/genotype_centring.hpp"

using namespace pmx::capi;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void require_count(const pmx_genotypes& g, int64_t count, const char* array) {
  require(count == g.n_variants(), PMX_E_INVALID_ARGUMENT,
          std::string("count is ") + str(count) + "; " + array + " needs one entry per kept variant (" +
              str(g.n_variants()) + ")");
}

}  // namespace

void pmx_genotypes::update_centring() {
  const pmx::genotype_scaling kind = scaling == PMX_SCALE_USER          ? pmx::genotype_scaling::user
                                     : scaling == PMX_SCALE_STANDARDIZE ? pmx::genotype_scaling::standardized
                                                                        : pmx::genotype_scaling::none;
  pmx::genotype_centring c = pmx::make_genotype_centring(p, kind, user_scale);
  p_op = std::move(c.p);
  s_op = std::move(c.scale);
}

extern "C" {

int pmx_genotypes_compute_frequencies(pmx_genotypes* g, int nonfounders, int n_autosomes) {
  if (!g) return PMX_E_NULL_ARGUMENT;
  return guarded(g->messages, "pmx_genotypes_compute_frequencies", [&] {
    require(n_autosomes >= 0 && n_autosomes <= 95, PMX_E_INVALID_ARGUMENT,
            "n_autosomes is " + str(n_autosomes) + "; must be 0 (human, 22) or 1..95 (PLINK --chr-set)");
    // PLINK 2's --freq rules from the kept records (in-memory handles have none: all founders,
    // all autosomal). Counted without the lock: multiplies in flight go on with the previous
    // frequencies.
    pmx::frequency_options opt;
    opt.nonfounders = nonfounders != 0;
    opt.chromosomes = pmx::chromosome_set{n_autosomes ? n_autosomes : 22};
    std::vector<double> p = pmx::compute_allele_frequencies(g->exec, *g->kept, opt, nullptr).a1;
    std::unique_lock lock(g->mutex);
    g->p = std::move(p);
    g->have_frequencies = true;
    g->update_centring();
  });
}

int pmx_genotypes_set_frequencies(pmx_genotypes* g, const double* p, int64_t count) {
  if (!g) return PMX_E_NULL_ARGUMENT;
  return guarded(g->messages, "pmx_genotypes_set_frequencies", [&] {
    require(p != nullptr, PMX_E_NULL_ARGUMENT, "p is NULL");
    require_count(*g, count, "p");
    for (int64_t j = 0; j < count; ++j)
      if (!(std::isnan(p[j]) || (p[j] >= 0.0 && p[j] <= 1.0)))
        fail(PMX_E_INVALID_ARGUMENT, "p[" + str(j) + "] = " + value(p[j]) +
                                         " is not a frequency (must be in [0, 1], or NaN for undefined)");
    std::unique_lock lock(g->mutex);
    g->p.assign(p, p + count);
    g->have_frequencies = true;
    g->update_centring();
  });
}

int pmx_genotypes_get_frequencies(pmx_genotypes* g, double* p, int64_t count) {
  if (!g) return PMX_E_NULL_ARGUMENT;
  return guarded(g->messages, "pmx_genotypes_get_frequencies", [&] {
    require(p != nullptr, PMX_E_NULL_ARGUMENT, "p (output) is NULL");
    require_count(*g, count, "p");
    std::shared_lock lock(g->mutex);
    require(g->have_frequencies, PMX_E_STATE,
            "no allele frequencies yet: call pmx_genotypes_compute_frequencies or pmx_genotypes_set_frequencies");
    std::copy(g->p.begin(), g->p.end(), p);
  });
}

int pmx_genotypes_set_scaling(pmx_genotypes* g, int scaling, const double* scale, int64_t count) {
  if (!g) return PMX_E_NULL_ARGUMENT;
  return guarded(g->messages, "pmx_genotypes_set_scaling", [&] {
    require(scaling == PMX_SCALE_NONE || scaling == PMX_SCALE_STANDARDIZE || scaling == PMX_SCALE_USER,
            PMX_E_INVALID_ARGUMENT,
            "scaling " + str(scaling) +
                " is not a pmx_scaling value (0 PMX_SCALE_NONE, 1 PMX_SCALE_STANDARDIZE, 2 PMX_SCALE_USER)");
    std::vector<double> user;
    if (scaling == PMX_SCALE_USER) {
      require(scale != nullptr, PMX_E_NULL_ARGUMENT, "scale is NULL (PMX_SCALE_USER needs one per variant)");
      require_count(*g, count, "scale");
      for (int64_t j = 0; j < count; ++j)
        if (!std::isfinite(scale[j]))
          fail(PMX_E_INVALID_ARGUMENT, "scale[" + str(j) + "] = " + value(scale[j]) + " is not finite");
      user.assign(scale, scale + count);
    } else {
      require(scale == nullptr && count == 0, PMX_E_INVALID_ARGUMENT,
              "scale must be NULL and count 0 unless scaling is PMX_SCALE_USER (count is " + str(count) + ")");
    }
    std::unique_lock lock(g->mutex);
    g->scaling = scaling;
    g->user_scale = std::move(user);
    if (g->have_frequencies) g->update_centring();
  });
}

int pmx_genotypes_get_scaling(pmx_genotypes* g, double* scale, int64_t count) {
  if (!g) return PMX_E_NULL_ARGUMENT;
  return guarded(g->messages, "pmx_genotypes_get_scaling", [&] {
    require(scale != nullptr, PMX_E_NULL_ARGUMENT, "scale (output) is NULL");
    require_count(*g, count, "scale");
    std::shared_lock lock(g->mutex);
    if (g->have_frequencies) {
      if (g->s_op.empty()) std::fill(scale, scale + count, 1.0);
      else std::copy(g->s_op.begin(), g->s_op.end(), scale);
      return;
    }
    // No p yet: only the standardized scale depends on it.
    require(g->scaling != PMX_SCALE_STANDARDIZE, PMX_E_STATE,
            "standardized scales need allele frequencies: call pmx_genotypes_compute_frequencies or "
            "pmx_genotypes_set_frequencies first");
    if (g->scaling == PMX_SCALE_USER) std::copy(g->user_scale.begin(), g->user_scale.end(), scale);
    else std::fill(scale, scale + count, 1.0);
  });
}

}  // extern "C"
