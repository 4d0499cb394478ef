// The genotypes a Python session works on: any genotype source the command line reads (.bed,
// .pgen, VCF/BCF, BGEN) with its sample and variant selection, the executor of device= and
// threads=, the chromosome set, and what the products Z·Λ and Zᵀ·Λ̃ need (the frequencies and
// scaling of Z, the genotypes prepared once as a gemm operand).
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "module.hpp"
#include "panoramix/chromosome_set.hpp"
#include "panoramix/executor.hpp"
#include "panoramix/genotype_centring.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/selected_genotypes.hpp"

namespace pmx::python {

class genotypes {
 public:
  /// The genotypes at `path` (a PLINK 1 prefix, PREFIX.bed, PREFIX.pgen, FILE.vcf[.gz], FILE.bcf
  /// or FILE.bgen), their samples kept by a --keep file and variants by an --extract file.
  genotypes(const std::string& path, const std::string& keep, const std::string& extract, const std::string& device,
            int threads, const chromosome_set& chromosomes, bool nonfounders);
  /// The kept samples and variants of `parent` where the flags (one per kept one) are not 0.
  genotypes(const genotypes& parent, const std::vector<uint8_t>& samples, const std::vector<uint8_t>& variants);

  const selected_genotypes& data() const { return *data_; }
  const executor& exec() const { return exec_; }
  const chromosome_set& chromosomes() const { return chromosomes_; }
  bool nonfounders() const { return nonfounders_; }
  /// The kept variants without those on X, Y and MT (as `grm` and `pca` drop them); `keep_x`
  /// keeps X (association tests it).
  std::unique_ptr<selected_genotypes> autosomal(bool keep_x = false) const;

  /// Frequencies and scaling of Z; p empty: the founders' A1 frequencies (computed when first needed).
  void set_centring(std::vector<double> p, genotype_scaling scaling, std::vector<double> user_scale);
  std::vector<double> frequencies();
  std::vector<double> scale();  ///< s_j as the products use it
  /// out = Z·in (transposed: Zᵀ·in); `in` has n_variants rows (transposed: n_samples).
  py::array multiply(const py::array& in, bool transposed);

 private:
  void prepare();  ///< frequencies, centring and operand (holds mutex_)

  std::shared_ptr<const genotype_source> all_;  // shared by subsets
  std::unique_ptr<selected_genotypes> data_;
  executor exec_;
  chromosome_set chromosomes_;
  bool nonfounders_ = false;

  std::mutex mutex_;  // products and centring: one call at a time per object
  std::vector<double> p_;  // empty: not yet computed
  genotype_scaling scaling_ = genotype_scaling::none;
  std::vector<double> user_scale_;
  std::optional<genotype_centring> centring_;
  packed_genotypes copy_;  // the kept genotypes when they are not a view of a mapped .bed
  std::unique_ptr<gemm_operand> operand_;
};

}  // namespace pmx::python
