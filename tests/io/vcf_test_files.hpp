// Helpers of the VCF/BCF tests: VCFs with the records users have, BGZF compression without bgzip
// (python3's zlib), plink2 as the oracle, and PLINK filesets read back for comparison.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace pmx::test {

inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Compresses `from` into BGZF blocks of `block_bytes` (uncompressed) at `to`, with the empty
/// end-of-file block unless `eof_block` is false. Returns false when python3 is absent or fails.
inline bool write_bgzf(const std::string& from, const std::string& to, int block_bytes = 65280,
                       bool eof_block = true) {
  static const char* script =
      "import struct, sys, zlib\n"
      "def block(d):\n"
      "    c = zlib.compressobj(6, zlib.DEFLATED, -15)\n"
      "    z = c.compress(d) + c.flush()\n"
      "    h = struct.pack('<4BI2BH2BHH', 31, 139, 8, 4, 0, 0, 255, 6, 66, 67, 2, len(z) + 25)\n"
      "    return h + z + struct.pack('<II', zlib.crc32(d) & 0xffffffff, len(d))\n"
      "data = open(sys.argv[1], 'rb').read()\n"
      "n = int(sys.argv[3])\n"
      "with open(sys.argv[2], 'wb') as f:\n"
      "    for i in range(0, len(data), n): f.write(block(data[i:i + n]))\n"
      "    if sys.argv[4] == '1': f.write(block(b''))\n";
  const std::string py = to + ".bgzf.py";
  write_file(py, script);
  return run("python3 " + shq(py) + " " + shq(from) + " " + shq(to) + " " + std::to_string(block_bytes) +
             " " + (eof_block ? "1" : "0")) == 0;
}

/// A PLINK fileset as text: the .bed bytes, and the .bim/.fam lines with fields joined by one tab
/// (the fields are what must agree; make-bed tests compare the bytes too).
struct fileset_text {
  std::string bed;
  std::vector<std::string> bim, fam;
};

inline std::vector<std::string> field_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ss(line);
    std::string f, joined;
    while (ss >> f) joined += (joined.empty() ? "" : "\t") + f;
    out.push_back(joined);
  }
  return out;
}

inline fileset_text read_fileset(const std::string& prefix) {
  return {file_bytes(prefix + ".bed"), field_lines(prefix + ".bim"), field_lines(prefix + ".fam")};
}

/// Checks two filesets line by line (the first difference of each file is enough to see).
inline void expect_same_fileset(const fileset_text& ours, const fileset_text& plink2) {
  ASSERT_EQ(ours.fam.size(), plink2.fam.size());
  for (size_t i = 0; i < ours.fam.size(); ++i) ASSERT_EQ(ours.fam[i], plink2.fam[i]) << ".fam line " << i + 1;
  ASSERT_EQ(ours.bim.size(), plink2.bim.size());
  for (size_t j = 0; j < ours.bim.size(); ++j) ASSERT_EQ(ours.bim[j], plink2.bim[j]) << ".bim line " << j + 1;
  ASSERT_EQ(ours.bed.size(), plink2.bed.size());
  const size_t row = ours.fam.empty() ? 1 : (ours.fam.size() + 3) / 4;
  for (size_t k = 0; k < ours.bed.size(); ++k)
    ASSERT_EQ(static_cast<int>(static_cast<uint8_t>(ours.bed[k])), static_cast<int>(static_cast<uint8_t>(plink2.bed[k])))
        << ".bed byte " << k << " (variant " << (k < 3 ? -1 : static_cast<long>((k - 3) / row) + 1) << ")";
}

/// `plink2 --vcf|--bcf FILE --max-alleles 2 --snps-only FLAGS --make-bed --out PREFIX`; returns its status.
inline int plink2_make_bed(const std::string& input_flag, const std::string& file, const std::string& flags,
                           const std::string& prefix) {
  return run("plink2 " + input_flag + " " + shq(file) + " --max-alleles 2 --snps-only " + flags +
                 " --make-bed --threads 2 --out " + shq(prefix),
             prefix + ".plink2.txt");
}

/// A VCF with the records users have, `records` of them after a fixed hand-written part, drawn
/// from `seed`: SNPs with every kind of call (phased, unphased, missing, haploid, lowercase
/// alleles), multi-allelic sites, indels, symbolic and '*' and '.' alleles, FORMAT/GQ and DP with
/// missing values, a record without GT, positions out of order, chromosomes chr1, 2, chrX, chrY,
/// chrM. Sample IDs: `ids`. No half-calls unless `half_calls`.
inline std::string users_vcf(const std::vector<std::string>& ids, int records, uint64_t seed, bool half_calls) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<uint64_t>(k)); };
  std::string s =
      "##fileformat=VCFv4.2\n"
      "##contig=<ID=chr1>\n##contig=<ID=2>\n##contig=<ID=chrX>\n##contig=<ID=chrY>\n##contig=<ID=chrM>\n"
      "##INFO=<ID=DP,Number=1,Type=Integer,Description=\"Depth\">\n"
      "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
      "##FORMAT=<ID=GQ,Number=1,Type=Integer,Description=\"Genotype quality\">\n"
      "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"Read depth\">\n"
      "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT";
  for (const auto& id : ids) s += "\t" + id;
  s += "\n";
  const size_t n = ids.size();
  auto fixed = [&](const std::string& site, const std::vector<std::string>& calls) {
    s += site;
    for (size_t i = 0; i < n; ++i) s += "\t" + calls[i % calls.size()];
    s += "\n";
  };
  fixed("chr1\t5\trsA\tA\tG\t.\tPASS\tDP=3\tGT", {"0/1", "1|1", "./.", "0|0", "1/0", ".", "0|1"});
  fixed("chr1\t6\trsB\tA\tG,T\t.\t.\t.\tGT", {"0/1", "1|2", "./.", "2/2"});
  fixed("chr1\t7\trsC\tAT\tG\t.\t.\t.\tGT", {"0/1", "1|1"});
  fixed("chr1\t8\t.\tC\t.\t.\t.\t.\tGT", {"0/0", "0|0", ".", "./."});
  fixed("chr1\t9\trsE\tC\t*\t.\t.\t.\tGT", {"0/1", "1", "0", "./."});
  fixed("chr1\t10\trsF\tC\t<DEL>\t.\t.\t.\tGT", {"0/1", "1"});
  fixed("chr1\t11\trsG\tC\tT\t.\t.\t.\tGT:GQ:DP", {"0/1:10:5", "1/1:30:20", "0/0:.:.", "0/1", "1|0:20:10"});
  fixed("chr1\t12\trsH\tA\tC\t.\t.\t.\tGQ:DP", {"10:3", ".:.", "40:9"});
  fixed("chr1\t13\trsI\tg\ta\t.\t.\t.\tGT", {"1/0", "0|1", "./.", "1/1"});
  fixed("chr1\t14\trsJ\tA\tC\t.\t.\t.\tGT", {"0/1/1", "1/1", "./.", "1"});
  fixed("chr1\t3\trsK\tA\tC\t.\t.\t.\tGT", {"0/1", "1/1"});  // out of order
  const char* bases = "ACGT";
  const std::vector<std::string> chroms = {"chr1", "2", "chrX", "chrY", "chrM"};
  for (int r = 0; r < records; ++r) {
    const size_t c = std::min(chroms.size() - 1, static_cast<size_t>(r) * chroms.size() / static_cast<size_t>(records));
    const bool haploid_chrom = c >= 3;
    const int kind = pick(100);
    const char ref = bases[pick(4)];
    char alt = bases[pick(4)];
    if (alt == ref) alt = bases[(pick(3) + 1 + (ref == 'A' ? 0 : ref == 'C' ? 1 : ref == 'G' ? 2 : 3)) % 4];
    std::string ref_s(1, ref), alt_s(1, alt);
    if (kind < 8) alt_s += std::string(",") + (alt == 'A' ? "C" : "A");  // multi-allelic
    else if (kind < 14) ref_s += bases[pick(4)];                        // deletion
    else if (kind < 17) alt_s = std::string(1, alt) + "TT";               // insertion
    else if (kind < 18) alt_s = "<INS>";
    const bool with_q = pick(3) == 0;
    s += chroms[c] + "\t" + std::to_string(100 + 10 * r - (pick(20) == 0 ? 15 : 0)) + "\t" +
         (pick(5) == 0 ? std::string(".") : "v" + std::to_string(r)) + "\t" + ref_s + "\t" + alt_s +
         "\t.\t.\t.\t" + (with_q ? "GT:GQ:DP" : "GT");
    const int max_allele = alt_s.find(',') != std::string::npos ? 3 : 2;
    for (size_t i = 0; i < n; ++i) {
      const int a = pick(max_allele), b = pick(max_allele), how = pick(20);
      std::string call;
      if (how == 0) call = ".";
      else if (how == 1) call = "./.";
      else if (how == 2) call = ".|.";
      else if (how == 3 && half_calls) call = pick(2) ? "./" + std::to_string(a) : std::to_string(a) + "|.";
      else if (haploid_chrom || how < 6) call = std::to_string(a);
      else call = std::to_string(a) + (pick(2) ? "|" : "/") + std::to_string(b);
      if (with_q) {
        call += ":" + (pick(6) == 0 ? std::string(".") : std::to_string(pick(60)));
        if (pick(4)) call += ":" + (pick(6) == 0 ? std::string(".") : std::to_string(pick(30)));
      }
      s += "\t" + call;
    }
    s += "\n";
  }
  return s;
}

}  // namespace pmx::test
