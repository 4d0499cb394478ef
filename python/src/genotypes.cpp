// Opening genotypes, selecting samples and variants, and the genotype × dense products.
#include "genotypes.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "panoramix/allele_frequencies.hpp"
#include "panoramix/bgen_files.hpp"
#include "panoramix/error.hpp"
#include "panoramix/pgen_files.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/tuning.hpp"
#include "panoramix/vcf_files.hpp"

namespace pmx::python {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The reader of `path` by its name, as the command line's --predict finds a TEST set: FILE.vcf[.gz|.bgz],
// FILE.bcf, FILE.bgen, PREFIX.pgen, PREFIX.bed or a PREFIX of a .bed (else .pgen) fileset.
std::unique_ptr<genotype_source> open_source(const std::string& path, const chromosome_set& chromosomes) {
  vcf_options v;
  v.chromosomes = chromosomes;
  if (ends_with(path, ".vcf") || ends_with(path, ".vcf.gz") || ends_with(path, ".vcf.bgz") || ends_with(path, ".bcf"))
    return std::make_unique<vcf_genotypes>(path, v);
  if (ends_with(path, ".bgen")) {
    bgen_options b;
    b.ids = v, b.chromosomes = chromosomes;
    return std::make_unique<bgen_genotypes>(path, b);
  }
  pgen_options p;
  p.chromosomes = chromosomes;
  if (ends_with(path, ".pgen")) return std::make_unique<pgen_genotypes>(path.substr(0, path.size() - 5), p);
  const std::string prefix = ends_with(path, ".bed") ? path.substr(0, path.size() - 4) : path;
  if (!std::filesystem::exists(prefix + ".bed") && std::filesystem::exists(prefix + ".pgen"))
    return std::make_unique<pgen_genotypes>(prefix, p);
  return std::make_unique<plink_fileset>(prefix);
}

// Flags over the kept ones of `data` as flags over all of its source's.
std::vector<uint8_t> over_all(const std::vector<int64_t>& kept, int64_t total, const std::vector<uint8_t>& flags,
                              const char* what) {
  if (flags.size() != kept.size())
    throw input_error(std::string(what) + ": " + std::to_string(flags.size()) + " flags for " +
                      std::to_string(kept.size()) + " kept " + what);
  std::vector<uint8_t> all(static_cast<size_t>(total), 0);
  for (size_t i = 0; i < kept.size(); ++i) all[kept[i]] = flags[i];
  return all;
}

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

genotypes::genotypes(const std::string& path, const std::string& keep, const std::string& extract,
                     const std::string& device, int threads, const chromosome_set& chromosomes, bool nonfounders)
    : exec_(parse_backend(device), threads, tuning::from_environment()),
      chromosomes_(chromosomes),
      nonfounders_(nonfounders) {
  if (threads < 0 || threads > 4096) throw input_error("threads must be in [0, 4096] (0: all cores); got " + str(threads));
  all_ = open_source(path, chromosomes);
  data_ = std::make_unique<selected_genotypes>(borrow(*all_));
  if (!keep.empty()) data_->keep_samples(keep);
  if (!extract.empty()) data_->extract_variants(extract);
}

genotypes::genotypes(const genotypes& parent, const std::vector<uint8_t>& samples,
                     const std::vector<uint8_t>& variants)
    : all_(parent.all_),
      exec_(parent.exec_),
      chromosomes_(parent.chromosomes_),
      nonfounders_(parent.nonfounders_) {
  const selected_genotypes& p = *parent.data_;
  data_ = std::make_unique<selected_genotypes>(borrow(*all_));
  const auto s = over_all(p.sample_index(), all_->n_samples(), samples, "samples");
  const auto v = over_all(p.variant_index(), all_->n_variants(), variants, "variants");
  if (std::none_of(s.begin(), s.end(), [](uint8_t f) { return f; })) throw input_error("the selection keeps no sample");
  if (std::none_of(v.begin(), v.end(), [](uint8_t f) { return f; })) throw input_error("the selection keeps no variant");
  data_->keep_samples_where(s);
  data_->keep_variants_where(v);
}

std::unique_ptr<selected_genotypes> genotypes::autosomal(bool keep_x) const {
  auto kept = std::make_unique<selected_genotypes>(borrow(*data_));
  kept->filter_variants([&](const variant_record& v) {
    return chromosomes_.diploid(v.chrom) || (keep_x && chromosomes_.classify(v.chrom) == chromosome_set::kind::x);
  });
  return kept;
}

void genotypes::set_centring(std::vector<double> p, genotype_scaling scaling, std::vector<double> user_scale) {
  const int64_t k = data_->n_variants();
  if (!p.empty() && static_cast<int64_t>(p.size()) != k)
    throw input_error("frequencies: " + str(p.size()) + " values for " + str(k) + " variants");
  for (size_t j = 0; j < p.size(); ++j)
    if (!(std::isnan(p[j]) || (p[j] >= 0 && p[j] <= 1)))
      throw input_error("frequencies[" + str(j) + "] = " + std::to_string(p[j]) +
                        " is not a frequency (must be in [0, 1], or NaN for undefined)");
  if (scaling == genotype_scaling::user) {
    if (static_cast<int64_t>(user_scale.size()) != k)
      throw input_error("scaling: " + str(user_scale.size()) + " values for " + str(k) + " variants");
    for (size_t j = 0; j < user_scale.size(); ++j)
      if (!std::isfinite(user_scale[j]))
        throw input_error("scaling[" + str(j) + "] = " + std::to_string(user_scale[j]) + " is not finite");
  }
  std::lock_guard lock(mutex_);
  if (!p.empty()) p_ = std::move(p);
  scaling_ = scaling;
  user_scale_ = std::move(user_scale);
  centring_.reset();
}

void genotypes::prepare() {
  if (p_.empty()) {
    frequency_options fo;
    fo.nonfounders = nonfounders_;
    fo.chromosomes = chromosomes_;
    p_ = compute_allele_frequencies(exec_, *data_, fo, nullptr).a1;
  }
  if (!centring_) centring_ = make_genotype_centring(p_, scaling_, user_scale_);
  if (!operand_) operand_ = std::make_unique<gemm_operand>(exec_, data_->block(0, data_->n_variants(), copy_));
}

std::vector<double> genotypes::frequencies() {
  std::lock_guard lock(mutex_);
  prepare();
  return p_;
}

std::vector<double> genotypes::scale() {
  std::lock_guard lock(mutex_);
  prepare();
  if (centring_->scale.empty()) return std::vector<double>(p_.size(), 1.0);
  return centring_->scale;
}

py::array genotypes::multiply(const py::array& in, bool transposed) {
  const int64_t n = data_->n_samples(), k = data_->n_variants();
  const int64_t rows = transposed ? n : k, out_rows = transposed ? k : n;
  const char* name = transposed ? "g.T @ L: L" : "g @ L: L";
  const std::string rows_are = transposed ? "samples" : "variants";
  if (in.ndim() != 1 && in.ndim() != 2)
    throw input_error(std::string(name) + " must be a vector or a matrix (got " + str(in.ndim()) + " dimensions)");
  if (in.shape(0) != rows)
    throw input_error(std::string(name) + " has " + str(in.shape(0)) + " rows; it needs one per kept " +
                      rows_are.substr(0, rows_are.size() - 1) + " (" + str(rows) + ")");
  const int64_t l = in.ndim() == 2 ? in.shape(1) : 1;
  // Zero-copy when the rows are float64 with unit stride between columns (C order, or a column
  // slice of it); else one C-ordered copy. Strides are read from the array actually used.
  py::array_t<double> a = py::array_t<double>::ensure(in);
  if (!a) throw input_error(std::string(name) + " must hold numbers (float64)");
  const auto unit = static_cast<py::ssize_t>(sizeof(double));
  const bool rows_contiguous =
      a.ndim() == 1 ? a.strides(0) == unit
                    : a.strides(1) == unit && a.strides(0) > 0 && a.strides(0) % unit == 0 && a.strides(0) / unit >= l;
  if (!rows_contiguous) a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(in);
  const double* x = a.data();
  const int64_t ld = a.ndim() == 1 ? 1 : a.strides(0) / unit;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < l; ++c)
      if (!std::isfinite(x[r * ld + c]))
        throw input_error(std::string(name) + "[" + str(r) + (in.ndim() == 2 ? ", " + str(c) : "") +
                          "] is not finite: the products need finite inputs");
  std::vector<py::ssize_t> shape{out_rows};
  if (in.ndim() == 2) shape.push_back(l);
  py::array_t<double> out(shape);
  double* y = out.mutable_data();
  without_gil([&] {
    std::lock_guard lock(mutex_);
    prepare();
    if (l == 0) return 0;
    if (transposed) gemm_transposed(*operand_, centring_->op(), l, x, ld, 0.0, y, l);
    else gemm(*operand_, centring_->op(), l, x, ld, 0.0, y, l);
    return 0;
  });
  return out;
}

}  // namespace pmx::python
