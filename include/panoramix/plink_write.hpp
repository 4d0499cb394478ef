// Writing PLINK 1 binary filesets (.bed/.bim/.fam).
#pragma once
#include <string>
#include <vector>

#include "panoramix/genotype_source.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

/// How the text files are laid out: PLINK 1.9's (space-separated .fam, a missing allele "0") or
/// PLINK 2's (tab-separated .fam, a missing allele "."), so that a fileset can equal either's bytes.
enum class plink_text_style { plink1, plink2 };

/// Writes PREFIX.bed (variant-major, padding calls zeroed), PREFIX.bim (tab-separated) and
/// PREFIX.fam in `style`. The three files appear together, only once all are complete.
/// Throws logic_error when the record counts do not match `genotypes`, input_error for a field
/// that would not read back (empty or containing whitespace), io_error when writing fails.
void write_plink_fileset(const std::string& prefix, const std::vector<sample_record>& samples,
                         const std::vector<variant_record>& variants,
                         const variant_major_view& genotypes, plink_text_style style = plink_text_style::plink1);

/// The same from a genotype source (its samples and variants and their records), the genotypes
/// read and written block by block (a few MB each): a source that decodes as it is read (a .pgen)
/// is never whole in memory. Errors of the source's reads propagate; nothing is left behind then.
void write_plink_fileset(const std::string& prefix, const genotype_source& genotypes,
                         plink_text_style style = plink_text_style::plink1, progress_sink* progress = nullptr);

}  // namespace pmx
