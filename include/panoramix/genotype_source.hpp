// The genotypes a statistic reads: kept samples × kept variants as 2-bit .bed codes, block by block,
// with a record per kept sample and variant. PLINK filesets (plink_fileset) and genotypes in memory
// (memory_genotypes) implement it; readers of other formats (VCF/BCF, BGEN, .pgen) will too.
// Subsetting (--keep, --extract, ...) is the implementation's business: a source shows only what it
// keeps, numbered 0.. in order.
#pragma once
#include <cstdint>
#include <string>

#include "panoramix/genotype_records.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/packed_genotypes.hpp"

namespace pmx {

class genotype_source {
 public:
  virtual ~genotype_source() = default;

  /// Where the genotypes come from, for messages (a fileset prefix, a file path, "memory").
  virtual const std::string& name() const = 0;
  /// Kept samples and variants.
  virtual int64_t n_samples() const = 0;
  virtual int64_t n_variants() const = 0;
  /// Record of kept sample i (sex, parents for the founder rule, IDs for writers).
  virtual const sample_record& sample(int64_t i) const = 0;
  /// Record of kept variant j (chromosome, position, ID, alleles; a1 is the counted allele).
  virtual const variant_record& variant(int64_t j) const = 0;

  /// Kept variants [first, first + count) over the kept samples, copied (rows of ceil(n/4) bytes).
  virtual packed_genotypes read_block(int64_t first, int64_t count) const = 0;
  /// The same block as a view of memory the source already holds in that layout (a mapped .bed),
  /// valid while the source lives; a view with data == nullptr where it would need a copy.
  virtual variant_major_view mapped_block(int64_t first, int64_t count) const = 0;

  /// The block as a view: mapped_block where possible, else read_block into `copy` (which must
  /// outlive the view).
  variant_major_view block(int64_t first, int64_t count, packed_genotypes& copy) const {
    variant_major_view g = mapped_block(first, count);
    if (!g.data) copy = read_block(first, count), g = copy.view();
    return g;
  }
};

}  // namespace pmx
