#include "io/pgen_index.hpp"

#include <algorithm>

#include "io/mapped_file.hpp"
#include "panoramix/error.hpp"

namespace pmx::io {
namespace {

constexpr uint32_t vblock_size = 65536;  // variants per block of the header (and of LD references)

std::string hex(unsigned v) {
  const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[v >> 4 & 15] + digits[v & 15];
}

// Where the records of a readable file are written from: one command per obstacle.
const char* rewrite_hint = "`plink2 --pfile PREFIX --make-bed --out NEW` writes a fileset for --bfile";

}  // namespace

pgen_preamble read_pgen_preamble(const uint8_t* data, size_t size, const std::string& path) {
  if (size < 3 || data[0] != 0x6c || data[1] != 0x1b)
    throw input_error(path + ": not a .pgen file (it does not start with the magic number 0x6c 0x1b)");
  pgen_preamble p;
  p.mode = data[2];
  const std::string mode = "storage mode " + hex(p.mode) + " (third byte)";
  switch (p.mode) {
    case 0x00:
      throw unsupported_error(path + ": " + mode + ", a sample-major PLINK 1 .bed: not read; " + rewrite_hint);
    case 0x03:
    case 0x04:
      throw unsupported_error(path + ": " + mode + ", fixed-width " + (p.mode == 3 ? "" : "phased ") +
                              "dosages: not read; `plink2 --pfile PREFIX --make-pgen erase-dosage --out NEW` "
                              "keeps the hard calls");
    case pgen_mode_plink1: return p;
    case pgen_mode_fixed:
    case pgen_mode_variable: break;
    case 0x11:
      throw unsupported_error(path + ": " + mode + " (a later plink2's variable-width layout with header "
                              "extensions): not read; " + rewrite_hint);
    default:
      throw unsupported_error(path + ": " + mode + " is not one the PLINK 2 format specification defines "
                              "(0x01, 0x02 and 0x10 are read)");
  }
  if (size < 12) throw input_error(path + ": truncated .pgen header (" + std::to_string(size) + " bytes, 12 needed)");
  p.n_variants = static_cast<uint32_t>(little_endian(data + 3, 4));
  p.n_samples = static_cast<uint32_t>(little_endian(data + 7, 4));
  const uint8_t ctrl = data[11];
  if (p.mode == pgen_mode_fixed && (ctrl & 63))
    throw input_error(path + ": header byte 12 is " + hex(ctrl) + ", which only a variable-width mode uses "
                      "(storage mode 0x02 is fixed-width)");
  if (p.mode == pgen_mode_variable) {
    if (ctrl & 8)
      throw unsupported_error(path + ": header layout " + std::to_string(ctrl & 15) + " (byte 12: record "
                              "types and lengths fused, for single-sample files): not read; " + rewrite_hint);
    if (((ctrl >> 4) & 3) > 1)
      throw unsupported_error(path + ": allele counts of " + std::to_string((ctrl >> 4) & 3) + " bytes (more than "
                              "254 ALT alleles): only biallelic variants are read; " + rewrite_hint);
  }
  return p;
}

pgen_index read_pgen_index(const uint8_t* data, size_t size, const std::string& path, const pgen_preamble& p,
                           uint32_t n_samples, uint32_t n_variants,
                           const std::function<std::string(uint64_t)>& variant_name) {
  pgen_index x;
  x.mode = p.mode;
  x.n_samples = n_samples, x.n_variants = n_variants;
  const uint64_t row = (uint64_t(n_samples) + 3) / 4, m = n_variants;
  x.types.assign(m, 0);
  x.offsets.resize(m + 1);
  auto fixed_width = [&](uint64_t first) {
    const uint64_t want = first + m * row;
    if (want != size)
      throw input_error(path + ": " + std::to_string(size) + " bytes, " + std::to_string(want) + " expected for " +
                        std::to_string(m) + " variants of " + std::to_string(n_samples) + " samples (" +
                        (want > size ? "truncated" : "extra bytes at the end") + ")");
    for (uint64_t j = 0; j <= m; ++j) x.offsets[j] = first + j * row;
  };
  if (p.mode == pgen_mode_plink1) {
    fixed_width(3);
    return x;
  }
  const uint8_t ctrl = data[11];
  const bool nonref_flags = (ctrl >> 6) == 3;  // per-variant provisional-REF bits (not used here)
  if (p.mode == pgen_mode_fixed) {
    fixed_width(12 + (nonref_flags ? (m + 7) / 8 : 0));
    return x;
  }
  // Mode 0x10: block offsets, then per block of 65536 variants: types, lengths, allele counts,
  // provisional-REF flags.
  const uint64_t blocks = (m + vblock_size - 1) / vblock_size;
  const int type_bits = (ctrl & 4) ? 8 : 4, length_bytes = (ctrl & 3) + 1, count_bytes = (ctrl >> 4) & 3;
  uint64_t at = 12;
  auto take = [&](uint64_t k, const char* what) {
    if (k > size - std::min<uint64_t>(at, size))
      throw input_error(path + ": truncated .pgen header: it ends inside the " + what + " (the file has " +
                        std::to_string(size) + " bytes)");
    const uint8_t* q = data + at;
    at += k;
    return q;
  };
  const uint8_t* block_starts = take(8 * blocks, "variant block offsets");
  std::vector<uint32_t> lengths(m);
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t first = b * vblock_size, count = std::min<uint64_t>(vblock_size, m - first);
    const uint8_t* types = take(type_bits == 8 ? count : (count + 1) / 2, "record types");
    const uint8_t* lens = take(count * uint64_t(length_bytes), "record lengths");
    const uint8_t* alleles = take(count * uint64_t(count_bytes), "allele counts");
    if (nonref_flags) take((count + 7) / 8, "provisional-REF flags");
    for (uint64_t k = 0; k < count; ++k) {
      x.types[first + k] = type_bits == 8 ? types[k] : (types[k / 2] >> (4 * (k & 1))) & 15;
      lengths[first + k] = static_cast<uint32_t>(little_endian(lens + k * uint64_t(length_bytes), length_bytes));
      if (count_bytes) {
        const int alleles_here = alleles[k];
        if (alleles_here < 2)
          throw input_error(path + ": " + variant_name(first + k) + ": allele count " +
                            std::to_string(alleles_here) + " in the header (at least 2)");
        if (alleles_here > 2 && x.multiallelic < 0) x.multiallelic = int64_t(first + k), x.multiallelic_count = alleles_here;
      }
    }
  }
  uint64_t pos = at;
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t first = b * vblock_size, count = std::min<uint64_t>(vblock_size, m - first);
    const uint64_t stated = little_endian(block_starts + 8 * b, 8);
    if (stated != pos)
      throw input_error(path + ": corrupt .pgen header: variant block " + std::to_string(b + 1) + " (variants from " +
                        std::to_string(first + 1) + ") is said to start at byte " + std::to_string(stated) +
                        ", the header and record lengths before it end at byte " + std::to_string(pos));
    for (uint64_t k = 0; k < count; ++k) x.offsets[first + k] = pos, pos += lengths[first + k];
  }
  x.offsets[m] = pos;
  if (pos > size) {
    uint64_t j = 0;
    while (x.offsets[j + 1] <= size) ++j;
    throw input_error(path + ": truncated: " + variant_name(j) + ": its record ends at byte " +
                      std::to_string(x.offsets[j + 1]) + ", the file has " + std::to_string(size) + " bytes");
  }
  if (pos < size)
    throw input_error(path + ": " + std::to_string(size - pos) + " bytes after the last variant record (the header's "
                      "record lengths end at byte " + std::to_string(pos) + "; corrupt header?)");
  return x;
}

}  // namespace pmx::io
