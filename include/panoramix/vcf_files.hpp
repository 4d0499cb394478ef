// VCF and BCF input (plain, gzip or bgzip; through htslib): the GT calls of biallelic SNPs as 2-bit
// .bed codes, with the sample and variant records `plink2 --vcf FILE --max-alleles 2 --snps-only
// --make-bed` writes. The whole file is read once, into memory, at 2 bits a call: the genotypes
// stay compressed, never a dosage matrix.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "panoramix/chromosome_set.hpp"
#include "panoramix/decoded_genotypes.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

/// How a VCF sample ID becomes a .fam FID and IID (PLINK 2's --const-fid / --double-id / --id-delim).
enum class vcf_sample_ids {
  const_fid,  ///< FID = vcf_options::const_fid ("0" unless --const-fid ID), IID = the whole ID (plink2's default)
  double_id,  ///< FID = IID = the whole ID
  delimited,  ///< "FID<d>IID" or "FID<d>IID<d>SID" (the SID is dropped); an ID without <d> is an error
};

/// What a diploid call with one allele missing ("./1") becomes: PLINK 2's --vcf-half-call.
enum class vcf_half_call {
  error,      ///< refuse the file (plink2's default)
  missing,    ///< a missing call
  haploid,    ///< the called allele, as a haploid (homozygous) call
  reference,  ///< the missing allele read as REF
};

struct vcf_options {
  vcf_sample_ids ids = vcf_sample_ids::const_fid;
  std::string const_fid = "0";
  char id_delim = '_';
  vcf_half_call half_call = vcf_half_call::error;
  /// Calls whose FORMAT/GQ or FORMAT/DP is below these become missing (plink2 --vcf-min-gq,
  /// --vcf-min-dp); -1: no filter. Calls without a value are kept, as plink2 does.
  int min_gq = -1, min_dp = -1;
  /// Names chromosomes as plink2 prints them ("chr1" -> "1", "chrM"/"26" -> "MT", ...).
  chromosome_set chromosomes = chromosome_set::human();
  /// htslib threads for BGZF decompression (0: none beside the reading thread).
  int threads = 0;
};

/// What the reader saw, for the log.
struct vcf_read_counts {
  int64_t records = 0;       ///< data lines / BCF records read
  int64_t multiallelic = 0;  ///< skipped: more than one ALT allele
  int64_t non_snp = 0;       ///< skipped: an allele longer than one character (indels, <DEL>, ...)
  int64_t without_gt = 0;    ///< kept with every call missing: the record has no GT field
  int64_t half_calls = 0;    ///< half-calls seen (made missing, haploid or REF as the options say)
  int64_t gq_masked = 0, dp_masked = 0;  ///< calls made missing by min_gq / min_dp
  int64_t unsorted = 0;      ///< kept records at a lower position than the one before on their chromosome
};

/// A VCF or BCF file as a genotype source (every sample, every kept variant).
///   * variants: biallelic SNPs (one REF and at most one ALT allele, each one character; a record
///     whose ALT is "." is kept with A1 "."); A1 (.bim column 5, the counted allele) = ALT,
///     A2 = REF, as plink2 writes them; ID as in the file; cM 0; position as in the file;
///   * calls: diploid 0/0, 0/1, 1/1 ('/' or '|'); haploid calls (male X, Y, MT, or any) as
///     homozygous; '.' missing; ploidy above 2 missing; half-calls per vcf_half_call;
///   * samples: FID/IID per vcf_sample_ids, parents "0", sex 0 (unknown), phenotype -9.
/// A record that cannot be parsed, a truncated or corrupt BGZF file (including one without the
/// BGZF end-of-file block), a file without samples, a file without a GT field, a GT allele
/// outside the record's alleles, or a chromosome that comes back after another (plink2's "split
/// chromosome") throws input_error naming the file and the record. Reading switches htslib's own
/// log off (a process-wide htslib setting): the library prints nothing, its errors say it all.
class vcf_genotypes final : public decoded_genotypes {
 public:
  explicit vcf_genotypes(const std::string& path, const vcf_options& options = {},
                         progress_sink* progress = nullptr);
  const vcf_read_counts& counts() const { return counts_; }

 private:
  vcf_read_counts counts_;
};

/// False when this build has no htslib (vcf_genotypes then throws unsupported_error).
bool vcf_compiled_in();

}  // namespace pmx
