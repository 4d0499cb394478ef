// The records part of the mixed model equations, by iteration on data.
//
// Record r of animal a(r) with observed traits o(r): residual precision R_r⁻¹ = (R0[o,o])⁻¹
// embedded in t × t (zeros elsewhere: a missing trait contributes nothing). Design of trait k:
// intercept_k + Σ_classes effect_{c,k}[level] + Σ_covariates b_{v,k}(x_v − x̄_{v,k}), x̄_{v,k} the
// mean over records with trait k (centring makes XᵀR⁻¹X better conditioned; estimates() reports
// b and the intercept on the input scale: intercept − Σ_v b_v x̄_v).
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "panoramix/error.hpp"
#include "single_step_terms.hpp"

namespace pmx::detail {
namespace {

// Inverse of a small SPD matrix (Gauss-Jordan; t ≤ 32, already checked positive definite).
std::vector<double> small_inverse(std::vector<double> a, int m) {
  std::vector<double> inv(m * m, 0.0);
  for (int i = 0; i < m; ++i) inv[i * m + i] = 1;
  for (int c = 0; c < m; ++c) {
    int piv = c;
    for (int r = c + 1; r < m; ++r)
      if (std::abs(a[r * m + c]) > std::abs(a[piv * m + c])) piv = r;
    for (int j = 0; j < m; ++j) {
      std::swap(a[c * m + j], a[piv * m + j]);
      std::swap(inv[c * m + j], inv[piv * m + j]);
    }
    const double d = a[c * m + c];
    if (d == 0) throw numeric_error("singular covariance submatrix");
    for (int j = 0; j < m; ++j) {
      a[c * m + j] /= d;
      inv[c * m + j] /= d;
    }
    for (int r = 0; r < m; ++r) {
      if (r == c) continue;
      const double f = a[r * m + c];
      if (f == 0) continue;
      for (int j = 0; j < m; ++j) {
        a[r * m + j] -= f * a[c * m + j];
        inv[r * m + j] -= f * inv[c * m + j];
      }
    }
  }
  return inv;
}

// Levels sorted numerically when every one is a number, else as text.
std::vector<std::string> sorted_levels(const std::vector<std::string>& values) {
  // The distinct values first (a hash set), then only those sorted: 9.6 M records have ~13,000 herds.
  const std::unordered_set<std::string_view> distinct(values.begin(), values.end());
  std::vector<std::string> lv(distinct.begin(), distinct.end());
  std::sort(lv.begin(), lv.end());
  std::vector<double> num(lv.size());
  bool numeric = true;
  for (size_t i = 0; i < lv.size() && numeric; ++i) {
    const auto r = std::from_chars(lv[i].data(), lv[i].data() + lv[i].size(), num[i]);
    numeric = r.ec == std::errc() && r.ptr == lv[i].data() + lv[i].size();
  }
  if (numeric) {
    std::vector<size_t> o(lv.size());
    std::iota(o.begin(), o.end(), 0);
    std::stable_sort(o.begin(), o.end(), [&](size_t a, size_t b) { return num[a] < num[b]; });
    std::vector<std::string> s;
    for (size_t i : o) s.push_back(lv[i]);
    lv = std::move(s);
  }
  return lv;
}

}  // namespace

record_equations::record_equations(const pedigree& ped, const breeding_records& rec,
                                   const variance_components& vc, int threads)
    : t_(rec.traits_count()), n_(ped.size()), records_(rec.size()),
      threads_(threads > 0 ? threads : omp_get_max_threads()) {
  const int t = t_;
  if (t < 1 || t > 30) throw input_error("between 1 and 30 traits are supported, " + std::to_string(t) + " given");
  if (vc.t != t) throw input_error("variance components are for " + std::to_string(vc.t) + " traits, records for " + std::to_string(t));
  classes_ = static_cast<int>(rec.classes.size());
  covariates_ = static_cast<int>(rec.covariates.size());
  class_names_ = rec.classes;
  cov_names_ = rec.covariates;
  trait_names_ = rec.traits;
  // ---- records sorted by animal (stable: file order within an animal)
  std::vector<int64_t> animal_of(records_);
  for (int64_t r = 0; r < records_; ++r) {
    const int64_t a = ped.find(rec.id[r]);
    if (a == pedigree::unknown)
      throw input_error(rec.path + ":" + std::to_string(rec.line[r]) + ": animal '" + rec.id[r] +
                        "' has a record but is not in the pedigree");
    animal_of[r] = a;
  }
  std::vector<int64_t> order(records_);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return animal_of[a] < animal_of[b]; });
  animal_.resize(records_);
  pattern_.resize(records_);
  y_.assign(records_ * t, 0.0);
  level_.resize(records_ * classes_);
  cov_.resize(records_ * covariates_);
  // ---- class levels
  level_names_.resize(classes_);
  for (int c = 0; c < classes_; ++c) level_names_[c] = sorted_levels(rec.level[c]);
  std::vector<std::unordered_map<std::string_view, int32_t>> level_index(classes_);
  for (int c = 0; c < classes_; ++c)
    for (size_t l = 0; l < level_names_[c].size(); ++l) level_index[c][level_names_[c][l]] = static_cast<int32_t>(l);
  std::vector<int64_t> trait_records(t, 0);
  for (int64_t i = 0; i < records_; ++i) {
    const int64_t r = order[i];
    animal_[i] = animal_of[r];
    uint32_t pat = 0;
    for (int k = 0; k < t; ++k) {
      const double v = rec.y[r * t + k];
      if (!std::isnan(v)) {
        pat |= 1u << k;
        y_[i * t + k] = v;
        ++trait_records[k];
      }
    }
    pattern_[i] = pat;
    for (int c = 0; c < classes_; ++c) level_[i * classes_ + c] = level_index[c].at(rec.level[c][r]);
    for (int v = 0; v < covariates_; ++v) cov_[i * covariates_ + v] = rec.covariate[v][r];
  }
  for (int k = 0; k < t; ++k)
    if (trait_records[k] == 0) throw input_error(rec.path + ": trait '" + rec.traits[k] + "' has no record");
  // ---- fixed-effect columns, trait by trait: intercept, classes (reference and empty levels
  // dropped), covariates
  class_col_.assign(classes_, {});
  reference_.assign(classes_ * t, -1);
  cov_col_.assign(covariates_ * t, -1);
  cov_mean_.assign(covariates_ * t, 0.0);
  intercept_col_.assign(t, -1);
  for (int k = 0; k < t; ++k) {
    intercept_col_[k] = p_++;
    for (int c = 0; c < classes_; ++c) {
      const int32_t L = static_cast<int32_t>(level_names_[c].size());
      std::vector<int64_t> count(L, 0);
      for (int64_t i = 0; i < records_; ++i)
        if (pattern_[i] >> k & 1) ++count[level_[i * classes_ + c]];
      class_col_[c].resize(int64_t{t} * L, -1);
      bool reference_seen = false;
      int64_t dropped = 0;
      std::string dropped_names;
      for (int32_t l = 0; l < L; ++l) {
        if (count[l] == 0) {
          if (++dropped <= 5) dropped_names += (dropped > 1 ? ", " : "") + level_names_[c][l];
          continue;
        }
        if (!reference_seen) {
          reference_seen = true;  // the constraint: first level with a record of trait k = 0
          reference_[c * t + k] = l;
          continue;
        }
        class_col_[c][int64_t{k} * L + l] = p_++;
      }
      if (dropped > 0)
        notes_.push_back("class '" + class_names_[c] + "': " + std::to_string(dropped) +
                         " level(s) without a record of trait '" + trait_names_[k] +
                         "' dropped for that trait (" + dropped_names + (dropped > 5 ? ", ..." : "") + ")");
    }
    for (int v = 0; v < covariates_; ++v) {
      double s = 0;
      for (int64_t i = 0; i < records_; ++i)
        if (pattern_[i] >> k & 1) s += cov_[i * covariates_ + v];
      cov_mean_[v * t + k] = s / static_cast<double>(trait_records[k]);
      cov_col_[v * t + k] = p_++;
    }
  }
  // ---- residual precision per pattern of observed traits
  std::map<uint32_t, int32_t> pattern_id;
  pattern_index_.resize(records_);
  for (int64_t i = 0; i < records_; ++i) {
    auto [it, fresh] = pattern_id.try_emplace(pattern_[i], static_cast<int32_t>(pattern_id.size()));
    if (fresh) {
      std::vector<int> obs;
      for (int k = 0; k < t; ++k)
        if (pattern_[i] >> k & 1) obs.push_back(k);
      const int m = static_cast<int>(obs.size());
      std::vector<double> sub(m * m);
      for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) sub[a * m + b] = vc.residual[obs[a] * t + obs[b]];
      const std::vector<double> inv = small_inverse(sub, m);
      rinv_.resize(rinv_.size() + t * t, 0.0);
      double* R = rinv_.data() + rinv_.size() - t * t;
      for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) R[obs[a] * t + obs[b]] = inv[a * m + b];
    }
    pattern_index_[i] = it->second;
  }
  // ---- the design by slots (record r, trait k), in for_record_columns' order, for the products
  if (p_ > std::numeric_limits<int32_t>::max())
    throw input_error(std::to_string(p_) + " fixed effects: more than 2^31 are not supported");
  slot_start_.reserve(records_ * t + 1);
  slot_start_.push_back(0);
  for (int64_t r = 0; r < records_; ++r)
    for (int k = 0; k < t; ++k) {
      if (pattern_[r] >> k & 1)
        for_record_columns(r, k, [&](int64_t col, double x) {
          design_col_.push_back(static_cast<int32_t>(col));
          design_val_.push_back(x);
        });
      slot_start_.push_back(static_cast<int64_t>(design_col_.size()));
    }
  host_op_ = std::make_unique<record_operand>(executor(backend::cpu, threads_), design());
}

// Calls f(column, x) for each fixed-effect column of trait k in record r (x its design value).
template <class F>
void record_equations::for_record_columns(int64_t r, int k, F&& f) const {
  f(intercept_col_[k], 1.0);
  for (int c = 0; c < classes_; ++c) {
    const int64_t L = static_cast<int64_t>(level_names_[c].size());
    const int64_t col = class_col_[c][k * L + level_[r * classes_ + c]];
    if (col >= 0) f(col, 1.0);
  }
  for (int v = 0; v < covariates_; ++v)
    f(cov_col_[v * t_ + k], cov_[r * covariates_ + v] - cov_mean_[v * t_ + k]);
}

record_design_view record_equations::design() const {
  record_design_view v;
  v.records = records_;
  v.t = t_;
  v.fixed = p_;
  v.animals = n_;
  v.animal = animal_.data();
  v.block = pattern_index_.data();
  v.rinv = rinv_.data();
  v.blocks = static_cast<int64_t>(rinv_.size()) / (int64_t{t_} * t_);
  v.slot_start = slot_start_.data();
  v.column = design_col_.data();
  v.value = design_val_.data();
  return v;
}

void record_equations::rhs(double* b_beta, double* b_a) const {
  const int t = t_;
  std::fill(b_beta, b_beta + p_, 0.0);
  std::fill(b_a, b_a + n_ * t, 0.0);
  for (int64_t r = 0; r < records_; ++r) {
    const uint32_t pat = pattern_[r];
    const double* R = rinv_.data() + int64_t{pattern_index_[r]} * t * t;
    for (int k = 0; k < t; ++k) {
      if (!(pat >> k & 1)) continue;
      double s = 0;
      for (int l = 0; l < t; ++l)
        if (pat >> l & 1) s += R[k * t + l] * y_[r * t + l];
      b_a[animal_[r] * t + k] += s;
      for_record_columns(r, k, [&](int64_t col, double x) { b_beta[col] += x * s; });
    }
  }
}

std::vector<double> record_equations::fixed_block() const {
  const int t = t_;
  std::vector<double> M(p_ * p_, 0.0);
  for (int64_t r = 0; r < records_; ++r) {
    const uint32_t pat = pattern_[r];
    const double* R = rinv_.data() + int64_t{pattern_index_[r]} * t * t;
    for (int k = 0; k < t; ++k) {
      if (!(pat >> k & 1)) continue;
      for (int l = 0; l < t; ++l) {
        if (!(pat >> l & 1)) continue;
        const double rkl = R[k * t + l];
        for_record_columns(r, k, [&](int64_t ci, double xi) {
          for_record_columns(r, l, [&](int64_t cj, double xj) { M[ci * p_ + cj] += xi * rkl * xj; });
        });
      }
    }
  }
  return M;
}

std::vector<double> record_equations::fixed_diagonal() const {
  // A record's columns for trait k are distinct and belong to trait k alone, so only the k = l
  // terms of fixed_block() with the same column reach the diagonal.
  const int t = t_;
  std::vector<double> d(p_, 0.0);
  for (int64_t r = 0; r < records_; ++r) {
    const uint32_t pat = pattern_[r];
    const double* R = rinv_.data() + int64_t{pattern_index_[r]} * t * t;
    for (int k = 0; k < t; ++k) {
      if (!(pat >> k & 1)) continue;
      const double rkk = R[k * t + k];
      for_record_columns(r, k, [&](int64_t c, double x) { d[c] += x * rkk * x; });
    }
  }
  return d;
}

std::vector<double> record_equations::animal_blocks() const {
  const int t = t_;
  std::vector<double> B(n_ * t * t, 0.0);
  for (int64_t r = 0; r < records_; ++r) {
    const double* R = rinv_.data() + int64_t{pattern_index_[r]} * t * t;
    double* b = B.data() + animal_[r] * t * t;
    for (int i = 0; i < t * t; ++i) b[i] += R[i];
  }
  return B;
}

std::vector<fixed_effect_estimate> record_equations::estimates(const double* beta) const {
  std::vector<fixed_effect_estimate> out;
  for (int k = 0; k < t_; ++k) {
    double mu = beta[intercept_col_[k]];
    for (int v = 0; v < covariates_; ++v) mu -= beta[cov_col_[v * t_ + k]] * cov_mean_[v * t_ + k];
    out.push_back({"intercept", "", k, mu, false});
    for (int c = 0; c < classes_; ++c) {
      const int64_t L = static_cast<int64_t>(level_names_[c].size());
      for (int64_t l = 0; l < L; ++l) {
        const int64_t col = class_col_[c][k * L + l];
        if (col >= 0)
          out.push_back({class_names_[c], level_names_[c][l], k, beta[col], false});
        else if (l == reference_[c * t_ + k])
          out.push_back({class_names_[c], level_names_[c][l], k, 0.0, true});
      }
    }
    for (int v = 0; v < covariates_; ++v)
      out.push_back({cov_names_[v], "", k, beta[cov_col_[v * t_ + k]], false});
  }
  return out;
}

}  // namespace pmx::detail
