// Pedigree simulator (see pedigree_sim.hpp for the model).
#include "pedigree_sim.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "panoramix/error.hpp"
#include "random.hpp"

namespace pmx::sim {
namespace {

constexpr int pool_size = 128;        // founder haplotypes per chromosome segment
constexpr double pool_switch = 0.05;  // a base-population haplotype changes pool member per chunk

// Streams of the one seed: each purpose and each (animal, chunk) gets its own.
enum stream : uint64_t { pedigree_stream = 1, pool_stream, qtl_stream, record_stream, meiosis_stream };

uint64_t substream(stream s, uint64_t index) { return (static_cast<uint64_t>(s) << 56) ^ index; }

// Lower Cholesky factor of the t × t matrix with unit diagonal and `rho` off the diagonal.
std::vector<double> equicorrelation_factor(int t, double rho) {
  std::vector<double> c(static_cast<size_t>(t * t), 0.0), l(c.size(), 0.0);
  for (int i = 0; i < t; ++i)
    for (int j = 0; j < t; ++j) c[i * t + j] = i == j ? 1.0 : rho;
  for (int j = 0; j < t; ++j) {
    double d = c[j * t + j];
    for (int k = 0; k < j; ++k) d -= l[j * t + k] * l[j * t + k];
    l[j * t + j] = std::sqrt(d);
    for (int i = j + 1; i < t; ++i) {
      double s = c[i * t + j];
      for (int k = 0; k < j; ++k) s -= l[i * t + k] * l[j * t + k];
      l[i * t + j] = s / l[j * t + j];
    }
  }
  return l;
}

// Draws x ~ N(0, L Lᵀ) into out (t entries).
void correlated_normals(const std::vector<double>& L, int t, rng& r, double* out) {
  double z[64];
  for (int k = 0; k < t; ++k) z[k] = r.normal();
  for (int i = 0; i < t; ++i) {
    out[i] = 0;
    for (int k = 0; k <= i; ++k) out[i] += L[i * t + k] * z[k];
  }
}

struct chunk {
  int64_t first;  // first variant
  int length;     // <= 64
  bool chrom_start;
  double crossover;  // probability between adjacent variants
  double log1m;      // log(1 − crossover), for the gaps between crossovers
  double no_crossover_below;  // (1 − crossover)^(length − 1), less a margin for rounding
};

std::vector<chunk> make_chunks(const pedigree_params& p) {
  std::vector<chunk> out;
  for (int c = 0; c < p.n_chromosomes; ++c) {
    const int64_t begin = p.n_variants * c / p.n_chromosomes, end = p.n_variants * (c + 1) / p.n_chromosomes;
    const double r = end - begin > 1 ? 1.0 / static_cast<double>(end - begin - 1) : 0.0;  // 1 Morgan
    for (int64_t j = begin; j < end; j += 64) {
      const int length = static_cast<int>(std::min<int64_t>(64, end - j));
      out.push_back({j, length, j == begin, r, std::log1p(-r),
                     std::exp((length - 1) * std::log1p(-r)) * (1 - 1e-9)});
    }
  }
  return out;
}

// Pedigree structure: sexes, generations, parents (parents always in an earlier generation).
void draw_pedigree(const pedigree_params& p, pedigree_dataset& d) {
  const int64_t n = p.n_animals;
  d.id.resize(n);
  d.sire.assign(n, -1);
  d.dam.assign(n, -1);
  d.sex.resize(n);
  d.generation.resize(n);
  rng r(p.seed, substream(pedigree_stream, 0));
  std::vector<int64_t> gen_begin(p.n_generations + 2);
  gen_begin[0] = 0;
  gen_begin[1] = p.n_founders;
  const int64_t rest = n - p.n_founders;
  for (int g = 1; g <= p.n_generations; ++g) gen_begin[g + 1] = p.n_founders + rest * g / p.n_generations;
  for (int g = 0; g <= p.n_generations; ++g)
    for (int64_t a = gen_begin[g]; a < gen_begin[g + 1]; ++a) {
      d.id[a] = "A" + std::to_string(a + 1);
      d.sex[a] = 1 + static_cast<int>(r.below(2));
      d.generation[a] = g;
    }
  for (int g = 1; g <= p.n_generations; ++g) {
    std::vector<int64_t> males, sires, dams;
    for (int64_t a = gen_begin[g - 1]; a < gen_begin[g]; ++a)
      if (d.sex[a] == 1) males.push_back(a);
    for (int64_t k = 0; k < static_cast<int64_t>(males.size()) && k < p.sires_per_generation; ++k) {
      std::swap(males[k], males[k + r.below(static_cast<uint32_t>(males.size() - k))]);
      sires.push_back(males[k]);
    }
    for (int64_t a = gen_begin[std::max(0, g - p.dam_generations)]; a < gen_begin[g]; ++a)
      if (d.sex[a] == 2) dams.push_back(a);
    if (sires.empty() || dams.empty())
      throw input_error("simulate-pedigree: generation " + std::to_string(g - 1) +
                        " has no male or no female to breed from (more founders or animals needed)");
    for (int64_t a = gen_begin[g]; a < gen_begin[g + 1]; ++a) {
      d.sire[a] = sires[r.below(static_cast<uint32_t>(sires.size()))];
      d.dam[a] = r.uniform() < p.unknown_dam_rate ? -1 : dams[r.below(static_cast<uint32_t>(dams.size()))];
    }
  }
  // Genotyped: every sire, then the youngest animals until n_genotyped.
  std::vector<char> typed(n, 0);
  int64_t count = 0;
  for (int64_t a = 0; a < n; ++a)
    if (d.sire[a] >= 0 && !typed[d.sire[a]]) typed[d.sire[a]] = 1, ++count;
  for (int64_t a = n - 1; a >= 0 && count < p.n_genotyped; --a)
    if (!typed[a]) typed[a] = 1, ++count;
  for (int64_t a = 0; a < n; ++a)
    if (typed[a]) d.genotyped.push_back(a);
}

// One base-population haplotype pool per chromosome segment: latents that persist from variant
// to variant with probability ld_strength give LD; a member carries A1 when its latent is below
// the variant's A1 frequency.
struct founder_pool {
  double latent[pool_size];
  uint64_t bits[pool_size];
};

void next_pool_chunk(const pedigree_params& p, const chunk& c, rng& r, founder_pool& pool) {
  if (c.chrom_start)
    for (double& u : pool.latent) u = r.uniform();
  std::fill(std::begin(pool.bits), std::end(pool.bits), 0ull);
  for (int v = 0; v < c.length; ++v) {
    const double maf = ancestral_maf(r, p.min_maf);
    const bool a1_major = r.uniform() < 0.5;
    for (int h = 0; h < pool_size; ++h) {
      if (r.uniform() >= p.ld_strength) pool.latent[h] = r.uniform();
      const bool minor = pool.latent[h] < maf;
      if (minor != a1_major) pool.bits[h] |= uint64_t{1} << v;
    }
  }
}

// The strand mask of one meiosis over a chunk: bit v set where the gamete copies the parent's
// second haplotype. `strand` carries the state to the next chunk of the chromosome.
uint64_t meiosis_mask(const chunk& c, rng& r, uint8_t& strand) {
  if (c.chrom_start) strand = static_cast<uint8_t>(r.below(2));
  const uint64_t all = c.length == 64 ? ~0ull : (uint64_t{1} << c.length) - 1;
  uint64_t mask = strand ? all : 0;
  if (c.crossover > 0) {
    const double log1m = c.log1m;
    for (int v = 0;;) {  // crossovers between v-1 and v, as gaps of a Bernoulli process
      const double u = r.uniform_open();
      // Most chunks have no crossover: the first gap reaches past the chunk exactly when
      // u ≤ (1 − crossover)^(length − 1); decided without the logarithm unless u is too close.
      if (v == 0 && u < c.no_crossover_below) break;
      v += 1 + static_cast<int>(std::min(1e9, std::floor(std::log(u) / log1m)));
      if (v >= c.length) break;
      mask ^= all & (~0ull << v);
      strand ^= 1;
    }
  }
  return mask;
}

}  // namespace

void validate(const pedigree_params& p) {
  auto bad = [](const std::string& what) { throw input_error("simulate-pedigree: " + what); };
  if (p.n_founders < 2 || p.n_animals <= p.n_founders) bad("need at least 2 founders and more animals than founders");
  if (p.n_generations < 1 || p.n_animals - p.n_founders < p.n_generations) bad("need at least one animal per generation");
  if (p.sires_per_generation < 1) bad("--sires must be positive");
  if (p.dam_generations < 1) bad("--dam-generations must be positive");
  if (p.n_variants < 1 || p.n_chromosomes < 1 || p.n_chromosomes > p.n_variants) bad("need 1 <= chromosomes <= variants");
  if (p.n_qtl < 1 || p.n_qtl > p.n_variants) bad("need 1 <= QTL <= variants");
  if (p.h2.empty() || p.h2.size() > 64) bad("need 1 to 64 traits");
  if (p.genetic_variance.size() != p.h2.size()) bad("one genetic variance per trait");
  for (double h : p.h2)
    if (!(h > 0 && h < 1)) bad("heritabilities must lie in (0, 1)");
  for (double v : p.genetic_variance)
    if (!(v > 0)) bad("genetic variances must be positive");
  const double t = static_cast<double>(p.h2.size());
  for (double rho : {p.genetic_correlation, p.residual_correlation})
    if (t > 1 && !(rho > -1 / (t - 1) && rho < 1))
      bad("correlations must lie in (-1/(traits-1), 1) to keep the (co)variance matrices positive definite");
  if (p.n_herds < 1) bad("--herds must be positive");
  if (p.n_genotyped < 0 || p.n_genotyped > p.n_animals) bad("--genotyped must lie in [0, animals]");
}

pedigree_dataset simulate_pedigree(const pedigree_params& p, int threads) {
  validate(p);
  pedigree_dataset d;
  const int t = static_cast<int>(p.h2.size());
  const int64_t n = p.n_animals;
  d.n_traits = t;
  draw_pedigree(p, d);
  const int64_t n_typed = static_cast<int64_t>(d.genotyped.size());

  // Variants and the genotyped animals' records.
  const auto chunks = make_chunks(p);
  for (int c = 0; c < p.n_chromosomes; ++c)
    for (int64_t j = p.n_variants * c / p.n_chromosomes; j < p.n_variants * (c + 1) / p.n_chromosomes; ++j)
      d.variants.push_back({std::to_string(c + 1), "snp" + std::to_string(j + 1), 0.0,
                            1000 * (j - p.n_variants * c / p.n_chromosomes + 1), "A", "B"});
  for (int64_t a : d.genotyped) d.samples.push_back({d.id[a], d.id[a], "0", "0", d.sex[a], "-9"});
  d.genotypes = packed_genotypes(n_typed, p.n_variants);

  // QTL and their effects (correlated across traits, scaled later).
  rng qr(p.seed, substream(qtl_stream, 0));
  std::vector<int64_t> order(static_cast<size_t>(p.n_variants));
  for (int64_t j = 0; j < p.n_variants; ++j) order[j] = j;
  std::vector<double> effect(static_cast<size_t>(p.n_variants) * t, 0.0);
  std::vector<char> is_qtl(static_cast<size_t>(p.n_variants), 0);
  const auto Lg = equicorrelation_factor(t, p.genetic_correlation);
  for (int64_t k = 0; k < p.n_qtl; ++k) {
    std::swap(order[k], order[k + qr.below(static_cast<uint32_t>(p.n_variants - k))]);
    is_qtl[order[k]] = 1;
    correlated_normals(Lg, t, qr, &effect[static_cast<size_t>(order[k]) * t]);
  }

  // Gene drop, chunks of <= 64 variants of a chromosome, `group` chunks at a time: per animal
  // and strand the group's haplotype words lie side by side (four cache lines for 32 chunks), so an
  // offspring reads each parent strand once per group. Parents before offspring (generations in
  // order, animals of a generation in parallel); chunks of an animal in order, each with its own
  // random stream, so the data do not depend on the grouping or the threads.
  constexpr int64_t group = 32;
  const int64_t n_chunks = static_cast<int64_t>(chunks.size());
  std::vector<uint64_t> hap(static_cast<size_t>(2 * n * group));
  std::vector<uint8_t> strand(static_cast<size_t>(2 * n), 0), pool_member(static_cast<size_t>(2 * n), 0);
  std::vector<double> raw(static_cast<size_t>(n) * t, 0.0);
  std::vector<int64_t> gen_end;
  for (int64_t a = 0; a < n; ++a)
    if (a + 1 == n || d.generation[a + 1] != d.generation[a]) gen_end.push_back(a + 1);
  // QTL offsets within each chunk (most chunks have none).
  std::vector<std::vector<int>> chunk_qtl(static_cast<size_t>(n_chunks));
  for (int64_t ci = 0; ci < n_chunks; ++ci)
    for (int v = 0; v < chunks[ci].length; ++v)
      if (is_qtl[chunks[ci].first + v]) chunk_qtl[ci].push_back(v);
  founder_pool pool;
  std::vector<std::array<uint64_t, pool_size>> pool_bits(group);
  rng pool_rng(p.seed, substream(pool_stream, 0));
  const int64_t bytes = (n_typed + 3) / 4;
  for (int64_t c0 = 0; c0 < n_chunks; c0 += group) {
    const int64_t nc = std::min(group, n_chunks - c0);
    for (int64_t w = 0; w < nc; ++w) {
      next_pool_chunk(p, chunks[c0 + w], pool_rng, pool);
      std::copy(std::begin(pool.bits), std::end(pool.bits), pool_bits[w].begin());
    }
    int64_t begin = 0;
    for (int64_t end : gen_end) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int64_t a = begin; a < end; ++a) {
        // Parents are scattered over earlier generations: fetch a later animal's ahead.
        constexpr int64_t ahead = 8;
        if (a + ahead < end)
          for (int64_t pa : {d.sire[a + ahead], d.dam[a + ahead]})
            if (pa >= 0)
              for (int64_t line = 0; line < 2 * group; line += 8)
                __builtin_prefetch(&hap[static_cast<size_t>(2 * pa * group + line)]);
        const int64_t parent[2] = {d.sire[a], d.dam[a]};
        uint64_t* own = &hap[static_cast<size_t>(2 * a * group)];
        for (int64_t w = 0; w < nc; ++w) {
          const int64_t ci = c0 + w;
          const chunk& c = chunks[ci];
          rng r(p.seed, substream(meiosis_stream, static_cast<uint64_t>(a) * static_cast<uint64_t>(n_chunks) + ci));
          for (int side = 0; side < 2; ++side) {
            const size_t s = static_cast<size_t>(2 * a + side);
            if (parent[side] < 0) {  // a base-population gamete
              if (c.chrom_start || r.uniform() < pool_switch) pool_member[s] = static_cast<uint8_t>(r.below(pool_size));
              own[side * group + w] = pool_bits[w][pool_member[s]];
            } else {
              const uint64_t m = meiosis_mask(c, r, strand[s]);
              const uint64_t* q = &hap[static_cast<size_t>(2 * parent[side] * group)];
              own[side * group + w] = (q[w] & ~m) | (q[group + w] & m);
            }
          }
          for (int v : chunk_qtl[ci]) {
            const int x = static_cast<int>((own[w] >> v) & 1) + static_cast<int>((own[group + w] >> v) & 1);
            const double* e = &effect[static_cast<size_t>(c.first + v) * t];
            for (int k = 0; k < t; ++k) raw[static_cast<size_t>(a) * t + k] += x * e[k];
          }
        }
      }
      begin = end;
    }
    // .bed codes of the genotyped animals: 00 two A1, 10 one, 11 none, i.e. bit 0 = no A1 and
    // bit 1 = not two A1, four animals per byte. Blocks of 1,024 bytes (4,096 animals): their
    // masks once per chunk, then each of the chunk's rows written as one run of bytes.
    constexpr int64_t block = 1024;
#pragma omp parallel num_threads(threads)
    {
      std::vector<uint64_t> none(4 * block), not_two(4 * block);
#pragma omp for schedule(static)
      for (int64_t b0 = 0; b0 < bytes; b0 += block) {
        const int64_t nb = std::min(block, bytes - b0);
        const int64_t i0 = 4 * b0, ni = std::min(4 * nb, n_typed - i0);
        for (int64_t w = 0; w < nc; ++w) {
          const chunk& c = chunks[c0 + w];
          std::fill(none.begin(), none.end(), 0);
          std::fill(not_two.begin(), not_two.end(), 0);
          for (int64_t i = 0; i < ni; ++i) {
            const uint64_t* h = &hap[static_cast<size_t>(2 * d.genotyped[i0 + i] * group)];
            none[i] = ~(h[w] | h[group + w]);
            not_two[i] = ~(h[w] & h[group + w]);
          }
          for (int v = 0; v < c.length; ++v) {
            uint8_t* row = d.genotypes.row(c.first + v) + b0;
            for (int64_t b = 0; b < nb; ++b) {
              uint8_t byte = 0;
              for (int64_t i = 0; i < 4; ++i)  // past the last animal both masks are 0
                byte |= static_cast<uint8_t>((((none[4 * b + i] >> v) & 1) |
                                              (((not_two[4 * b + i] >> v) & 1) << 1))
                                             << (2 * i));
              row[b] = byte;
            }
          }
        }
      }
    }
  }

  // True breeding values: centred and scaled on the founders (generation 0).
  d.G0.assign(static_cast<size_t>(t * t), 0.0);
  d.R0.assign(static_cast<size_t>(t * t), 0.0);
  for (int i = 0; i < t; ++i)
    for (int j = 0; j < t; ++j) {
      const double sg = std::sqrt(p.genetic_variance[i] * p.genetic_variance[j]);
      const double se = std::sqrt(p.genetic_variance[i] * (1 - p.h2[i]) / p.h2[i] * p.genetic_variance[j] *
                                  (1 - p.h2[j]) / p.h2[j]);
      d.G0[i * t + j] = i == j ? sg : p.genetic_correlation * sg;
      d.R0[i * t + j] = i == j ? se : p.residual_correlation * se;
    }
  d.tbv.assign(static_cast<size_t>(n) * t, 0.0);
  for (int k = 0; k < t; ++k) {
    double mean = 0, var = 0;
    for (int64_t a = 0; a < p.n_founders; ++a) mean += raw[a * t + k];
    mean /= static_cast<double>(p.n_founders);
    for (int64_t a = 0; a < p.n_founders; ++a) var += (raw[a * t + k] - mean) * (raw[a * t + k] - mean);
    var /= static_cast<double>(p.n_founders - 1);
    const double scale = var > 0 ? std::sqrt(p.genetic_variance[k] / var) : 0.0;
    for (int64_t a = 0; a < n; ++a) d.tbv[a * t + k] = (raw[a * t + k] - mean) * scale;
  }

  // Records: females outside the youngest generation, herd + lactation + days in milk + TBV + e.
  rng rr(p.seed, substream(record_stream, 0));
  std::vector<double> herd_effect(static_cast<size_t>(p.n_herds) * t), lact_effect(3 * static_cast<size_t>(t)),
      mu(t);
  for (int k = 0; k < t; ++k) {
    const double sg = std::sqrt(p.genetic_variance[k]);
    mu[k] = 10 * sg;
    for (int h = 0; h < p.n_herds; ++h) herd_effect[h * t + k] = sg * rr.normal();
    for (int l = 0; l < 3; ++l) lact_effect[l * t + k] = 0.5 * sg * rr.normal();
  }
  std::vector<double> Lr(static_cast<size_t>(t * t), 0.0);
  {
    const auto Lc = equicorrelation_factor(t, p.residual_correlation);
    for (int i = 0; i < t; ++i)
      for (int j = 0; j <= i; ++j) Lr[i * t + j] = Lc[i * t + j] * std::sqrt(d.R0[i * t + i]);
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  d.phenotype.assign(static_cast<size_t>(n) * t, nan);
  d.herd.assign(n, 0);
  d.lact.assign(n, 0);
  d.dim.assign(n, nan);
  std::vector<double> e(t);
  for (int64_t a = 0; a < n; ++a) {
    if (d.sex[a] != 2 || d.generation[a] == p.n_generations || rr.uniform() >= p.record_rate) continue;
    d.herd[a] = 1 + static_cast<int>(rr.below(static_cast<uint32_t>(p.n_herds)));
    d.lact[a] = 1 + static_cast<int>(rr.below(3));
    d.dim[a] = 5 + 300 * rr.uniform();
    correlated_normals(Lr, t, rr, e.data());
    const int keep_anyway = static_cast<int>(rr.below(static_cast<uint32_t>(t)));
    for (int k = 0; k < t; ++k) {
      const bool missing = rr.uniform() < p.trait_missing_rate && k != keep_anyway;
      if (missing) continue;
      const double sg = std::sqrt(p.genetic_variance[k]);
      d.phenotype[a * t + k] = mu[k] + herd_effect[(d.herd[a] - 1) * t + k] + lact_effect[(d.lact[a] - 1) * t + k] +
                               p.dim_slope * sg * d.dim[a] + d.tbv[a * t + k] + e[k];
    }
  }
  return d;
}

}  // namespace pmx::sim
