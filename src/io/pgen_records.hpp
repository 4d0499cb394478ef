// Decoding one .pgen variant record's hard calls into a 2-bit .bed row (PLINK 2 format
// specification, "Variant records": the main data track and its difflists; the hardcall-phase
// track is checked and skipped, since .bed has no phase).
//
// Codes. The main track stores 0 = hom REF, 1 = het, 2 = hom ALT, 3 = missing; the .bed row gets
// what `plink2 --pfile --make-bed` writes with A1 = ALT: 0 -> 11 (hom A2), 1 -> 10, 2 -> 00
// (hom A1), 3 -> 01. Padding calls of the row are 00.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace pmx::io {

/// Record types by the low 3 bits (how the main track is stored).
enum : unsigned {
  pgen_fixed = 0,        ///< ceil(N/4) bytes of 2-bit codes
  pgen_one_bit = 1,      ///< the two commonest codes as a bitarray, the others as a difflist
  pgen_ld = 2,           ///< a difflist from the last record that is not LD-compressed
  pgen_ld_inverted = 3,  ///< the same, then hom REF and hom ALT swapped
  pgen_sparse_0 = 4,     ///< a difflist of the calls that are not 0 (hom REF)
  pgen_sparse_2 = 6,     ///< ... not 2 (hom ALT)
  pgen_sparse_3 = 7,     ///< ... not 3 (missing)
};
inline bool pgen_is_ld(unsigned type) { return (type & 7) == pgen_ld || (type & 7) == pgen_ld_inverted; }

/// Bit 4 of a record type: a hardcall-phase track follows the main track.
constexpr unsigned pgen_phase_bit = 0x10;

/// Decodes record `rec` (`size` bytes, type `type`: main track storage 0-4, 6, 7, with or without
/// the phase bit) of `n` samples into `row` (ceil(n/4) bytes). `base` is the decoded row of the
/// last record that is not LD-compressed (types 2 and 3 need it; nullptr otherwise). Returns ""
/// or what is wrong with the record (a track that runs past its end or stops short of it, a
/// sample index out of range, a difflist longer than n/8, an unknown 1-bit category pair).
std::string decode_pgen_record(const uint8_t* rec, size_t size, unsigned type, uint32_t n, const uint8_t* base,
                               uint8_t* row);

/// Bytes a sample index takes in a difflist of a file of n samples (plink2: 1 below 256, 2 below
/// 65536, 3 below 2^24, else 4).
inline int pgen_sample_id_bytes(uint32_t n) {
  return n < (1u << 8) ? 1 : n < (1u << 16) ? 2 : n < (1u << 24) ? 3 : 4;
}

}  // namespace pmx::io
