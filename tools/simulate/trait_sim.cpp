// Phenotype simulator (see trait_sim.hpp for the model).
//
// Determinism: every sum over samples is taken over fixed blocks of `block_samples` samples
// (each block's partial in sample order, the partials in block order), and every random stream
// belongs to a trait, a block or the shared draws, never to a thread.
#include "simulate/trait_sim.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "panoramix/error.hpp"
#include "simulate/random.hpp"

namespace pmx::sim {
namespace {

constexpr int64_t block_samples = 4096;  // a multiple of 4: blocks start on a .bed byte
// Random streams (the genotype simulator uses streams 0 .. number of LD blocks - 1).
constexpr uint64_t stream_select = 0x5452414954000000ull;    // + 0 shared draws, + 1 + t trait t
constexpr uint64_t stream_residual = 0x5452455300000000ull;  // + (t << 32) + sample block
constexpr uint64_t stream_missing = 0x544e410000000000ull;   // + t

// Below this share of the variance a component expected to vary is taken to have none.
constexpr double vanishing = 1e-10;

void require(bool ok, const std::string& message) {
  if (!ok) throw input_error("simulate: " + message);
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

uint64_t below64(rng& r, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(r.next()) * n) >> 64);
}

// Draws without replacement from 0..m-1: a Fisher–Yates shuffle whose swaps are kept in a map,
// so that a draw costs O(1) whatever m. Copies continue the same shuffle independently.
class draw_without_replacement {
 public:
  explicit draw_without_replacement(int64_t m) : m_(m) {}
  int64_t next(rng& r) {
    const int64_t j = t_ + static_cast<int64_t>(below64(r, static_cast<uint64_t>(m_ - t_)));
    const int64_t picked = at(j);
    moved_[j] = at(t_);
    ++t_;
    return picked;
  }

 private:
  int64_t at(int64_t k) const {
    const auto it = moved_.find(k);
    return it == moved_.end() ? k : it->second;
  }
  int64_t m_, t_ = 0;
  std::unordered_map<int64_t, int64_t> moved_;
};

// Per variant: mean A1 dosage over called samples, variance of the centred dosages over all
// samples (missing = 0, divisor n), and whether two different dosages were called.
struct variant_stats {
  std::vector<double> center, variance;
  std::vector<char> polymorphic;
};

variant_stats scan_variants(const variant_major_view& g, int threads) {
  // Per .bed byte (four calls): sum of dosages, sum of squares, called calls, dosages present.
  struct byte_info {
    uint8_t sum, sum_sq, called, present;
  };
  static const auto table = [] {
    std::array<byte_info, 256> t{};
    for (int b = 0; b < 256; ++b) {
      byte_info x{};
      for (int k = 0; k < 4; ++k) {
        const int d = dosage_of_code(static_cast<uint8_t>(b >> (2 * k)));
        if (d < 0) continue;
        x.sum += d, x.sum_sq += d * d, ++x.called, x.present |= 1 << d;
      }
      t[b] = x;
    }
    return t;
  }();
  const int64_t n = g.n_samples, m = g.n_variants, full = n / 4;
  variant_stats s;
  s.center.assign(m, 0.0);
  s.variance.assign(m, 0.0);
  s.polymorphic.assign(m, 0);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
  for (int64_t j = 0; j < m; ++j) {
    const uint8_t* row = g.row(j);
    int64_t sum = 0, sum_sq = 0, called = 0;
    unsigned present = 0;
    for (int64_t q = 0; q < full; ++q) {
      const byte_info& x = table[row[q]];
      sum += x.sum, sum_sq += x.sum_sq, called += x.called, present |= x.present;
    }
    for (int64_t i = full * 4; i < n; ++i) {
      const int d = dosage_of_code(g.code(i, j));
      if (d >= 0) sum += d, sum_sq += d * d, ++called, present |= 1u << d;
    }
    if (called == 0) continue;
    const double c = static_cast<double>(sum) / static_cast<double>(called);
    s.center[j] = c;
    // Σ (d − c)² over called calls, from exact integer sums.
    s.variance[j] = (static_cast<double>(sum_sq) - c * static_cast<double>(sum)) / static_cast<double>(n);
    s.polymorphic[j] = (present & (present - 1)) != 0;
  }
  return s;
}

// Centred dosage of each code of variant j (missing = 0).
struct centred_codes {
  double value[4];
  centred_codes(double center) : value{2 - center, 0.0, 1 - center, -center} {}
};

inline uint8_t code_at(const uint8_t* row, int64_t i) { return (row[i >> 2] >> (2 * (i & 3))) & 3; }

// Σ_i f(i) over 0..n-1, the same bits for any number of threads.
template <class F>
double ordered_sum(int64_t n, int threads, F&& f) {
  const int64_t nb = (n + block_samples - 1) / block_samples;
  std::vector<double> part(static_cast<size_t>(nb));
  // A pass over a vector is memory-bound: threads pay only for long ones (and for the t x t
  // correlations).
#pragma omp parallel for schedule(static) num_threads(threads) if (nb >= 16)
  for (int64_t b = 0; b < nb; ++b) {
    double s = 0;
    for (int64_t i = b * block_samples; i < std::min(n, (b + 1) * block_samples); ++i) s += f(i);
    part[b] = s;
  }
  double s = 0;
  for (double x : part) s += x;
  return s;
}

double mean_of(const std::vector<double>& x, int threads) {
  const int64_t n = static_cast<int64_t>(x.size());
  return ordered_sum(n, threads, [&](int64_t i) { return x[i]; }) / static_cast<double>(n);
}

// Centred cross moment Σ (x − x̄)(y − ȳ) / n.
double covariance(const std::vector<double>& x, const std::vector<double>& y, int threads) {
  const int64_t n = static_cast<int64_t>(x.size());
  const double mx = mean_of(x, threads), my = mean_of(y, threads);
  return ordered_sum(n, threads, [&](int64_t i) { return (x[i] - mx) * (y[i] - my); }) / static_cast<double>(n);
}

struct raw_qtl {
  int64_t variant;
  double effect;
  bool shared;
};
struct raw_pair {
  int64_t variant1, variant2;
  double effect;
  bool shared;
};
struct trait_draws {
  std::vector<raw_qtl> qtl;
  std::vector<raw_pair> pairs;
};

// The QTL and pairs of every trait: the shared ones first (one stream), then each trait's own
// (its stream), continuing one shuffle of the polymorphic variants so that a trait's Q + 2P
// variants are distinct.
std::vector<trait_draws> draw_architecture(const trait_params& p, const std::vector<int64_t>& poly) {
  const int64_t shared_qtl = std::llround(p.trait_correlation * static_cast<double>(p.n_qtl));
  const int64_t shared_pairs = std::llround(p.trait_correlation * static_cast<double>(p.n_pairs));
  draw_without_replacement shared_draw(static_cast<int64_t>(poly.size()));
  rng rs(p.seed, stream_select);
  trait_draws shared;
  for (int64_t q = 0; q < shared_qtl; ++q) {
    const int64_t v = poly[shared_draw.next(rs)];
    shared.qtl.push_back({v, rs.normal(), true});
  }
  for (int64_t k = 0; k < shared_pairs; ++k) {
    const int64_t v1 = poly[shared_draw.next(rs)], v2 = poly[shared_draw.next(rs)];
    shared.pairs.push_back({v1, v2, rs.normal(), true});
  }
  std::vector<trait_draws> out(static_cast<size_t>(p.n_traits), shared);
  for (int t = 0; t < p.n_traits; ++t) {
    draw_without_replacement draw = shared_draw;
    rng r(p.seed, stream_select + 1 + static_cast<uint64_t>(t));
    trait_draws& d = out[t];
    for (int64_t q = shared_qtl; q < p.n_qtl; ++q) {
      const int64_t v = poly[draw.next(r)];
      d.qtl.push_back({v, r.normal(), false});
    }
    for (int64_t k = shared_pairs; k < p.n_pairs; ++k) {
      const int64_t v1 = poly[draw.next(r)], v2 = poly[draw.next(r)];
      d.pairs.push_back({v1, v2, r.normal(), false});
    }
    for (raw_pair& pr : d.pairs)
      if (pr.variant2 < pr.variant1) std::swap(pr.variant1, pr.variant2);
    std::sort(d.qtl.begin(), d.qtl.end(), [](const raw_qtl& a, const raw_qtl& b) { return a.variant < b.variant; });
    std::sort(d.pairs.begin(), d.pairs.end(), [](const raw_pair& a, const raw_pair& b) {
      return a.variant1 != b.variant1 ? a.variant1 < b.variant1 : a.variant2 < b.variant2;
    });
  }
  return out;
}

// Interaction terms of the pairs: w = x1 x2 − (c0 + c1 x1 + c2 x2), least squares in the sample.
// Also returns, per pair, the variance of the product x1 x2 (the scale of "no variance left").
void fit_interactions(const variant_major_view& g, trait_truth& tr, std::vector<double>& product_variance,
                      int threads) {
  const int64_t n = g.n_samples, np = static_cast<int64_t>(tr.pairs.size());
  const int64_t nb = (n + block_samples - 1) / block_samples;
  constexpr int S = 8;  // Σx1 Σx2 Σx1² Σx2² Σx1x2 Σm x1 Σm x2 Σm²  (m = x1 x2)
  std::vector<double> part(static_cast<size_t>(nb * np * S));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t i0 = b * block_samples, i1 = std::min(n, i0 + block_samples);
    for (int64_t k = 0; k < np; ++k) {
      const epistatic_pair& pr = tr.pairs[k];
      const centred_codes z1(pr.center1), z2(pr.center2);
      const uint8_t *r1 = g.row(pr.variant1), *r2 = g.row(pr.variant2);
      double s[S] = {};
      for (int64_t i = i0; i < i1; ++i) {
        const double x1 = z1.value[code_at(r1, i)], x2 = z2.value[code_at(r2, i)], m = x1 * x2;
        s[0] += x1, s[1] += x2, s[2] += x1 * x1, s[3] += x2 * x2, s[4] += m, s[5] += m * x1, s[6] += m * x2,
            s[7] += m * m;
      }
      std::copy(s, s + S, &part[static_cast<size_t>((b * np + k) * S)]);
    }
  }
  product_variance.assign(static_cast<size_t>(np), 0.0);
  const double dn = static_cast<double>(n);
  for (int64_t k = 0; k < np; ++k) {
    double s[S] = {};
    for (int64_t b = 0; b < nb; ++b)
      for (int q = 0; q < S; ++q) s[q] += part[static_cast<size_t>((b * np + k) * S + q)];
    const double m1 = s[0] / dn, m2 = s[1] / dn, mm = s[4] / dn;
    const double c11 = s[2] / dn - m1 * m1, c22 = s[3] / dn - m2 * m2, c12 = mm - m1 * m2;
    const double cm1 = s[5] / dn - mm * m1, cm2 = s[6] / dn - mm * m2;
    epistatic_pair& pr = tr.pairs[k];
    const double det = c11 * c22 - c12 * c12;
    if (det > 1e-12 * c11 * c22) {
      pr.c1 = (cm1 * c22 - cm2 * c12) / det;
      pr.c2 = (cm2 * c11 - cm1 * c12) / det;
    } else {  // the two dosages are collinear in the sample: one of them explains both
      pr.c1 = cm1 / c11;
      pr.c2 = 0;
    }
    pr.c0 = mm - pr.c1 * m1 - pr.c2 * m2;
    product_variance[k] = std::max(0.0, s[7] / dn - mm * mm);
  }
}

// Per sample, [0] the common and [1] the trait's own QTL or pairs: u = Σ a_j x_j (raw additive
// values) and v = Σ b_p w_p (raw interaction values).
void genetic_values(const variant_major_view& g, const trait_truth& tr, std::vector<double> (&u)[2],
                    std::vector<double> (&v)[2], int threads) {
  const int64_t n = g.n_samples, nb = (n + block_samples - 1) / block_samples;
  for (int s = 0; s < 2; ++s) {
    u[s].assign(static_cast<size_t>(n), 0.0);
    v[s].assign(static_cast<size_t>(n), 0.0);
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t i0 = b * block_samples, i1 = std::min(n, i0 + block_samples);
    for (const qtl_effect& q : tr.qtl) {
      const centred_codes z(q.center);
      const uint8_t* row = g.row(q.variant);
      double* out = u[q.shared ? 0 : 1].data();
      for (int64_t i = i0; i < i1; ++i) out[i] += q.effect * z.value[code_at(row, i)];
    }
    for (const epistatic_pair& pr : tr.pairs) {
      const centred_codes z1(pr.center1), z2(pr.center2);
      const uint8_t *r1 = g.row(pr.variant1), *r2 = g.row(pr.variant2);
      double* out = v[pr.shared ? 0 : 1].data();
      for (int64_t i = i0; i < i1; ++i) {
        const double x1 = z1.value[code_at(r1, i)], x2 = z2.value[code_at(r2, i)];
        out[i] += pr.effect * (x1 * x2 - (pr.c0 + pr.c1 * x1 + pr.c2 * x2));
      }
    }
  }
}

// Weights of the common and own groups of a part so that they carry the shares R and 1 − R of
// its variance (1 and 1 when a group is empty or has no variance: nothing to weigh).
void group_weights(const std::vector<double> (&x)[2], bool has_common, bool has_own, double R, double& w_common,
                   double& w_own, int threads) {
  w_common = w_own = 1;
  if (!has_common || !has_own) return;
  const double vc = covariance(x[0], x[0], threads), vo = covariance(x[1], x[1], threads);
  if (!(vc > 0) || !(vo > 0)) return;
  w_common = std::sqrt(R / vc);
  w_own = std::sqrt((1 - R) / vo);
}

std::string trait_name(int t) { return "trait" + std::to_string(t + 1); }

}  // namespace

void validate(const trait_params& p, int64_t n_samples, int64_t n_variants) {
  require(p.n_traits >= 0 && p.n_traits <= 100, "--traits must be in [0, 100], got " + std::to_string(p.n_traits));
  require(p.n_qtl >= 0, "--qtl must be at least 0, got " + std::to_string(p.n_qtl));
  require(p.n_pairs >= 0, "--epistasis must be at least 0, got " + std::to_string(p.n_pairs));
  require(std::isfinite(p.h2) && p.h2 >= 0 && p.h2 <= 1, "--h2 must be in [0, 1], got " + num(p.h2));
  require(std::isfinite(p.epistatic_share) && p.epistatic_share >= 0 && p.epistatic_share <= 1,
          "--epistatic-share must be in [0, 1], got " + num(p.epistatic_share));
  require(std::isfinite(p.trait_correlation) && p.trait_correlation >= 0 && p.trait_correlation <= 1,
          "--trait-correlation must be in [0, 1], got " + num(p.trait_correlation));
  require(std::isfinite(p.missing_fraction) && p.missing_fraction >= 0 && p.missing_fraction < 1,
          "--pheno-missing must be in [0, 1), got " + num(p.missing_fraction));
  if (p.n_traits == 0) return;
  require(n_samples >= 2, "--traits needs at least 2 samples, got " + std::to_string(n_samples));
  require(p.n_qtl <= n_variants && p.n_pairs <= n_variants && p.n_qtl + 2 * p.n_pairs <= n_variants,
          "--qtl " + std::to_string(p.n_qtl) + " and --epistasis " + std::to_string(p.n_pairs) +
              " need --qtl + 2 x --epistasis distinct variants per trait, but there are only " +
              std::to_string(n_variants) + " variants");
  if (p.h2 > 0) {
    require(p.epistatic_share == 0 || p.n_pairs > 0,
            "--epistatic-share " + num(p.epistatic_share) + " needs epistatic pairs (--epistasis > 0)");
    require(p.epistatic_share == 1 || p.n_qtl > 0,
            "--epistatic-share " + num(p.epistatic_share) + " leaves additive variance, which needs --qtl > 0");
  }
  const int64_t masked = std::llround(p.missing_fraction * static_cast<double>(n_samples));
  require(masked < n_samples, "--pheno-missing " + num(p.missing_fraction) + " leaves no phenotype of the " +
                                  std::to_string(n_samples) + " samples");
}

trait_dataset simulate_traits(const trait_params& p, const variant_major_view& g, int threads) {
  validate(p, g.n_samples, g.n_variants);
  if (threads <= 0) threads = omp_get_max_threads();
  const int64_t n = g.n_samples;
  const int T = p.n_traits;
  trait_dataset d;
  d.n_traits = T;
  d.n_samples = n;
  if (T == 0) return d;

  const variant_stats vs = scan_variants(g, threads);
  std::vector<int64_t> poly;
  for (int64_t j = 0; j < g.n_variants; ++j)
    if (vs.polymorphic[j]) poly.push_back(j);
  d.polymorphic_variants = static_cast<int64_t>(poly.size());
  require(p.n_qtl + 2 * p.n_pairs <= d.polymorphic_variants,
          "--qtl " + std::to_string(p.n_qtl) + " and --epistasis " + std::to_string(p.n_pairs) + " need " +
              std::to_string(p.n_qtl + 2 * p.n_pairs) + " distinct polymorphic variants per trait, but only " +
              std::to_string(poly.size()) + " of the " + std::to_string(g.n_variants) +
              " variants are polymorphic in the " + std::to_string(n) + " samples");
  const std::vector<trait_draws> draws = draw_architecture(p, poly);

  const double dn = static_cast<double>(n);
  const double target_e = p.h2 * p.epistatic_share, target_a = p.h2 - target_e, target_res = 1 - p.h2;
  d.phenotype.assign(static_cast<size_t>(n * T), 0.0);
  d.genetic.assign(static_cast<size_t>(n * T), 0.0);
  d.truth.resize(static_cast<size_t>(T));
  std::vector<double> ug[2], vg[2], u, v, r(static_cast<size_t>(n));
  for (int t = 0; t < T; ++t) {
    trait_truth& tr = d.truth[t];
    for (const raw_qtl& q : draws[t].qtl) tr.qtl.push_back({q.variant, vs.center[q.variant], q.effect, q.shared});
    for (const raw_pair& pr : draws[t].pairs)
      tr.pairs.push_back({pr.variant1, pr.variant2, vs.center[pr.variant1], vs.center[pr.variant2], 0, 0, 0,
                          pr.effect, pr.shared});
    std::vector<double> product_variance;
    fit_interactions(g, tr, product_variance, threads);
    genetic_values(g, tr, ug, vg, threads);
    // Common and own groups weighted to the shares R and 1 - R, then added: u and v.
    {
      const auto has = [](const auto& list, bool shared) {
        return std::any_of(list.begin(), list.end(), [&](const auto& x) { return x.shared == shared; });
      };
      double wc, wo;
      group_weights(ug, has(tr.qtl, true), has(tr.qtl, false), p.trait_correlation, wc, wo, threads);
      for (qtl_effect& q : tr.qtl) q.effect *= q.shared ? wc : wo;
      u.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) u[i] = wc * ug[0][i] + wo * ug[1][i];
      group_weights(vg, has(tr.pairs, true), has(tr.pairs, false), p.trait_correlation, wc, wo, threads);
      for (epistatic_pair& pr : tr.pairs) pr.effect *= pr.shared ? wc : wo;
      v.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[i] = wc * vg[0][i] + wo * vg[1][i];
    }

    // Additive part: scale u to the target.
    double s_a = 0, lambda_raw = 0;
    if (target_a > 0) {
      double expected = 0;
      for (const qtl_effect& q : tr.qtl) expected += q.effect * q.effect * vs.variance[q.variant];
      const double var_u = covariance(u, u, threads);
      require(var_u > vanishing * expected,
              trait_name(t) + ": its " + std::to_string(tr.qtl.size()) + " QTL have no additive variance in the " +
                  std::to_string(n) + " samples (more samples or --qtl)");
      s_a = std::sqrt(target_a / var_u);
      lambda_raw = covariance(u, v, threads) / var_u;
    }
    // Epistatic part: v minus its regression on u, scaled to the target.
    double s_e = 0;
    if (target_e > 0) {
      double expected = 0;
      for (size_t k = 0; k < tr.pairs.size(); ++k)
        expected += tr.pairs[k].effect * tr.pairs[k].effect * product_variance[k];
      for (int64_t i = 0; i < n; ++i) v[i] -= lambda_raw * u[i];
      const double var_v = covariance(v, v, threads);
      require(expected > 0 && var_v > vanishing * expected,
              trait_name(t) + ": its " + std::to_string(tr.pairs.size()) +
                  " epistatic pairs have no interaction variance left in the " + std::to_string(n) +
                  " samples once their additive parts are removed (more samples or --epistasis)");
      s_e = std::sqrt(target_e / var_v);
    }
    std::vector<double> a_val(static_cast<size_t>(n)), e_val(static_cast<size_t>(n)), gv(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      a_val[i] = s_a * u[i];
      e_val[i] = s_e * v[i];
      gv[i] = a_val[i] + e_val[i];
    }
    for (qtl_effect& q : tr.qtl) q.effect *= s_a;
    for (epistatic_pair& pr : tr.pairs) pr.effect *= s_e;
    tr.lambda = s_a > 0 ? s_e * lambda_raw / s_a : 0.0;

    // Residuals: normal draws per block of samples, centred, made uncorrelated with G, scaled.
    const int64_t nb = (n + block_samples - 1) / block_samples;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t b = 0; b < nb; ++b) {
      rng rr(p.seed, stream_residual + (static_cast<uint64_t>(t) << 32) + static_cast<uint64_t>(b));
      for (int64_t i = b * block_samples; i < std::min(n, (b + 1) * block_samples); ++i) r[i] = rr.normal();
    }
    std::vector<double> e(static_cast<size_t>(n), 0.0);
    if (target_res > 0) {
      const double var_g = covariance(gv, gv, threads);
      const double beta = var_g > 0 ? covariance(r, gv, threads) / var_g : 0.0;
      const double mr = mean_of(r, threads), mg = mean_of(gv, threads);
      for (int64_t i = 0; i < n; ++i) e[i] = r[i] - mr - beta * (gv[i] - mg);
      const double var_e = covariance(e, e, threads);
      require(var_e > vanishing * covariance(r, r, threads), trait_name(t) + ": residuals have no variance left once made uncorrelated with the "
                                 "genetic values (" + std::to_string(n) + " samples are too few)");
      const double s = std::sqrt(target_res / var_e);
      for (double& x : e) x *= s;
    }
    std::vector<double> y(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      y[i] = gv[i] + e[i];
      d.genetic[static_cast<size_t>(i * T + t)] = gv[i];
      d.phenotype[static_cast<size_t>(i * T + t)] = y[i];
    }
    trait_variances& vc = tr.variances;
    vc.additive = covariance(a_val, a_val, threads);
    vc.epistatic = covariance(e_val, e_val, threads);
    vc.additive_epistatic_cov = covariance(a_val, e_val, threads);
    vc.genetic = covariance(gv, gv, threads);
    vc.residual = covariance(e, e, threads);
    vc.genetic_residual_cov = covariance(gv, e, threads);
    vc.phenotypic = covariance(y, y, threads);

    // Phenotypes written as NA: round(F n) samples drawn without replacement.
    const int64_t masked = std::llround(p.missing_fraction * dn);
    draw_without_replacement pick(n);
    rng rm(p.seed, stream_missing + static_cast<uint64_t>(t));
    for (int64_t k = 0; k < masked; ++k) d.phenotype[static_cast<size_t>(pick.next(rm) * T + t)] = NAN;
  }

  // Realised genetic correlations.
  d.genetic_correlation.assign(static_cast<size_t>(T * T), NAN);
  std::vector<double> mean_g(static_cast<size_t>(T)), sd_g(static_cast<size_t>(T));
  for (int t = 0; t < T; ++t) {
    mean_g[t] = ordered_sum(n, threads, [&](int64_t i) { return d.genetic[static_cast<size_t>(i * T + t)]; }) / dn;
    sd_g[t] = std::sqrt(d.truth[t].variances.genetic);
  }
  for (int t = 0; t < T; ++t)
    for (int s = t; s < T; ++s) {
      const double c = ordered_sum(n, threads, [&](int64_t i) {
                         return (d.genetic[static_cast<size_t>(i * T + t)] - mean_g[t]) *
                                (d.genetic[static_cast<size_t>(i * T + s)] - mean_g[s]);
                       }) / dn;
      const double rho = sd_g[t] > 0 && sd_g[s] > 0 ? c / (sd_g[t] * sd_g[s]) : NAN;
      d.genetic_correlation[static_cast<size_t>(t * T + s)] = d.genetic_correlation[static_cast<size_t>(s * T + t)] = rho;
    }
  return d;
}

}  // namespace pmx::sim
