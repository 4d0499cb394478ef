// VCF sample IDs to .fam records, as plink2 imports them (--const-fid, --double-id, --id-delim).
#pragma once
#include <string>
#include <vector>

#include "panoramix/genotype_records.hpp"
#include "panoramix/vcf_files.hpp"

namespace pmx::io {

/// One record per ID, in order: FID/IID per `o.ids`, parents "0", sex 0, phenotype "-9". Throws
/// input_error naming `path` and the sample for an ID with whitespace, one that does not split
/// under --id-delim, or two samples with the same FID and IID.
std::vector<sample_record> vcf_sample_records(const std::vector<std::string>& ids, const vcf_options& o,
                                              const std::string& path);

}  // namespace pmx::io
