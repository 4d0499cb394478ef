#include "simulate/trait_sim_files.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "panoramix/error.hpp"

namespace pmx::sim {
namespace {

// The shortest text that reads back to the same double; "NA" for NaN.
void put(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NA";
    return;
  }
  char buf[32];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

std::string text(double v) {
  std::string s;
  put(s, v);
  return s;
}

}  // namespace

void add_trait_files(output_group& out, const std::string& prefix, const trait_params& p,
                     const trait_dataset& d, const std::vector<sample_record>& samples,
                     const std::vector<variant_record>& variants) {
  const int T = d.n_traits;
  PMX_EXPECTS(static_cast<int64_t>(samples.size()) == d.n_samples, "one sample record per simulated sample");
  PMX_EXPECTS(static_cast<int64_t>(d.truth.size()) == T, "one truth per trait");

  auto& ph = out.add(prefix + ".pheno");
  std::string line = "FID IID";
  for (int t = 0; t < T; ++t) line += " trait" + std::to_string(t + 1);
  ph.write(line + "\n");
  constexpr int64_t chunk = 1 << 14;
  for (int64_t i0 = 0; i0 < d.n_samples; i0 += chunk) {
    std::string o;
    for (int64_t i = i0; i < std::min(d.n_samples, i0 + chunk); ++i) {
      o += samples[i].fid;
      o += ' ';
      o += samples[i].iid;
      for (int t = 0; t < T; ++t) {
        o += ' ';
        put(o, d.phenotype[static_cast<size_t>(i * T + t)]);
      }
      o += '\n';
    }
    ph.write(o);
  }

  auto& tf = out.add(prefix + ".truth");
  std::string o;
  o += "# panoramix simulate: genetic architecture of the traits of the .pheno beside this file\n";
  o += "# traits " + std::to_string(T) + ", qtl " + std::to_string(p.n_qtl) + ", epistasis " +
       std::to_string(p.n_pairs) + ", h2 " + text(p.h2) + ", epistatic_share " + text(p.epistatic_share) +
       ", trait_correlation " + text(p.trait_correlation) + ", pheno_missing " + text(p.missing_fraction) +
       ", seed " + std::to_string(p.seed) + "; " + std::to_string(d.polymorphic_variants) +
       " polymorphic variants, " + std::to_string(d.n_samples) + " samples\n";
  o += "# x = A1 dosage (.bim column 5) - center (its mean over called samples); missing call: x = 0\n";
  o += "# A = sum over qtl rows of value * x(id1)\n";
  o += "# w = x1 * x2 - (c0 + c1 * x1 + c2 * x2), x1 = x(id1), x2 = x(id2)\n";
  o += "# E = sum over pair rows of value * w - lambda * A\n";
  o += "# phenotype = A + E + residual; var_*, cov_*, h2, epistatic_share: realised over all samples\n";
  o += "# (divisor n) before NA masking; genetic_correlation: with the trait named in id1\n";
  o += "# shared: 1 for the QTL and pairs common to every trait (--trait-correlation)\n";
  o += "trait\tkind\tid1\tid2\tcenter1\tcenter2\tc0\tc1\tc2\tshared\tvalue\n";
  const auto scalar = [&](const std::string& trait, const char* kind, const std::string& id1, double value) {
    o += trait + '\t' + kind + '\t' + id1 + "\t.\t.\t.\t.\t.\t.\t.\t";
    put(o, value);
    o += '\n';
  };
  for (int t = 0; t < T; ++t) {
    const std::string name = "trait" + std::to_string(t + 1);
    const trait_truth& tr = d.truth[t];
    for (const qtl_effect& q : tr.qtl) {
      PMX_EXPECTS(q.variant >= 0 && q.variant < static_cast<int64_t>(variants.size()), "QTL variant in range");
      o += name + "\tqtl\t" + variants[q.variant].id + "\t.\t";
      put(o, q.center);
      o += "\t.\t.\t.\t.\t";
      o += q.shared ? "1\t" : "0\t";
      put(o, q.effect);
      o += '\n';
    }
    for (const epistatic_pair& pr : tr.pairs) {
      PMX_EXPECTS(pr.variant1 >= 0 && pr.variant2 < static_cast<int64_t>(variants.size()), "pair variants in range");
      o += name + "\tpair\t" + variants[pr.variant1].id + '\t' + variants[pr.variant2].id;
      for (double x : {pr.center1, pr.center2, pr.c0, pr.c1, pr.c2}) {
        o += '\t';
        put(o, x);
      }
      o += pr.shared ? "\t1\t" : "\t0\t";
      put(o, pr.effect);
      o += '\n';
    }
    const trait_variances& vc = tr.variances;
    scalar(name, "lambda", ".", tr.lambda);
    scalar(name, "var_additive", ".", vc.additive);
    scalar(name, "var_epistatic", ".", vc.epistatic);
    scalar(name, "cov_additive_epistatic", ".", vc.additive_epistatic_cov);
    scalar(name, "var_genetic", ".", vc.genetic);
    scalar(name, "var_residual", ".", vc.residual);
    scalar(name, "cov_genetic_residual", ".", vc.genetic_residual_cov);
    scalar(name, "var_phenotypic", ".", vc.phenotypic);
    scalar(name, "h2", ".", vc.h2());
    scalar(name, "epistatic_share", ".", vc.epistatic_share());
    for (int s = t + 1; s < T; ++s)
      scalar(name, "genetic_correlation", "trait" + std::to_string(s + 1),
             d.genetic_correlation[static_cast<size_t>(t * T + s)]);
    tf.write(o);
    o.clear();
  }
  if (!o.empty()) tf.write(o);
}

}  // namespace pmx::sim
