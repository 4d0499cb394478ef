// Records of a training/TEST split shared by krr and rr (training_records.hpp). Moved from
// krr_analysis.cpp unchanged in behaviour (messages included).
#include "stats/kernel/training_records.hpp"

#include <cmath>
#include <unordered_map>

#include "panoramix/concatenated_samples.hpp"
#include "core/number_text.hpp"
#include "panoramix/error.hpp"
#include "panoramix/selected_genotypes.hpp"

namespace pmx::detail {

std::vector<std::string> sample_ids(const genotype_source& s, bool fid) {
  std::vector<std::string> v;
  for (int64_t i = 0; i < s.n_samples(); ++i) v.push_back(fid ? s.sample(i).fid : s.sample(i).iid);
  return v;
}

std::unique_ptr<genotype_source> open_test_genotypes(
    const std::string& path, const std::function<std::unique_ptr<genotype_source>(const std::string&)>& open,
    const genotype_source& train) {
  auto test = std::make_unique<selected_genotypes>(open ? open(path) : std::make_unique<plink_fileset>(path));
  std::unordered_map<std::string, int64_t> wanted;
  for (int64_t j = 0; j < train.n_variants(); ++j) wanted.emplace(train.variant(j).id, j);
  test->filter_variants([&](const variant_record& v) { return wanted.count(v.id) > 0; });
  check_same_variants(train, *test);
  return test;
}

matched_columns match_columns(const phenotype_table& t, const std::vector<std::string>& wanted, bool all,
                              const std::string& what, const std::vector<std::string>& fid,
                              const std::vector<std::string>& iid) {
  std::vector<int64_t> cols;
  if (all)
    for (int64_t j = 0; j < static_cast<int64_t>(t.names.size()); ++j) cols.push_back(j);
  for (const auto& name : wanted) cols.push_back(t.column(name, what));
  matched_columns m;
  for (int64_t j : cols) {
    m.names.push_back(t.names[j]);
    m.values.push_back(match_column(t, j, fid, iid, nullptr));
  }
  return m;
}

training_records read_training_records(const record_files& files, const std::vector<std::string>& fid,
                                       const std::vector<std::string>& iid, analysis_log& log) {
  training_records r;
  const int64_t n_train = static_cast<int64_t>(fid.size());
  r.pheno = read_phenotype_table(files.pheno, "--pheno");
  r.phenotypes = match_columns(r.pheno, files.pheno_names, files.all_pheno, "--pheno", fid, iid);
  if (r.phenotypes.values.empty()) throw input_error("--pheno " + files.pheno + ": no phenotype column");
  if (!files.covar.empty()) {
    r.covar = std::make_unique<phenotype_table>(read_phenotype_table(files.covar, "--covar"));
    r.covariates = match_columns(*r.covar, files.covar_names, files.covar_names.empty(), "--covar", fid, iid);
  }
  for (int64_t i = 0; i < n_train; ++i) {
    bool ok = true;
    for (const auto& v : r.phenotypes.values) ok = ok && !std::isnan(v[i]);
    for (const auto& v : r.covariates.values) ok = ok && !std::isnan(v[i]);
    if (ok) r.fitted.push_back(i);
  }
  const int64_t n = r.n(), t = r.traits();
  log.message("--pheno " + files.pheno + ": " + std::to_string(t) + " phenotype(s); " + std::to_string(n) + " of the " +
              std::to_string(n_train) + " training samples have every phenotype" +
              (r.covariates.values.empty() ? "" : " and covariate") + " and are fitted");
  if (n < 2) throw input_error("--pheno " + files.pheno + ": fewer than 2 training samples have every phenotype");
  r.Y = matrix_buffer<double>(static_cast<size_t>(n * t));
  for (int64_t c = 0; c < t; ++c) {
    double mean = 0, ss = 0;
    for (int64_t i : r.fitted) mean += r.phenotypes.values[c][i];
    mean /= double(n);
    for (int64_t k = 0; k < n; ++k) {
      r.Y[c * n + k] = r.phenotypes.values[c][r.fitted[k]] - mean;
      ss += r.Y[c * n + k] * r.Y[c * n + k];
    }
    if (!(ss > 0))
      throw input_error("--pheno " + files.pheno + ": phenotype '" + r.phenotypes.names[c] +
                        "' has no variance among the " + std::to_string(n) + " fitted training samples");
    r.means.push_back(mean);
  }
  return r;
}

covariate_scaling scale_covariates(const training_records& r, const std::string& covar_path) {
  covariate_scaling s;
  const int64_t n = r.n();
  for (int64_t k = 0; k < r.n_covariates(); ++k) {
    const std::vector<double>& x = r.covariates.values[k];
    double mean = 0, ss = 0;
    for (int64_t i : r.fitted) mean += x[i];
    mean /= double(n);
    for (int64_t i : r.fitted) ss += (x[i] - mean) * (x[i] - mean);
    const double sd = std::sqrt(ss / double(n - 1));
    if (!(sd > 0))
      throw input_error("--covar " + covar_path + ": covariate '" + r.covariates.names[k] +
                        "' has no variance among the fitted samples");
    s.mean.push_back(mean), s.sd.push_back(sd);
  }
  return s;
}

std::string describe_solve(const kernel_ridge_solution& s, const kernel_ridge_options& opt) {
  std::string how = std::string(solve_precision_name(s.used)) + " Cholesky";
  if (s.used != solve_precision::fp64) {
    how += " in tiles of " + std::to_string(opt.tile) + " (off-diagonal tiles: " +
           std::to_string(s.map.count(tile_precision::fp32)) + " fp32, " + std::to_string(s.map.count(tile_precision::fp16)) +
           " fp16, " + std::to_string(s.map.count(tile_precision::bf16)) + " bf16, " +
           std::to_string(s.map.count(tile_precision::fp8)) + " fp8), " + std::to_string(s.refinements) +
           " refinement step(s)" +
           (s.gmres_steps ? " with " + std::to_string(s.gmres_steps) + " GMRES-IR Krylov steps" : std::string());
  }
  return how;
}

std::vector<prediction_accuracy> measure_test_predictions(const phenotype_table& pheno, const std::string& pheno_path,
                                                          const std::vector<std::string>& traits,
                                                          const std::vector<std::string>& fid,
                                                          const std::vector<std::string>& iid,
                                                          const double* predictions, analysis_log& log) {
  matched_columns obs;
  try {
    obs = match_columns(pheno, traits, false, "--pheno", fid, iid);
  } catch (const input_error&) {  // no TEST sample in the phenotype file: predictions only
    log.message("No TEST sample has a phenotype in " + pheno_path + ": no prediction accuracy");
    return {};
  }
  const auto n = static_cast<int64_t>(fid.size());
  std::vector<prediction_accuracy> out;
  for (size_t c = 0; c < traits.size(); ++c) {
    const std::vector<double> pred(predictions + static_cast<int64_t>(c) * n, predictions + static_cast<int64_t>(c + 1) * n);
    out.push_back(measure_prediction(obs.values[c], pred));
    const auto& a = out.back();
    if (a.n > 0)
      log.message("TEST '" + traits[c] + "': " + std::to_string(a.n) + " samples with a phenotype and a prediction, MSPE " +
                  number_text(a.mspe, 6, "NA") + ", Pearson r " + number_text(a.pearson, 6, "NA"));
  }
  return out;
}

}  // namespace pmx::detail
