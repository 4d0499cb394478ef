// The statistics of the command line's freq, grm, ld, pca and gblup on a Genotypes, with numpy
// results: the same library entries the cmd_*.cpp files call, with the same options.
#include <cstring>

#include "genotypes.hpp"
#include "panoramix/allele_frequencies.hpp"
#include "panoramix/error.hpp"
#include "panoramix/gblup_analysis.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ld.hpp"
#include "panoramix/pca.hpp"
#include "python_log.hpp"

namespace pmx::python {
namespace {

py::tuple freq(const genotypes& g, py::object progress) {
  python_log log(std::move(progress));
  frequency_options fo;
  fo.nonfounders = g.nonfounders();
  fo.chromosomes = g.chromosomes();
  allele_frequencies f =
      with_progress(log, [&](python_log& l) { return compute_allele_frequencies(g.exec(), g.data(), fo, &l); });
  return py::make_tuple(owning_vector(std::move(f.a1)), owning_vector(std::move(f.observations)));
}

// The command line's `grm`: X/Y/MT dropped, the standardized or VanRaden matrix.
py::tuple grm(const genotypes& g, const std::string& method, bool pair_counts, py::object progress) {
  if (method != "standardized" && method != "vanraden")
    throw input_error("method must be 'standardized' or 'vanraden' (got '" + method + "')");
  python_log log(std::move(progress));
  grm_options o;
  o.method = method == "vanraden" ? grm_method::vanraden : grm_method::standardized;
  o.nonfounders = g.nonfounders();
  o.chromosomes = g.chromosomes();
  o.pair_counts = pair_counts;
  grm_result r = with_progress(log, [&](python_log& l) {
    const auto data = g.autosomal();
    if (data->n_variants() == 0) throw input_error(g.data().name() + ": no autosomal variants left");
    return compute_grm(g.exec(), *data, o, &l);
  });
  const auto n = static_cast<py::ssize_t>(r.n);
  py::object N = pair_counts ? py::object(owning_array(std::move(r.N), {n, n})) : py::none();
  return py::make_tuple(owning_array(std::move(r.G), {n, n}), N, r.n_variants);
}

// The command line's `ld --r2 square` / `--r square` over the kept variants.
py::array ld_square(const genotypes& g, bool r2, bool ld_nonfounders, int64_t memory_mb, py::object progress) {
  python_log log(std::move(progress));
  ld_options o;
  o.stat = r2 ? ld_statistic::r2 : ld_statistic::r;
  o.nonfounders = g.nonfounders();
  o.ld_nonfounders = ld_nonfounders;
  o.chromosomes = g.chromosomes();
  o.memory_mb = memory_mb;
  check_ld_options(o);
  const int64_t m = g.data().n_variants();
  py::array_t<double> out({m, m});
  double* R = out.mutable_data();
  with_progress(log, [&](python_log& l) {
    compute_ld_square(
        g.exec(), g.data(), o,
        [&](int64_t first, int64_t rows, const double* v) {
          std::memcpy(R + first * m, v, sizeof(double) * static_cast<size_t>(rows * m));
        },
        &l);
    return 0;
  });
  return out;
}

// The command line's `pca`: X/Y/MT dropped; vectors n × pcs (column-major, as the library gives them).
py::dict pca(const genotypes& g, int64_t pcs, bool exact, const std::string& missing, int64_t oversample,
             double tolerance, int max_iterations, uint64_t seed, py::object progress) {
  if (missing != "plink" && missing != "impute")
    throw input_error("missing must be 'plink' or 'impute' (got '" + missing + "')");
  pca_options o;
  o.pcs = pcs, o.exact = exact, o.oversample = oversample, o.tolerance = tolerance;
  o.max_iterations = max_iterations, o.seed = seed;
  o.missing = missing == "impute" ? pca_missing_mode::mean_impute : pca_missing_mode::plink;
  o.nonfounders = g.nonfounders();
  o.chromosomes = g.chromosomes();
  check_pca_options(o);
  python_log log(std::move(progress));
  pca_result r = with_progress(log, [&](python_log& l) { return compute_pca(g.exec(), *g.autosomal(), o, &l); });
  const auto n = static_cast<py::ssize_t>(r.n), m = static_cast<py::ssize_t>(r.pcs);
  py::dict d;
  d["values"] = owning_vector(std::move(r.values));
  d["vectors"] = owning_array(std::move(r.vectors), {n, m}, true);
  d["method"] = r.method, d["iterations"] = r.iterations, d["converged"] = r.converged;
  d["max_residual"] = r.max_residual, d["n_variants"] = r.n_variants;
  return d;
}

// The command line's `gblup --bfile` with the phenotype and covariates as arrays (one value per
// kept sample, NaN missing) instead of files.
py::dict gblup(const genotypes& g, std::vector<double> y, const std::string& trait,
               std::vector<std::vector<double>> covariates, std::vector<std::string> covariate_names,
               std::optional<double> h2, bool reml, const std::string& method, const std::string& evaluator, bool pev,
               bool grm_bend, std::optional<double> grm_add_diagonal, py::object progress) {
  if (method != "standardized" && method != "vanraden")
    throw input_error("method must be 'standardized' or 'vanraden' (got '" + method + "')");
  if (evaluator != "auto" && evaluator != "eigen" && evaluator != "cholesky")
    throw input_error("evaluator must be 'auto', 'eigen' or 'cholesky' (got '" + evaluator + "')");
  const int64_t n = g.data().n_samples();
  if (static_cast<int64_t>(y.size()) != n)
    throw input_error("y has " + std::to_string(y.size()) + " values; it needs one per kept sample (" +
                      std::to_string(n) + "; NaN for a missing one)");
  for (size_t j = 0; j < covariates.size(); ++j)
    if (static_cast<int64_t>(covariates[j].size()) != n)
      throw input_error("covariates: column " + std::to_string(j) + " has " + std::to_string(covariates[j].size()) +
                        " values; it needs one per kept sample (" + std::to_string(n) + ")");
  gblup_analysis_options a;
  a.bfile = g.data().name();
  a.method = method == "vanraden" ? grm_method::vanraden : grm_method::standardized;
  a.nonfounders = g.nonfounders();
  a.chromosomes = g.chromosomes();
  a.h2 = h2, a.reml = reml, a.pev = pev;
  a.evaluator = evaluator == "eigen"      ? gblup_evaluator_choice::eigen
                : evaluator == "cholesky" ? gblup_evaluator_choice::cholesky
                                          : gblup_evaluator_choice::automatic;
  a.grm_repair.bend = grm_bend, a.grm_repair.add_diagonal = grm_add_diagonal;
  check_gblup_options(a);
  gblup_records records;
  records.y = std::move(y), records.trait = trait;
  records.covariates = std::move(covariates), records.covariate_names = std::move(covariate_names);
  records.pheno_source = "y", records.covar_source = "covariates", records.covar_hint = "leave that column out";
  python_log log(std::move(progress));
  gblup_analysis r = with_progress(log, [&](python_log& l) {
    gblup_relationship rel = compute_gblup_relationship(g.exec(), a, *g.autosomal(), &l);
    return fit_gblup_analysis(g.exec(), a, std::move(rel), records, &l);
  });
  const reml_result& vc = r.fit.vc;
  py::dict d;
  d["h2"] = vc.h2, d["sigma2_g"] = vc.sigma2_g, d["sigma2_e"] = vc.sigma2_e, d["logl"] = vc.logl;
  d["se_h2"] = vc.se_h2, d["se_sigma2_g"] = vc.se_sigma2_g, d["se_sigma2_e"] = vc.se_sigma2_e;
  d["estimated"] = vc.estimated, d["boundary"] = vc.boundary, d["evaluations"] = vc.evaluations;
  d["fixed_names"] = r.fit.fixed_names;
  d["beta"] = owning_vector(std::move(r.fit.beta));
  d["se_beta"] = owning_vector(std::move(r.fit.se_beta));
  d["gebv"] = owning_vector(std::move(r.fit.gebv));
  d["pev"] = pev ? py::object(owning_vector(std::move(r.fit.pev))) : py::none();
  d["evaluator"] = r.fit.evaluator;
  d["log"] = log.lines();
  return d;
}

}  // namespace

void bind_statistics(py::module_& m) {
  m.def("freq", &freq, py::arg("g"), py::arg("progress") = py::none());
  m.def("grm", &grm, py::arg("g"), py::arg("method"), py::arg("pair_counts"), py::arg("progress") = py::none());
  m.def("ld_square", &ld_square, py::arg("g"), py::arg("r2"), py::arg("ld_nonfounders"), py::arg("memory_mb"),
        py::arg("progress") = py::none());
  m.def("pca", &pca, py::arg("g"), py::arg("pcs"), py::arg("exact"), py::arg("missing"), py::arg("oversample"),
        py::arg("tolerance"), py::arg("max_iterations"), py::arg("seed"), py::arg("progress") = py::none());
  m.def("gblup", &gblup, py::arg("g"), py::arg("y"), py::arg("trait"), py::arg("covariates"),
        py::arg("covariate_names"), py::arg("h2"), py::arg("reml"), py::arg("method"), py::arg("evaluator"),
        py::arg("pev"), py::arg("grm_bend"), py::arg("grm_add_diagonal"), py::arg("progress") = py::none());
}

}  // namespace pmx::python
