#include "panoramix/result_files.hpp"

#include <cmath>

#include "panoramix/error.hpp"

namespace pmx {
namespace {
// PLINK writes a missing allele code ("0" in .bim) as ".".
const char* allele(const std::string& a) { return a == "0" ? "." : a.c_str(); }

// Six significant digits as PLINK 2 prints them: a value within rounding noise of a decimal
// tie (e.g. 273/1920 = 0.1421875, not exact in binary) is rounded half-to-even on the decimal
// digit, where printf would round the binary value (0.142187 here, PLINK 0.142188).
void print_g6(output_file& f, double x) {
  const double e = std::floor(std::log10(std::fabs(x)));
  const double scale = std::pow(10.0, e - 5);
  const double scaled = std::fabs(x) / scale;  // in [1e5, 1e6)
  const double whole = std::floor(scaled);
  if (std::fabs(scaled - whole - 0.5) < 1e-7) {
    const double even = std::fmod(whole, 2.0) == 0 ? whole : whole + 1;
    f.printf("%.6g", std::copysign(even * scale, x));
    return;
  }
  f.printf("%.6g", x);
}
}  // namespace

void write_afreq(output_group& out, const std::string& prefix, const genotype_source& data,
                 const allele_frequencies& f, const chromosome_set& chroms) {
  auto& file = out.add(prefix + ".afreq");
  file.write("#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT\n");
  for (int64_t j = 0; j < data.n_variants(); ++j) {
    const auto& v = data.variant(j);
    const double p = f.a1[j];
    file.printf("%s\t%s\t%s\t%s\t", chroms.canonical(v.chrom).c_str(), v.id.c_str(), allele(v.a2), allele(v.a1));
    if (std::isnan(p)) file.write("nan");
    else if (p == 0) file.write("0");
    else print_g6(file, p);
    file.printf("\t%lld\n", static_cast<long long>(f.observations[j]));
  }
}

namespace {

void write_ids(output_file& file, const genotype_source& data, bool header) {
  if (header) file.write("#FID\tIID\n");
  for (int64_t i = 0; i < data.n_samples(); ++i)
    file.printf("%s\t%s\n", data.sample(i).fid.c_str(), data.sample(i).iid.c_str());
}
}  // namespace

void write_grm(output_group& out, const std::string& prefix, const genotype_source& data,
               const grm_result& g, grm_format format) {
  const int64_t n = g.n;
  PMX_EXPECTS(n == data.n_samples(), "GRM and genotypes disagree on the sample count");
  switch (format) {
    case grm_format::rel_bin: {
      out.add(prefix + ".rel.bin").write(g.G.data(), g.G.size() * sizeof(double));
      write_ids(out.add(prefix + ".rel.id"), data, true);
      break;
    }
    case grm_format::rel: {
      auto& f = out.add(prefix + ".rel");
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j) f.printf(j < i ? "%.6g\t" : "%.6g\n", g.G[i * n + j]);
      write_ids(out.add(prefix + ".rel.id"), data, true);
      break;
    }
    case grm_format::gcta: {
      PMX_EXPECTS(!g.N.empty(), "GCTA output needs the pair counts");
      std::vector<float> row(static_cast<size_t>(n));
      auto& fg = out.add(prefix + ".grm.bin");
      auto& fn = out.add(prefix + ".grm.N.bin");
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j <= i; ++j) row[j] = static_cast<float>(g.G[i * n + j]);
        fg.write(row.data(), static_cast<size_t>(i + 1) * sizeof(float));
        for (int64_t j = 0; j <= i; ++j) row[j] = static_cast<float>(g.N[i * n + j]);
        fn.write(row.data(), static_cast<size_t>(i + 1) * sizeof(float));
      }
      write_ids(out.add(prefix + ".grm.id"), data, false);
      break;
    }
  }
}

}  // namespace pmx
