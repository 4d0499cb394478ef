// PLINK 1 binary filesets: .fam (samples), .bim (variants), .bed (2-bit genotypes).
// Readers validate everything and throw pmx::input_error naming file, line and problem.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "panoramix/genotype_view.hpp"
#include "panoramix/packed_genotypes.hpp"

namespace pmx {

struct sample_record {
  std::string fid, iid, father, mother;
  int sex = 0;  ///< 1 male, 2 female, 0 unknown
  std::string phenotype;
  bool founder() const { return father == "0" && mother == "0"; }
};

struct variant_record {
  std::string chrom, id;
  double cm = 0;
  int64_t pos = 0;
  std::string a1, a2;  ///< a1 = column 5 (counted allele), a2 = column 6
};

/// Reads a .fam file: 6 whitespace-separated columns; (FID, IID) pairs must be unique.
std::vector<sample_record> read_fam(const std::string& path);
/// Reads a .bim file: 6 whitespace-separated columns; variant IDs other than "." must be unique.
std::vector<variant_record> read_bim(const std::string& path);

/// Species chromosome set (PLINK --chr-set): autosomes 1..n_autosomes, then X, Y, XY, MT.
struct chromosome_set {
  int n_autosomes = 22;
  static chromosome_set human() { return {22}; }
  /// Returns the set for a PLINK species flag (cow, dog, horse, mouse, rice, sheep) or throws.
  static chromosome_set species(const std::string& name);
  /// Kind of a .bim chromosome name under this set.
  enum class kind { autosome, unplaced, x, y, xy, mt, other };
  kind classify(const std::string& chrom) const;
  /// Variants PLINK's --make-rel uses: everything but X, Y and MT (haploid or mitochondrial).
  bool diploid(const std::string& chrom) const;
  /// The name PLINK 2 prints: "chr" prefix dropped, numeric codes past the autosomes as X, Y, XY,
  /// MT; other names unchanged.
  std::string canonical(const std::string& chrom) const;
};

/// A memory-mapped .bed file in variant-major mode. Validates magic bytes and size
/// (3 + ceil(n/4) * m). Zero-copy: the OS pages the file in as ops touch it, so files larger
/// than RAM are read block by block.
class bed_file {
 public:
  bed_file(const std::string& path, int64_t n_samples, int64_t n_variants);
  ~bed_file();
  bed_file(const bed_file&) = delete;
  bed_file& operator=(const bed_file&) = delete;

  variant_major_view view() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int64_t n_samples_, n_variants_;
  const uint8_t* map_ = nullptr;
  size_t map_bytes_ = 0;
};

/// The samples a PLINK --keep file lists: "FID IID" per line, or, after a "#IID" header, one IID
/// per line (PLINK 2's "#FID IID ..." header is skipped; further columns are ignored).
struct sample_list {
  bool iid_only = false;
  std::unordered_set<std::string> pairs;  ///< "FID\tIID"
  std::unordered_set<std::string> iids;   ///< with iid_only
  bool contains(const std::string& fid, const std::string& iid) const {
    return iid_only ? iids.count(iid) > 0 : pairs.count(fid + '\t' + iid) > 0;
  }
};
/// Reads a --keep file (errors name the file and line).
sample_list read_sample_list(const std::string& path);

/// A .bed/.bim/.fam triple with optional sample and variant subsets.
class plink_fileset {
 public:
  explicit plink_fileset(const std::string& prefix);

  const std::vector<sample_record>& all_samples() const { return samples_; }
  const std::vector<variant_record>& all_variants() const { return variants_; }
  const bed_file& bed() const { return *bed_; }
  const std::string& prefix() const { return prefix_; }

  /// Restricts to samples listed in a PLINK --keep file (FID IID, or IID with a #IID header).
  void keep_samples(const std::string& path);
  /// Restricts to variants listed in a PLINK --extract file (one ID per line, first column).
  void extract_variants(const std::string& path);
  /// Restricts variants further by a predicate on their record.
  template <class Pred>
  void filter_variants(Pred keep) {
    std::vector<int64_t> kept;
    for (int64_t j : variant_index_)
      if (keep(variants_[j])) kept.push_back(j);
    variant_index_ = std::move(kept);
  }

  /// Indices (into all_samples / all_variants) of the kept ones, increasing.
  const std::vector<int64_t>& sample_index() const { return sample_index_; }
  const std::vector<int64_t>& variant_index() const { return variant_index_; }
  int64_t n_samples() const { return static_cast<int64_t>(sample_index_.size()); }
  int64_t n_variants() const { return static_cast<int64_t>(variant_index_.size()); }
  const sample_record& sample(int64_t i) const { return samples_[sample_index_[i]]; }
  const variant_record& variant(int64_t j) const { return variants_[variant_index_[j]]; }

  /// True when no subset drops samples: blocks can then be served from the mapped file as is.
  bool all_samples_kept() const { return n_samples() == static_cast<int64_t>(samples_.size()); }

  /// Kept variants [first, first + count), compacted to the kept samples.
  packed_genotypes read_block(int64_t first, int64_t count) const;

  /// The same block as a view into the mapped file, without a copy, when every sample is kept and
  /// the block's variants are consecutive in the file; else a view with data == nullptr.
  variant_major_view mapped_block(int64_t first, int64_t count) const;

 private:
  std::string prefix_;
  std::vector<sample_record> samples_;
  std::vector<variant_record> variants_;
  std::unique_ptr<bed_file> bed_;
  std::vector<int64_t> sample_index_, variant_index_;
};

}  // namespace pmx
