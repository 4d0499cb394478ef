// The .pgen header (PLINK 2 format specification, "Header"): the storage mode, the counts, and
// where each variant record is and how its main data track is stored. Everything is checked
// against the file size before a record is touched, so a corrupt header cannot send a decoder
// outside the mapped file or make the reader allocate more than the file can hold.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pmx::io {

/// Storage modes (the third byte).
enum : uint8_t {
  pgen_mode_plink1 = 0x01,    ///< a PLINK 1 variant-major .bed under another name
  pgen_mode_fixed = 0x02,     ///< fixed-width 2-bit records (`--make-pgen format=2`)
  pgen_mode_variable = 0x10,  ///< what `--make-pgen` writes: typed, compressed records
};

/// The first bytes: magic number, mode and (except in mode 0x01) the counts.
struct pgen_preamble {
  uint8_t mode = 0;
  uint32_t n_variants = 0, n_samples = 0;  ///< 0 in mode 0x01 (the .pvar and .psam say)
};

/// Reads the preamble; throws input_error for a file that is not a .pgen (magic number, size) and
/// unsupported_error, naming the mode and the plink2 command that writes a readable file, for the
/// storage modes and header layouts this reader does not decode.
pgen_preamble read_pgen_preamble(const uint8_t* data, size_t size, const std::string& path);

struct pgen_index {
  uint8_t mode = 0;
  uint32_t n_variants = 0, n_samples = 0;
  std::vector<uint8_t> types;      ///< record type of each variant (0 in the fixed-width modes)
  std::vector<uint64_t> offsets;   ///< n_variants + 1: record j is bytes [offsets[j], offsets[j + 1])
  int64_t multiallelic = -1;       ///< first variant whose stored allele count is above 2, or -1
  int multiallelic_count = 0;      ///< its allele count
};

/// The record index of a file whose preamble is `p`, for `n_samples` and `n_variants` (the .psam
/// and .pvar counts, which the caller has checked against the preamble's). Throws input_error
/// naming the file and what is wrong: a header cut short, a variant block that does not start
/// where the record lengths before it end, records running past the end of the file or bytes
/// after the last one, an allele count below 2. `variant_name(j)` names variant j (0-based) in
/// messages ("variant 21 ('rs7')").
pgen_index read_pgen_index(const uint8_t* data, size_t size, const std::string& path, const pgen_preamble& p,
                           uint32_t n_samples, uint32_t n_variants,
                           const std::function<std::string(uint64_t)>& variant_name);

}  // namespace pmx::io
