// Genomic and pedigree pieces shared by the single-step models: centring frequencies and Σz²
// per variant, the dense VanRaden G (the GRM's pass, src/stats/relationship), and dense A among a subset
// by Colleau's indirect method (the ssGBLUP model's A_gg, independent of the sparse A_gg⁻¹ code).
#include <omp.h>

#include <algorithm>
#include <array>

#include "panoramix/error.hpp"
#include "panoramix/memory_genotypes.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/single_step.hpp"
#include "single_step_terms.hpp"
#include "stats/relationship/grm_into.hpp"

namespace pmx {

void genotype_moments(const variant_major_view& g, const std::vector<double>* given_p,
                      std::vector<double>& p, std::vector<double>& sum_z2, int threads) {
  const int64_t k = g.n_variants, n = g.n_samples;
  PMX_EXPECTS(!given_p || static_cast<int64_t>(given_p->size()) == k, "one frequency per variant");
  // Per byte, how many of its 4 calls carry each code (the last byte of a row is masked).
  static const auto table = [] {
    std::array<std::array<uint8_t, 4>, 256> t{};
    for (int b = 0; b < 256; ++b)
      for (int c = 0; c < 4; ++c) ++t[b][(b >> (2 * c)) & 3];
    return t;
  }();
  p.assign(k, 0.0);
  sum_z2.assign(k, 0.0);
  const int64_t full = n / 4, rest = n % 4;
#pragma omp parallel for num_threads(threads > 0 ? threads : omp_get_max_threads()) schedule(dynamic, 64)
  for (int64_t j = 0; j < k; ++j) {
    const uint8_t* row = g.row(j);
    int64_t count[4] = {0, 0, 0, 0};
    for (int64_t b = 0; b < full; ++b)
      for (int c = 0; c < 4; ++c) count[c] += table[row[b]][c];
    for (int64_t i = 0; i < rest; ++i) ++count[(row[full] >> (2 * i)) & 3];
    const int64_t n2 = count[code_hom_a1], n1 = count[code_het], n0 = count[code_hom_a2];
    const int64_t called = n0 + n1 + n2;
    double pj = 0;
    if (given_p)
      pj = (*given_p)[j];
    else if (called > 0)
      pj = (2.0 * n2 + n1) / (2.0 * called);
    p[j] = pj;
    const double m = 2 * pj;
    sum_z2[j] = n0 * m * m + n1 * (1 - m) * (1 - m) + n2 * (2 - m) * (2 - m);
  }
}

std::vector<double> vanraden_grm(const executor& exec, const variant_major_view& g,
                                 const std::vector<double>& p) {
  const int64_t n = g.n_samples, k = g.n_variants;
  PMX_EXPECTS(static_cast<int64_t>(p.size()) == k, "one frequency per variant");
  double c = 0;
  for (double x : p) c += 2 * x * (1 - x);
  if (!(c > 0)) throw input_error("genotypes: every variant is monomorphic (2Σp(1−p) = 0), G is undefined");
  // The one GRM pass (src/stats/relationship/grm.cpp) with the single-step frequencies given: the
  // same G = ZZᵀ/(2Σp(1−p)), z = x − 2p and 0 where missing, from the exact integer M·Mᵀ plus
  // corrections, into this function's vector (no n×n copy).
  grm_options opt;
  opt.method = grm_method::vanraden;
  opt.pair_counts = false;
  opt.frequencies = p;
  std::vector<double> G(static_cast<size_t>(n * n));
  detail::compute_grm_into(exec, memory_genotypes(g), opt, G.data(), nullptr);
  return G;
}

std::vector<double> pedigree_relationships_among(const pedigree& ped, const std::vector<double>& F,
                                                 const std::vector<int64_t>& subset, int threads) {
  const int64_t n = ped.size(), m = static_cast<int64_t>(subset.size());
  const std::vector<double> D = mendelian_variances(ped, F.empty() ? inbreeding(ped, threads) : F);
  std::vector<double> A(m * m);
  const int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel num_threads(nt)
  {
    std::vector<double> v(n);
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < m; ++c) {
      const int64_t s = subset[c];
      PMX_EXPECTS(s >= 0 && s < n, "subset indices in the pedigree");
      // v = Tᵀ e_s (ancestors' contributions, up from s), then v ← D v, then v ← T v (down).
      std::fill(v.begin(), v.begin() + s + 1, 0.0);
      v[s] = 1.0;
      for (int64_t i = s; i >= 0; --i) {
        if (v[i] == 0) continue;
        if (ped.sire(i) >= 0) v[ped.sire(i)] += 0.5 * v[i];
        if (ped.dam(i) >= 0) v[ped.dam(i)] += 0.5 * v[i];
      }
      for (int64_t i = 0; i < n; ++i) {
        double x = i <= s ? v[i] * D[i] : 0.0;
        if (ped.sire(i) >= 0) x += 0.5 * v[ped.sire(i)];
        if (ped.dam(i) >= 0) x += 0.5 * v[ped.dam(i)];
        v[i] = x;
      }
      for (int64_t r = 0; r < m; ++r) A[r * m + c] = v[subset[r]];
    }
  }
  return A;
}

namespace detail {

snp_model_operands make_snp_model_operands(const char* model, const executor& exec,
                                           const genomic_inputs& in, genetic_term& term) {
  const double w = in.geno->w;
  if (!(w > 0 && w < 1)) throw input_error(std::string(model) + " needs 0 < w < 1 (w = " + std::to_string(w) + ")");
  const int64_t kg = static_cast<int64_t>(in.geno->animals.size()), ks = in.geno->genotypes.n_variants;
  snp_model_operands out;
  stopwatch sw;
  // PCG needs the products to the accuracy of the vectors, not of each term: normwise lets cuda run
  // them on the INT8 tensor cores.
  out.genotypes = std::make_unique<gemm_operand>(genotype_executor(exec, kg, ks), in.geno->genotypes,
                                                 gemm_accuracy::normwise);
  term.setup_seconds.emplace_back(
      exec.on_device() ? "genotype operand (2-bit upload to the device)" : "genotype operand", sw.seconds());
  sw = stopwatch();
  out.agg_inv = std::make_unique<genotyped_a_inverse>(*in.ped, *in.F, in.geno->animals, in.threads);
  std::string where;
  // The sweeps get a CUDA context of their own (stream, lock): on the executor's, they would queue
  // behind the A⁻¹ product that runs while they do (one stream serialises them: 54.7 ms an
  // iteration against 56.8 with the sweeps on the CPU, RESULTS.md "Issue #25 ... sweeps").
  if (exec.on_device() && exec.tuning().ainv_on_device)
    where = out.agg_inv->use_device(executor(exec.kind(), exec.threads(), exec.tuning()).set_communicator(exec.comm()));
  term.setup_seconds.emplace_back("A_gg^-1 operator (sparse Cholesky of A^nn)", sw.seconds());
  term.notes.push_back("A_gg^-1: A^nn of " + std::to_string(out.agg_inv->nongenotyped()) + " animals, factor " +
                       std::to_string(out.agg_inv->factor_nonzeros()) + " nonzeros (" +
                       (out.agg_inv->supernodal() ? "supernodal" : "simplicial") + ")");
  if (!where.empty()) term.notes.push_back(where);
  return out;
}

}  // namespace detail
}  // namespace pmx
