// Genotype simulator (see simulate.hpp for the model).
#include "simulate.hpp"

#include "random.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "panoramix/error.hpp"

namespace pmx::sim {
namespace {

constexpr int founders_per_population = 128;
// Per variant and haplotype: an event (at most one) that is a founder switch (recombination)
// with probability switch_share, else a redraw of that one allele (mutation).
constexpr double event_rate = 0.025;
constexpr double switch_share = 0.8;
constexpr int64_t base_spacing = 1000;  // bp between consecutive variants, before jitter
constexpr int64_t no_event = int64_t{1} << 40;

// Gaps between Bernoulli(rate) events (failures before the next success) by inverse CDF.
// `none_within[k]` = P(gap >= k) answers "no event in the k left" without a log, the usual case.
class gap_sampler {
 public:
  gap_sampler(double rate, int max_span) : log1m_(std::log1p(-rate)), none_within_(max_span + 1) {
    for (int k = 0; k <= max_span; ++k) none_within_[k] = std::pow(1 - rate, k);
  }
  int64_t next(rng& r, int64_t left) const {
    if (log1m_ == 0) return no_event;
    const double u = r.uniform_open();
    if (left < static_cast<int64_t>(none_within_.size()) && u <= none_within_[left])
      return no_event;
    const double g = std::floor(std::log(u) / log1m_);
    return g < static_cast<double>(no_event) ? static_cast<int64_t>(g) : no_event;
  }

 private:
  double log1m_;
  std::vector<double> none_within_;
};

// log of a Gamma(a, 1) draw (Marsaglia-Tsang); logs keep tiny shapes from underflowing to 0/0.
double log_gamma_draw(double a, rng& r) {
  if (a < 1) return log_gamma_draw(a + 1, r) + std::log(r.uniform_open()) / a;
  const double d = a - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    const double x = r.normal();
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    if (std::log(r.uniform_open()) < 0.5 * x * x + d - d * v + d * std::log(v))
      return std::log(d * v);
  }
}

double beta_draw(double a, double b, rng& r) {
  const double la = log_gamma_draw(a, r), lb = log_gamma_draw(b, r);
  return 1 / (1 + std::exp(lb - la));
}

struct block {
  int64_t first;     // first variant
  int64_t in_chrom;  // index of the first variant within its chromosome
  int length;
  int chrom;  // 1-based
};

std::vector<block> make_blocks(const genotype_params& p) {
  std::vector<block> blocks;
  for (int c = 0; c < p.n_chromosomes; ++c) {
    const auto edge = [&](int k) {
      return static_cast<int64_t>(static_cast<__int128>(p.n_variants) * k / p.n_chromosomes);
    };
    const int64_t begin = edge(c), end = edge(c + 1);
    for (int64_t j = begin; j < end; j += p.ld_block_length)
      blocks.push_back(
          {j, j - begin, static_cast<int>(std::min<int64_t>(p.ld_block_length, end - j)), c + 1});
  }
  return blocks;
}

// Per-thread buffers, sized once per thread and reused for every block.
struct scratch {
  std::vector<double> pop_freq;  // [population][variant in block]: ancestral-minor frequency
  std::vector<uint8_t> flip;     // [variant in block]: 1 when A1 is the ancestral-major allele
  std::vector<uint8_t> founder;  // [population][founder][variant in block]: 1 = carries A1
  std::vector<uint8_t> dosage;   // [4 samples][variant in block]
  double latent[founders_per_population];
  int stratum[founders_per_population], redraw[founders_per_population],
      vacated[founders_per_population];
};

void draw_frequencies(const genotype_params& p, const block& b, rng& r, scratch& s) {
  for (int v = 0; v < b.length; ++v) {
    const double maf = ancestral_maf(r, p.min_maf);
    // Minor alleles sit on the low side of the latents, so those of nearby variants nest as on
    // a genealogy; which allele is A1 is a coin flip.
    s.flip[v] = r.uniform() < 0.5;
    const double anc = r.uniform() < p.monomorphic_fraction ? 0.0 : maf;
    for (int k = 0; k < p.n_populations; ++k) {
      double pk = anc;
      if (p.fst > 0 && anc > 0) {
        const double scale = (1 - p.fst) / p.fst;
        pk = beta_draw(anc * scale, (1 - anc) * scale, r);
      }
      s.pop_freq[static_cast<size_t>(k) * b.length + v] = pk;
    }
  }
}

// Founders' latents stay stratified (one per 1/K stratum), so the pool carries the minor allele
// at floor or ceil of K * frequency: a plain random pool would add drift of order 1/K.
void draw_founders(const genotype_params& p, const block& b, rng& r, scratch& s) {
  constexpr int K = founders_per_population;
  for (int k = 0; k < p.n_populations; ++k) {
    const double* freq = s.pop_freq.data() + static_cast<size_t>(k) * b.length;
    uint8_t* out = s.founder.data() + static_cast<size_t>(k) * K * b.length;
    for (int f = 0; f < K; ++f) s.stratum[f] = f;
    for (int f = K - 1; f > 0; --f) std::swap(s.stratum[f], s.stratum[r.below(f + 1)]);
    for (int f = 0; f < K; ++f) s.latent[f] = (s.stratum[f] + r.uniform()) / K;
    for (int v = 0; v < b.length; ++v) {
      if (v > 0) {  // founders that do not keep their state share out the strata they vacate
        int n = 0;
        for (int f = 0; f < K; ++f)
          if (r.uniform() >= p.ld_strength) s.redraw[n] = f, s.vacated[n++] = s.stratum[f];
        for (int i = n - 1; i > 0; --i) std::swap(s.vacated[i], s.vacated[r.below(i + 1)]);
        for (int i = 0; i < n; ++i) {
          s.stratum[s.redraw[i]] = s.vacated[i];
          s.latent[s.redraw[i]] = (s.vacated[i] + r.uniform()) / K;
        }
      }
      for (int f = 0; f < K; ++f)
        out[static_cast<size_t>(f) * b.length + v] = (s.latent[f] < freq[v]) ^ s.flip[v];
    }
  }
}

// Adds one haplotype's A1 alleles over the block to `dos`: runs copied from one founder,
// broken by events at geometric gaps.
void add_haplotype(const uint8_t* pool, const double* freq, const uint8_t* flip, int length,
                   const gap_sampler& gaps, rng& r, uint8_t* dos) {
  const uint8_t* src = pool + static_cast<size_t>(r.below(founders_per_population)) * length;
  int64_t v = 0;
  for (;;) {
    const int64_t end = std::min<int64_t>(length, v + gaps.next(r, length - v));
    for (; v < end; ++v) dos[v] += src[v];
    if (v == length) return;
    if (r.uniform() < switch_share) {
      src = pool + static_cast<size_t>(r.below(founders_per_population)) * length;
      dos[v] += src[v];
    } else {
      dos[v] += (r.uniform() < freq[v]) ^ flip[v];
    }
    ++v;
  }
}

void simulate_block(const genotype_params& p, const block& b, uint64_t index,
                    const std::vector<int>& pop_of, const gap_sampler& gaps, dataset& d,
                    scratch& s) {
  rng r(p.seed, index);
  // Variant records: positions strictly increase within a chromosome (jitter < spacing).
  static const char bases[4] = {'A', 'C', 'G', 'T'};
  for (int v = 0; v < b.length; ++v) {
    variant_record& rec = d.variants[b.first + v];
    rec.chrom = std::to_string(b.chrom);
    rec.pos = (b.in_chrom + v) * base_spacing + 1 + r.below(base_spacing - 1);
    rec.id = "rs" + rec.chrom + "_" + std::to_string(rec.pos);
    rec.cm = 0;
    const uint32_t a1 = r.below(4), a2 = (a1 + 1 + r.below(3)) % 4;
    rec.a1 = std::string(1, bases[a1]);
    rec.a2 = std::string(1, bases[a2]);
  }
  draw_frequencies(p, b, r, s);
  draw_founders(p, b, r, s);

  static constexpr uint8_t code_of_dosage[3] = {code_hom_a2, code_het, code_hom_a1};
  const int64_t n = p.n_samples;
  const size_t pool_size = static_cast<size_t>(founders_per_population) * b.length;
  for (int64_t q = 0; q * 4 < n; ++q) {  // four samples fill one byte of each row
    const int in_byte = static_cast<int>(std::min<int64_t>(4, n - q * 4));
    std::fill(s.dosage.begin(), s.dosage.begin() + 4 * b.length, 0);
    for (int t = 0; t < in_byte; ++t) {
      const int64_t i = q * 4 + t;
      const int k = pop_of[i];
      const uint8_t* pool = s.founder.data() + k * pool_size;
      const double* freq = s.pop_freq.data() + static_cast<size_t>(k) * b.length;
      uint8_t* dos = s.dosage.data() + static_cast<size_t>(t) * b.length;
      add_haplotype(pool, freq, s.flip.data(), b.length, gaps, r, dos);
      add_haplotype(pool, freq, s.flip.data(), b.length, gaps, r, dos);
    }
    for (int v = 0; v < b.length; ++v) {
      uint8_t byte = 0;
      for (int t = 0; t < in_byte; ++t)
        byte |= static_cast<uint8_t>(code_of_dosage[s.dosage[static_cast<size_t>(t) * b.length + v]]
                                     << (2 * t));
      d.genotypes.row(b.first + v)[q] = byte;
    }
  }
  if (p.missing_rate > 0) {
    const gap_sampler miss(p.missing_rate, 0);
    for (int v = 0; v < b.length; ++v) {
      uint8_t* row = d.genotypes.row(b.first + v);
      for (int64_t i = miss.next(r, n); i < n; i += 1 + miss.next(r, n - i - 1)) {
        const int shift = 2 * static_cast<int>(i & 3);
        row[i >> 2] =
            static_cast<uint8_t>((row[i >> 2] & ~(3u << shift)) | (code_missing << shift));
      }
    }
  }
}

void require(bool ok, const std::string& message) {
  if (!ok) throw input_error("simulate: " + message);
}

}  // namespace

void validate(const genotype_params& p) {
  const auto num = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return std::string(buf);
  };
  require(p.n_samples >= 1,
          "number of samples must be at least 1, got " + std::to_string(p.n_samples));
  require(p.n_variants >= 1,
          "number of variants must be at least 1, got " + std::to_string(p.n_variants));
  require(p.missing_rate >= 0 && p.missing_rate < 1,
          "missing rate must be in [0, 1), got " + num(p.missing_rate));
  require(p.n_populations >= 1 && p.n_populations <= 10000,
          "number of populations must be in [1, 10000], got " + std::to_string(p.n_populations));
  require(p.fst >= 0 && p.fst < 1, "Fst must be in [0, 1), got " + num(p.fst));
  require(p.n_chromosomes >= 1,
          "number of chromosomes must be at least 1, got " + std::to_string(p.n_chromosomes));
  require(p.ld_block_length >= 1,
          "LD block length must be at least 1 variant, got " + std::to_string(p.ld_block_length));
  require(p.ld_strength >= 0 && p.ld_strength <= 1,
          "LD strength must be in [0, 1], got " + num(p.ld_strength));
  require(p.min_maf >= 0 && p.min_maf <= 0.5,
          "minimum MAF must be in [0, 0.5], got " + num(p.min_maf));
  require(p.monomorphic_fraction >= 0 && p.monomorphic_fraction <= 1,
          "monomorphic fraction must be in [0, 1], got " + num(p.monomorphic_fraction));
}

dataset simulate_genotypes(const genotype_params& p, int threads) {
  validate(p);
  dataset d;
  d.samples.resize(static_cast<size_t>(p.n_samples));
  std::vector<int> pop_of(static_cast<size_t>(p.n_samples));
  for (int64_t i = 0; i < p.n_samples; ++i) {
    const int k = pop_of[i] =
        static_cast<int>(static_cast<__int128>(i) * p.n_populations / p.n_samples);
    char iid[32];
    std::snprintf(iid, sizeof iid, "s%06lld", static_cast<long long>(i + 1));
    d.samples[i] = {"pop" + std::to_string(k + 1), iid, "0", "0", i % 2 == 0 ? 1 : 2, "-9"};
  }
  d.variants.resize(static_cast<size_t>(p.n_variants));
  d.genotypes = packed_genotypes(p.n_samples, p.n_variants);

  const std::vector<block> blocks = make_blocks(p);
  const int64_t n_blocks = static_cast<int64_t>(blocks.size());
  const int longest = static_cast<int>(std::min<int64_t>(p.ld_block_length, p.n_variants));
  const gap_sampler gaps(event_rate, longest);
  if (threads <= 0) threads = omp_get_max_threads();
  // Exceptions must not leave an OpenMP region: the first one is kept and rethrown after it.
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  const auto record = [&] {
#pragma omp critical(pmx_simulate_failure)
    if (!failure) failure = std::current_exception();
    failed = true;
  };
#pragma omp parallel num_threads(threads)
  {
    scratch s;
    try {
      s.pop_freq.resize(static_cast<size_t>(p.n_populations) * longest);
      s.founder.resize(static_cast<size_t>(p.n_populations) * founders_per_population * longest);
      s.dosage.resize(4 * static_cast<size_t>(longest));
      s.flip.resize(static_cast<size_t>(longest));
    } catch (...) {
      record();
    }
#pragma omp for schedule(dynamic, 4)
    for (int64_t bi = 0; bi < n_blocks; ++bi) {
      if (failed) continue;
      try {
        simulate_block(p, blocks[bi], static_cast<uint64_t>(bi), pop_of, gaps, d, s);
      } catch (...) {
        record();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
  return d;
}

}  // namespace pmx::sim
